package vector

import (
	"bufio"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
)

// HNSW is an approximate index: a hierarchical navigable small-world graph with tombstone deletes, filtered search
// that falls back to exact scan when a filter is selective, and a background rebuild once tombstones pile up.
type HNSW struct {
	cfg Config

	// swapMu is held shared by every operation and exclusively only to swap in a rebuilt or loaded graph.
	swapMu sync.RWMutex
	g      *graph

	gen        atomic.Uint64
	efSearch   atomic.Int64
	rebuilding atomic.Bool
	bg         sync.WaitGroup
}

// NewHNSW returns an empty HNSW index.
func NewHNSW(c Config) (*HNSW, error) {
	c, err := c.withDefaults()
	if err != nil {
		return nil, err
	}
	h := &HNSW{cfg: c, g: newGraph(c)}
	h.efSearch.Store(int64(c.EfSearch))
	return h, nil
}

// SetEfSearch changes the search beam width (recall against speed) for later searches.
func (h *HNSW) SetEfSearch(ef int) {
	if ef > 0 {
		h.efSearch.Store(int64(ef))
	}
}

func (h *HNSW) Dims() int              { return h.cfg.Dims }
func (h *HNSW) Metric() Metric         { return h.cfg.Metric }
func (h *HNSW) Generation() uint64     { return h.gen.Load() }
func (h *HNSW) SetGeneration(g uint64) { h.gen.Store(g) }

func (h *HNSW) Len() int {
	h.swapMu.RLock()
	defer h.swapMu.RUnlock()
	live, _ := h.g.stats()
	return live
}

// Tombstones reports how many deleted or replaced slots the graph still carries.
func (h *HNSW) Tombstones() int {
	h.swapMu.RLock()
	defer h.swapMu.RUnlock()
	_, dead := h.g.stats()
	return dead
}

func (h *HNSW) Add(id int64, vec []float32) error {
	if err := checkDims(h.cfg.Dims, vec); err != nil {
		return fmt.Errorf("vector: add %d: %w", id, err)
	}
	v := prepare(h.cfg.Metric, vec)
	h.swapMu.RLock()
	h.g.add(id, v)
	h.swapMu.RUnlock()
	h.maybeRebuild()
	return nil
}

func (h *HNSW) AddBatch(ids []int64, vecs [][]float32) error {
	if len(ids) != len(vecs) {
		return fmt.Errorf("vector: add batch: %d ids for %d vectors", len(ids), len(vecs))
	}
	prep := make([][]float32, len(vecs))
	for i, v := range vecs {
		if err := checkDims(h.cfg.Dims, v); err != nil {
			return fmt.Errorf("vector: add %d: %w", ids[i], err)
		}
		prep[i] = prepare(h.cfg.Metric, v)
	}
	h.swapMu.RLock()
	h.g.addBatch(ids, prep)
	h.swapMu.RUnlock()
	h.maybeRebuild()
	return nil
}

func (h *HNSW) Delete(id int64) bool {
	h.swapMu.RLock()
	ok := h.g.delete(id)
	h.swapMu.RUnlock()
	if ok {
		h.maybeRebuild()
	}
	return ok
}

func (h *HNSW) Search(q []float32, k int, f *Filter) ([]Result, error) {
	if err := checkDims(h.cfg.Dims, q); err != nil {
		return nil, fmt.Errorf("vector: search: %w", err)
	}
	if k <= 0 {
		return nil, nil
	}
	qv := prepare(h.cfg.Metric, q)
	ef := max(int(h.efSearch.Load()), k)
	h.swapMu.RLock()
	defer h.swapMu.RUnlock()
	g := h.g
	g.mu.RLock()
	defer g.mu.RUnlock()
	var res []cand
	if f == nil || (f.IDs == nil && f.Allow == nil) {
		res = g.search(qv, k, ef, func(s uint32) bool { return !g.nodes[s].deleted.Load() })
	} else {
		res = h.filtered(g, qv, k, ef, f)
	}
	out := make([]Result, len(res))
	for i, c := range res {
		out[i] = Result{ID: g.nodes[c.slot].id, Dist: c.dist}
	}
	return out, nil
}

