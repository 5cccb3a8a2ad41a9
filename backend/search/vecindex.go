package search

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"loupe/backend/vector"
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

// NewVectorIndex is the default IndexBuilder: backend/vector's Auto index (exact scan for small collections, HNSW
// from vector.DefaultCrossover vectors on).
func NewVectorIndex(dim int, ids []int64, vecs [][]float32) (Index, error) {
	a, err := vector.NewAuto(vector.Config{Dims: dim, Metric: vector.Cosine})
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

// openPersisted loads a saved index whose generation matches fp, or reports why it cannot be used.
func openPersisted(dir string, k indexKey, fp fingerprint) (Index, error) {
	a, err := vector.Open(indexPath(dir, k), vector.Config{Dims: k.dim, Metric: vector.Cosine}, fp.generation())
	if err != nil {
		return nil, err
	}
	return vectorIndex{a}, nil
}

// persist saves a freshly built index for the next process; failure only costs the next start a rebuild.
func persist(dir string, k indexKey, idx Index, fp fingerprint) {
	vi, ok := idx.(vectorIndex)
	if !ok {
		return
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		slog.Warn("search: cannot create index directory", "dir", dir, "err", err)
		return
	}
	start := time.Now()
	vi.ix.SetGeneration(fp.generation())
	path := indexPath(dir, k)
	if err := vi.ix.Save(path); err != nil {
		slog.Warn("search: cannot save index", "file", path, "err", err)
		return
	}
	slog.Debug("search: index saved", "file", path, "took", time.Since(start))
}

// loadMeta reads the filter fields of every vector indexed for k, without the vectors themselves: what a search
// needs when the index comes from its file.
func (s *Searcher) loadMeta(ctx context.Context, k indexKey) (map[int64]unitMeta, error) {
	q, args := itemsSQL(k, false)
	rows, err := s.kb.DB().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("search: load units of %s: %w", k.embedder, err)
	}
	defer rows.Close()
	meta := map[int64]unitMeta{}
	for rows.Next() {
		var id int64
		var m unitMeta
		if err := rows.Scan(&id, &m.unit, &m.collection, &m.document, &m.kind); err != nil {
			return nil, fmt.Errorf("search: load units of %s: %w", k.embedder, err)
		}
		meta[id] = m
	}
	return meta, rows.Err()
}

func isMissing(err error) bool { return errors.Is(err, fs.ErrNotExist) }
