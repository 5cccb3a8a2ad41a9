// Package vector is Proofglass's nearest-neighbour index: exact scan and HNSW, concurrent, persisted as a checked cache.
package vector

import (
	"errors"
	"fmt"
	"math"
)

// Metric names how two vectors are compared.
type Metric uint8

const (
	// Cosine compares directions; vectors are normalised on insert and on query. Dist = 1 − cos.
	Cosine Metric = iota + 1
	// Dot ranks by inner product (for embedders trained for it). Dist = −dot.
	Dot
	// L2 ranks by Euclidean distance. Dist = squared Euclidean distance.
	L2
)

func (m Metric) String() string {
	switch m {
	case Cosine:
		return "cosine"
	case Dot:
		return "dot"
	case L2:
		return "l2"
	}
	return fmt.Sprintf("metric(%d)", uint8(m))
}

// ParseMetric turns "cosine", "dot" or "l2" into a Metric.
func ParseMetric(s string) (Metric, error) {
	switch s {
	case "cosine", "cos":
		return Cosine, nil
	case "dot", "ip":
		return Dot, nil
	case "l2", "euclidean":
		return L2, nil
	}
	return 0, fmt.Errorf("vector: unknown metric %q (want cosine, dot or l2)", s)
}

func (m Metric) valid() bool { return m >= Cosine && m <= L2 }

// Result is one neighbour: the caller's id and its distance to the query (lower is nearer; see Metric).
type Result struct {
	ID   int64
	Dist float32
}

// Filter limits a search to some ids. Both parts are optional; when both are set an id must pass both. The search
// package builds one from collection/document/kind: IDs when it already knows the allowed unit vectors (a SQL
// query), Allow when membership is cheap to test. A selective filter switches the index to an exact scan over the
// ids that pass, so recall does not collapse.
type Filter struct {
	IDs   []int64
	Allow func(id int64) bool
}

// Index is what the knowledge base needs from a vector index. Ids are SQLite row ids. All methods are safe for
// concurrent use. Search returns at most k results, nearest first.
type Index interface {
	// Add inserts vec under id, replacing any vector already stored under id.
	Add(id int64, vec []float32) error
	// AddBatch inserts many vectors using every core.
	AddBatch(ids []int64, vecs [][]float32) error
	// Delete removes id and reports whether it was present.
	Delete(id int64) bool
	Search(q []float32, k int, f *Filter) ([]Result, error)
	Len() int
	Dims() int
	Metric() Metric
	// Generation is the SQLite-side generation the index mirrors; it is saved in the file so a stale file is noticed.
	Generation() uint64
	SetGeneration(g uint64)
	// Save writes the index to path atomically (temp file, fsync, rename).
	Save(path string) error
	// Load replaces the index's contents with the file at path. It fails, leaving the index unchanged, if the file
	// is torn, corrupt, of another kind, metric or dimension.
	Load(path string) error
}

// Errors callers may test for with errors.Is.
var (
	ErrDims    = errors.New("vector: dimension mismatch")
	ErrCorrupt = errors.New("vector: index file corrupt")
	ErrStale   = errors.New("vector: index file is stale")
	ErrKind    = errors.New("vector: index file is of another kind")
	// ErrNotFinite: a vector or query with a NaN or infinite component.
	ErrNotFinite = errors.New("vector: non-finite component")
)

// Config describes a new index.
type Config struct {
	Dims   int
	Metric Metric
	// HNSW parameters; zero means the default (M 16, EfConstruction 128, EfSearch 64).
	M              int
	EfConstruction int
	EfSearch       int
	// Seed makes level generation reproducible; 0 picks a fixed default so builds are repeatable.
	Seed uint64
	// RebuildFraction: when tombstones exceed this share of the graph (and 1,000 nodes) the HNSW graph is rebuilt in
	// the background without them. 0 means 0.25; negative disables.
	RebuildFraction float64
	// FilterExactBelow: a filtered search that passes fewer ids than this is answered by exact scan. 0 means 4096.
	FilterExactBelow int
	// Storage of the exact index's vectors: F32 (default), F16 or I8.
	Storage Storage
	// Crossover: Auto switches from exact scan to HNSW at this many vectors. 0 means DefaultCrossover(Dims).
	Crossover int
}

// DefaultCrossover is the size at which Auto switches from exact scan to HNSW for vectors of dims dimensions.
// Measured with `proofglass-lab bench vector --sweep` (exact vs HNSW at ef 64, one thread, synthetic low-rank data): at 768
// dims HNSW overtakes exact between 2k and 5k vectors (5k: 5.8k vs 4.9k QPS); at 100 dims between 5k and 10k
// (10k: 13k vs 8.7k QPS), because a short vector makes each exact comparison cheap next to a graph step.
func DefaultCrossover(dims int) int {
	if dims >= 384 {
		return 5000
	}
	return 10000
}

func (c Config) withDefaults() (Config, error) {
	if c.Dims <= 0 {
		return c, fmt.Errorf("vector: config dims %d: %w", c.Dims, ErrDims)
	}
	if c.Metric == 0 {
		c.Metric = Cosine
	}
	if !c.Metric.valid() {
		return c, fmt.Errorf("vector: config: bad metric %d", c.Metric)
	}
	if c.M <= 1 {
		c.M = 16
	}
	if c.EfConstruction <= 0 {
		c.EfConstruction = 128
	}
	if c.EfSearch <= 0 {
		c.EfSearch = 64
	}
	if c.Seed == 0 {
		c.Seed = 0x5eed
	}
	if c.RebuildFraction == 0 {
		c.RebuildFraction = 0.25
	}
	if c.FilterExactBelow <= 0 {
		c.FilterExactBelow = 4096
	}
	if c.Storage == 0 {
		c.Storage = F32
	}
	if c.Crossover <= 0 {
		c.Crossover = DefaultCrossover(c.Dims)
	}
	return c, nil
}

// checkDims also rejects NaN and ±Inf: one such vector would make every comparison with it false and quietly
// corrupt the graph around it.
func checkDims(want int, v []float32) error {
	if len(v) != want {
		return fmt.Errorf("vector has %d dims, index has %d: %w", len(v), want, ErrDims)
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("vector component %d is %v: %w", i, x, ErrNotFinite)
		}
	}
	return nil
}