// filtered estimates how many live ids pass f. Few → exact scan over them (a graph walk would have to visit most of
// the graph to find k of them). Many → graph search with ef widened by 1/selectivity, since only that share of the
// nodes the beam holds can be results.
func (h *HNSW) filtered(g *graph, q []float32, k, ef int, f *Filter) []cand {
	live, _ := g.stats()
	if live == 0 {
		return nil
	}
	var accept func(uint32) bool
	var sel float64
	if f.IDs != nil {
		if len(f.IDs) < g.exactFrom {
			return g.scanIDs(q, k, f.IDs, f.Allow)
		}
		set := make(map[int64]struct{}, len(f.IDs))
		for _, id := range f.IDs {
			set[id] = struct{}{}
		}
		allow := f.Allow
		accept = func(s uint32) bool {
			n := g.nodes[s]
			if n.deleted.Load() {
				return false
			}
			if _, ok := set[n.id]; !ok {
				return false
			}
			return allow == nil || allow(n.id)
		}
		sel = float64(len(set)) / float64(live)
	} else {
		allow := f.Allow
		accept = func(s uint32) bool {
			n := g.nodes[s]
			return !n.deleted.Load() && allow(n.id)
		}
		sel = g.sampleSelectivity(accept)
	}
	if sel*float64(live) < float64(g.exactFrom) {
		return g.scan(q, k, accept)
	}
	wide := int(math.Min(float64(ef)/math.Max(sel, 1e-3), float64(live)))
	return g.search(q, k, max(ef, min(wide, 16*ef)), accept)
}

// sampleSelectivity tests the filter on up to 512 evenly spaced live slots.
func (g *graph) sampleSelectivity(accept func(uint32) bool) float64 {
	g.allocMu.Lock()
	n := g.count
	g.allocMu.Unlock()
	step := max(1, n/512)
	seen, pass := 0, 0
	for s := 0; s < n; s += step {
		if g.nodes[s].deleted.Load() {
			continue
		}
		seen++
		if accept(uint32(s)) {
			pass++
		}
	}
	if seen == 0 {
		return 0
	}
	return float64(pass) / float64(seen)
}

func (h *HNSW) maybeRebuild() {
	if h.cfg.RebuildFraction < 0 || h.rebuilding.Load() {
		return
	}
	h.swapMu.RLock()
	live, dead := h.g.stats()
	h.swapMu.RUnlock()
	if dead < 1000 || float64(dead) < h.cfg.RebuildFraction*float64(live+dead) {
		return
	}
	if !h.rebuilding.CompareAndSwap(false, true) {
		return
	}
	h.bg.Add(1)
	go func() {
		defer h.bg.Done()
		defer h.rebuilding.Store(false)
		h.Rebuild()
		slog.Debug("vector: rebuilt HNSW without tombstones", "tombstones", dead, "live", live)
	}()
}

// Wait blocks until a background rebuild, if any, has finished.
func (h *HNSW) Wait() { h.bg.Wait() }

// Rebuild builds a fresh graph from the live vectors, without tombstones, while searches and writes continue on the
// old one; writes made meanwhile are replayed onto the new graph before it is swapped in.
func (h *HNSW) Rebuild() {
	h.swapMu.RLock()
	old := h.g
	old.mu.RLock()
	old.allocMu.Lock()
	ids := make([]int64, 0, len(old.ids))
	vecs := make([][]float32, 0, len(old.ids))
	seqs := make(map[int64]uint64, len(old.ids))
	for id, s := range old.ids {
		ids = append(ids, id)
		vecs = append(vecs, old.vec(s)) // vectors of filled slots never change
		seqs[id] = old.nodes[s].seq
	}
	old.allocMu.Unlock()
	old.mu.RUnlock()
	h.swapMu.RUnlock()

	ng := newGraph(h.cfg)
	ng.addBatch(ids, vecs)

	h.swapMu.Lock()
	defer h.swapMu.Unlock()
	for id, s := range old.ids { // added or replaced during the build
		if seq, ok := seqs[id]; !ok || seq != old.nodes[s].seq {
			ng.add(id, old.vec(s))
		}
	}
	for id := range seqs { // deleted during the build
		if _, ok := old.ids[id]; !ok {
			ng.delete(id)
		}
	}
	h.g = ng
}

