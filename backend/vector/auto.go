package vector

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

// Auto is the index the knowledge base uses: exact scan while the collection is small, HNSW once it reaches
// Config.Crossover vectors. Below the crossover exact scan is as fast as the graph walk and needs no build.
type Auto struct {
	cfg Config
	gen atomic.Uint64

	mu  sync.RWMutex
	cur Index
}

// NewAuto returns an empty Auto index.
func NewAuto(c Config) (*Auto, error) {
	c, err := c.withDefaults()
	if err != nil {
		return nil, err
	}
	e, err := NewExact(c)
	if err != nil {
		return nil, err
	}
	return &Auto{cfg: c, cur: e}, nil
}

// Kind reports which implementation currently answers: "exact" or "hnsw".
func (a *Auto) Kind() string {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if _, ok := a.cur.(*HNSW); ok {
		return "hnsw"
	}
	return "exact"
}

func (a *Auto) Dims() int              { return a.cfg.Dims }
func (a *Auto) Metric() Metric         { return a.cfg.Metric }
func (a *Auto) Generation() uint64     { return a.gen.Load() }
func (a *Auto) SetGeneration(g uint64) { a.gen.Store(g) }

func (a *Auto) index() Index {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.cur
}

// Every operation holds mu shared while it runs, so a promotion (which holds it exclusively) never misses a write
// made to the exact index it is copying.

func (a *Auto) Len() int {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.cur.Len()
}

func (a *Auto) Delete(id int64) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.cur.Delete(id)
}

func (a *Auto) Search(q []float32, k int, f *Filter) ([]Result, error) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.cur.Search(q, k, f)
}

// Vector returns a copy of the stored vector of id (as stored: normalised under cosine, dequantised), while the
// index is an exact one; a graph does not answer (false).
func (a *Auto) Vector(id int64) ([]float32, bool) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if e, ok := a.cur.(*Exact); ok {
		return e.Vector(id)
	}
	return nil, false
}

func (a *Auto) Add(id int64, vec []float32) error {
	a.mu.RLock()
	err := a.cur.Add(id, vec)
	a.mu.RUnlock()
	if err != nil {
		return err
	}
	return a.promote()
}

func (a *Auto) AddBatch(ids []int64, vecs [][]float32) error {
	a.mu.RLock()
	_, exact := a.cur.(*Exact)
	n := a.cur.Len()
	a.mu.RUnlock()
	if exact && n == 0 && len(ids) >= a.cfg.Crossover {
		// Straight to the graph: building it in bulk uses every core.
		h, err := NewHNSW(a.cfg)
		if err != nil {
			return err
		}
		if err := h.AddBatch(ids, vecs); err != nil {
			return err
		}
		a.mu.Lock()
		if e, ok := a.cur.(*Exact); ok && e.Len() == 0 {
			a.cur = h
			a.mu.Unlock()
			return nil
		}
		a.mu.Unlock()
	}
	a.mu.RLock()
	err := a.cur.AddBatch(ids, vecs)
	a.mu.RUnlock()
	if err != nil {
		return err
	}
	return a.promote()
}

// promote moves the vectors into an HNSW graph once the exact index reaches the crossover. Writers and readers wait
// for the build, which at the crossover size takes about a second.
func (a *Auto) promote() error {
	a.mu.RLock()
	e, ok := a.cur.(*Exact)
	a.mu.RUnlock()
	if !ok || e.Len() < a.cfg.Crossover {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cur != e {
		return nil
	}
	h, err := NewHNSW(a.cfg)
	if err != nil {
		return err
	}
	ids, vecs := e.vectors()
	if err := h.AddBatch(ids, vecs); err != nil {
		return fmt.Errorf("vector: promote to hnsw: %w", err)
	}
	a.cur = h
	return nil
}

func (a *Auto) Save(path string) error {
	ix := a.index()
	ix.SetGeneration(a.gen.Load())
	return ix.Save(path)
}

// Load reads a file written by either implementation.
func (a *Auto) Load(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("vector: load %s: %w", path, err)
	}
	hb := make([]byte, headerSize)
	_, rerr := f.ReadAt(hb, 0)
	f.Close()
	if rerr != nil {
		return fmt.Errorf("vector: load %s: header: %w (%v)", path, ErrCorrupt, rerr)
	}
	h, err := decodeHeader(hb)
	if err != nil {
		return fmt.Errorf("vector: load %s: %w", path, err)
	}
	ix, err := a.newOfKind(path, h)
	if err != nil {
		return err
	}
	if err := ix.Load(path); err != nil {
		return err
	}
	a.mu.Lock()
	a.cur = ix
	a.mu.Unlock()
	a.gen.Store(ix.Generation())
	return nil
}

// newOfKind returns an empty index of the kind a file's header names.
func (a *Auto) newOfKind(path string, h header) (Index, error) {
	switch h.kind {
	case kindExact:
		c := a.cfg
		c.Storage = h.storage
		return NewExact(c)
	case kindHNSW:
		return NewHNSW(a.cfg)
	}
	return nil, fmt.Errorf("vector: load %s: kind %d: %w", path, h.kind, ErrKind)
}

// decode builds the index a verified header and its payload describe.
func (a *Auto) decode(path string, h header, buf []byte) (Index, error) {
	ix, err := a.newOfKind(path, h)
	if err != nil {
		return nil, err
	}
	switch x := ix.(type) {
	case *Exact:
		err = x.loadPayload(path, h, buf, true)
	case *HNSW:
		err = x.loadPayload(path, h, buf)
	}
	if err != nil {
		return nil, err
	}
	return ix, nil
}

// Open loads the index file at path if it matches c and generation gen, or returns an error saying why it must be
// rebuilt from SQLite (ErrStale, ErrCorrupt, ErrDims, ErrKind or a file-system error such as a missing file).
func Open(path string, c Config, gen uint64) (*Auto, error) {
	a, err := NewAuto(c)
	if err != nil {
		return nil, err
	}
	if err := a.Load(path); err != nil {
		return nil, err
	}
	if a.Generation() != gen {
		return nil, fmt.Errorf("vector: load %s: generation %d, database is at %d: %w", path, a.Generation(), gen, ErrStale)
	}
	return a, nil
}
