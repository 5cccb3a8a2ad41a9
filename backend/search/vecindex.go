package search

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math"
	"path/filepath"
	"strings"

	"proofglass/backend/vector"
)

// vectorIndex adapts a vector.Index (cosine metric) to Index.
type vectorIndex struct{ ix vector.Index }

func (v vectorIndex) Search(q []float32, k int, allow func(int64) bool) ([]Neighbor, error) {
	var f *vector.Filter
	if allow != nil {
		f = &vector.Filter{Allow: allow}
	}
	rs, err := v.ix.Search(q, k, f)
	if err != nil {
		return nil, err
	}
	out := make([]Neighbor, len(rs))
	for i, r := range rs {
		out[i] = Neighbor{UnitID: r.ID, Score: 1 - r.Dist} // cosine distance is 1 − cos
	}
	return out, nil
}

// exactWork is how many multiply-adds a query may cost before the dense index becomes an HNSW graph: 40M is about
// 10 ms on one core with the SIMD kernels. Up to there an exact index is the better trade for a library: it is
// exact, building or growing it is a copy (ingest keeps it current cheaply), and a new process opens it from the
// mapped file without decoding a graph (a 116k-node graph cost 300 ms of CPU to open).
const exactWork = 40_000_000

// indexConfig is the configuration of the dense indexes searches use.
func indexConfig(dim int) vector.Config {
	return vector.Config{Dims: dim, Metric: vector.Cosine, Crossover: max(vector.DefaultCrossover(dim), exactWork/dim)}
}

// NewVectorIndex is the default IndexBuilder: backend/vector's Auto index (exact scan for small collections, HNSW
// from vector.DefaultCrossover vectors on).
func NewVectorIndex(dim int, ids []int64, vecs [][]float32) (Index, error) {
	a, err := vector.NewAuto(indexConfig(dim))
	if err != nil {
		return nil, err
	}
	if len(ids) > 0 {
		if err := a.AddBatch(ids, vecs); err != nil {
			return nil, err
		}
	}
	return vectorIndex{a}, nil
}

// generation turns a fingerprint into the number stored in an index file, so a file written for other vectors is
// recognised as stale.
func (fp fingerprint) generation() uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d/%x", fp.gen, fp.n, math.Float64bits(fp.sum))
	return h.Sum64()
}

// indexPath is the file of one embedder's index under dir, named so distinct keys never share a file.
func indexPath(dir string, k indexKey) string {
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, k.embedder)
	h := fnv.New32a()
	h.Write([]byte(k.embedder))
	return filepath.Join(dir, fmt.Sprintf("%s-%08x-%s-%d.idx", safe, h.Sum32(), k.modality, k.dim))
}

func isMissing(err error) bool { return errors.Is(err, fs.ErrNotExist) }