// Save writes the graph and its vectors; Load reads them back without rebuilding anything.
//
// Payload: M, efC, maxLevel, entry+1 (u32 each), count u64; count×dims float32; then per slot: id u64, level u32,
// deleted u32, and per level a link count u32 followed by the links u32.
func (h *HNSW) Save(path string) error {
	h.swapMu.RLock()
	g := h.g
	// Link lists are immutable once published, so a consistent snapshot is just the current pointers.
	g.mu.Lock()
	n := g.count
	nodes := make([]*node, n)
	copy(nodes, g.nodes[:n])
	lists := make([][][]uint32, n)
	dead := make([]bool, n)
	for i, nd := range nodes {
		lists[i] = make([][]uint32, len(nd.links))
		for l := range nd.links {
			lists[i][l] = g.adj(uint32(i), l, nil)
		}
		dead[i] = nd.deleted.Load()
	}
	vecs := g.vecs
	entry, maxLevel := g.entry, g.maxLevel
	g.mu.Unlock()
	h.swapMu.RUnlock()

	hd := header{kind: kindHNSW, metric: h.cfg.Metric, storage: F32, dims: h.cfg.Dims, count: uint64(n), generation: h.gen.Load()}
	return writeFile(path, hd, func(w *bufio.Writer) error {
		for _, v := range []uint32{uint32(g.m), uint32(g.efC), uint32(maxLevel), uint32(entry + 1)} {
			if err := writeU32(w, v); err != nil {
				return err
			}
		}
		if err := writeU64(w, uint64(n)); err != nil {
			return err
		}
		for c := 0; c*chunkVecs < n; c++ {
			m := min(chunkVecs, n-c*chunkVecs)
			if err := writeF32s(w, vecs[c][:m*g.dims]); err != nil {
				return err
			}
		}
		for i, nd := range nodes {
			writeU64(w, uint64(nd.id))
			writeU32(w, uint32(nd.level))
			var d uint32
			if dead[i] {
				d = 1
			}
			writeU32(w, d)
			for _, ls := range lists[i] {
				writeU32(w, uint32(len(ls)))
				for _, x := range ls {
					if err := writeU32(w, x); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}

func (h *HNSW) Load(path string) error {
	hd, buf, err := readFile(path)
	if err != nil {
		return err
	}
	return h.loadPayload(path, hd, buf)
}

// loadPayload replaces the graph with a verified header's payload; full chunks of vectors alias buf.
func (h *HNSW) loadPayload(path string, hd header, buf []byte) error {
	if err := checkHeader(path, hd, kindHNSW, h.cfg.Metric, h.cfg.Dims); err != nil {
		return err
	}
	g, err := decodeGraph(h.cfg, hd, buf)
	if err != nil {
		return fmt.Errorf("vector: load %s: %w", path, err)
	}
	h.swapMu.Lock()
	h.g = g
	h.swapMu.Unlock()
	h.gen.Store(hd.generation)
	return nil
}

func decodeGraph(c Config, hd header, buf []byte) (*graph, error) {
	cur := &cursor{b: buf}
	m, efC, maxLevel, entry1 := cur.u32(), cur.u32(), cur.u32(), cur.u32()
	n := cur.u64()
	if cur.err != nil {
		return nil, cur.err
	}
	if n != hd.count || m < 2 || m > 1024 || maxLevel > 30 || uint64(entry1) > n {
		return nil, fmt.Errorf("graph parameters out of range: %w", ErrCorrupt)
	}
	if n > uint64(len(buf))/uint64(4*c.Dims+16) {
		return nil, fmt.Errorf("count %d does not fit in %d bytes: %w", n, len(buf), ErrCorrupt)
	}
	c.M, c.EfConstruction = int(m), int(efC)
	g := newGraph(c)
	cnt := int(n)
	flat := cur.f32s(cnt * c.Dims)
	if cur.err != nil {
		return nil, cur.err
	}
	capSlots := (cnt + chunkVecs - 1) / chunkVecs * chunkVecs
	g.nodes = make([]*node, capSlots)
	for len(g.l0)*chunkVecs < capSlots {
		g.l0 = append(g.l0, make([]atomic.Uint32, chunkVecs*(1+g.m0)))
	}
	for s := 0; s < cnt; s += chunkVecs {
		e := min(s+chunkVecs, cnt)
		chunk := flat[s*c.Dims : e*c.Dims : e*c.Dims]
		if e-s < chunkVecs { // the tail chunk must have room for later adds
			full := make([]float32, chunkVecs*c.Dims)
			copy(full, chunk)
			chunk = full
		}
		g.vecs = append(g.vecs, chunk)
	}
	for i := 0; i < cnt; i++ {
		id := int64(cur.u64())
		lvl := cur.u32()
		dead := cur.u32()
		if cur.err != nil {
			return nil, cur.err
		}
		if lvl > maxLevel || dead > 1 {
			return nil, fmt.Errorf("slot %d: level %d / flag %d out of range: %w", i, lvl, dead, ErrCorrupt)
		}
		nd := &node{id: id, seq: uint64(i + 1), level: int32(lvl), links: make([]atomic.Pointer[[]uint32], lvl+1)}
		for l := range nd.links {
			k := cur.u32()
			mmax := g.m
			if l == 0 {
				mmax = g.m0
			}
			if cur.err != nil || int(k) > mmax {
				return nil, fmt.Errorf("slot %d level %d: %d links: %w", i, l, k, ErrCorrupt)
			}
			raw := cur.take(4 * int(k))
			if cur.err != nil {
				return nil, cur.err
			}
			ls := make([]uint32, k)
			for j := range ls {
				ls[j] = uint32(raw[4*j]) | uint32(raw[4*j+1])<<8 | uint32(raw[4*j+2])<<16 | uint32(raw[4*j+3])<<24
				if uint64(ls[j]) >= n {
					return nil, fmt.Errorf("slot %d links to %d of %d: %w", i, ls[j], n, ErrCorrupt)
				}
			}
			g.storeAdj(uint32(i), nd, l, ls)
		}
		if dead == 1 {
			nd.deleted.Store(true)
			g.dead++
		} else {
			if _, dup := g.ids[id]; dup {
				return nil, fmt.Errorf("id %d live twice: %w", id, ErrCorrupt)
			}
			g.ids[id] = uint32(i)
		}
		g.nodes[i] = nd
	}
	if cur.off != len(buf) {
		return nil, fmt.Errorf("%d trailing bytes: %w", len(buf)-cur.off, ErrCorrupt)
	}
	// A link may only point at a node that exists on that level, or a walk would index past its lists.
	for i := 0; i < cnt; i++ {
		for l := range g.nodes[i].links {
			for _, x := range g.adj(uint32(i), l, nil) {
				if int(g.nodes[x].level) < l {
					return nil, fmt.Errorf("slot %d links on level %d to slot %d of level %d: %w", i, l, x, g.nodes[x].level, ErrCorrupt)
				}
			}
		}
	}
	g.count, g.seq = cnt, uint64(cnt)
	g.entry, g.maxLevel = int64(entry1)-1, int(maxLevel)
	if g.entry >= 0 && int(g.nodes[g.entry].level) != g.maxLevel {
		return nil, fmt.Errorf("entry level mismatch: %w", ErrCorrupt)
	}
	if g.entry < 0 && cnt > 0 {
		return nil, fmt.Errorf("no entry point for %d nodes: %w", cnt, ErrCorrupt)
	}
	// Level generation continues past the loaded slots rather than repeating their draws.
	for i := 0; i < cnt; i++ {
		g.rng.Float64()
	}
	return g, nil
}
