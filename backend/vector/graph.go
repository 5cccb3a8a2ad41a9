package vector

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
)

// chunkVecs vectors share one allocation; chunks are never moved, so a vector's memory stays valid while the index
// grows and readers need no lock to hold on to it.
const chunkVecs = 1024

// prefetchAhead is how many neighbours' vectors are requested ahead of the comparison, so their memory latencies
// overlap instead of adding up.
var prefetchAhead = 2

// node is one graph slot. id, seq and level never change after the slot is filled; links[l] (levels ≥ 1) is
// replaced, never edited in place, so a reader that loaded a list may use it while writers publish a new one.
// Layer 0, where nearly all of a search's steps happen, lives in graph.l0 instead.
type node struct {
	id      int64
	seq     uint64
	level   int32
	deleted atomic.Bool
	mu      sync.Mutex // serialises writers of links
	links   []atomic.Pointer[[]uint32]
}

// graph is the HNSW structure (Malkov & Yashunin 2016). Locking: mu is held shared by every operation and
// exclusively only to grow the slot arrays; allocMu guards slot allocation and the id map; epMu the entry point;
// each node's mu its link lists.
type graph struct {
	dims      int
	metric    Metric
	dist      func(a, b []float32) float32
	m, m0     int
	efC       int
	ml        float64
	exactFrom int

	mu    sync.RWMutex
	nodes []*node // len = capacity; slots ≥ count are nil
	vecs  [][]float32
	// l0 holds every slot's layer-0 links in fixed rows of 1+m0 words (count, then ids), in chunks that never move:
	// one lookup instead of a chain of pointers per step. Writers (under the node's mu) store ids before the count;
	// a reader racing a rewrite may see a mix of old and new ids, each a valid slot, which a walk tolerates.
	l0 [][]atomic.Uint32

	allocMu sync.Mutex
	count   int
	ids     map[int64]uint32
	dead    int
	seq     uint64
	rng     *rand.Rand

	epMu     sync.RWMutex
	entry    int64 // -1 when empty
	maxLevel int

	visited sync.Pool
}

func newGraph(c Config) *graph {
	return &graph{
		dims:      c.Dims,
		metric:    c.Metric,
		dist:      distFunc(c.Metric),
		m:         c.M,
		m0:        2 * c.M,
		efC:       c.EfConstruction,
		ml:        1 / math.Log(float64(c.M)),
		exactFrom: c.FilterExactBelow,
		ids:       map[int64]uint32{},
		rng:       rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15)),
		entry:     -1,
	}
}

func (g *graph) vec(slot uint32) []float32 {
	c := g.vecs[slot/chunkVecs]
	o := int(slot%chunkVecs) * g.dims
	return c[o : o+g.dims : o+g.dims]
}

// grow makes room for at least need slots.
func (g *graph) grow(need int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if need <= len(g.nodes) {
		return
	}
	n := max(need, 2*len(g.nodes), chunkVecs)
	n = (n + chunkVecs - 1) / chunkVecs * chunkVecs
	nodes := make([]*node, n)
	copy(nodes, g.nodes)
	g.nodes = nodes
	for len(g.vecs)*chunkVecs < n {
		g.vecs = append(g.vecs, make([]float32, chunkVecs*g.dims))
	}
	for len(g.l0)*chunkVecs < n {
		g.l0 = append(g.l0, make([]atomic.Uint32, chunkVecs*(1+g.m0)))
	}
}

func (g *graph) randomLevel() int {
	u := 1 - g.rng.Float64() // (0,1]
	l := int(-math.Log(u) * g.ml)
	return min(l, 30)
}

// alloc fills a new slot with id and the prepared vector v, tombstoning any live slot with the same id. The caller
// holds mu shared. ok is false when the arrays are full: the caller must release mu, grow, and retry.
func (g *graph) alloc(id int64, v []float32) (slot uint32, ok bool) {
	g.allocMu.Lock()
	defer g.allocMu.Unlock()
	if g.count >= len(g.nodes) {
		return 0, false
	}
	if old, dup := g.ids[id]; dup {
		g.nodes[old].deleted.Store(true)
		g.dead++
	}
	slot = uint32(g.count)
	lvl := g.randomLevel()
	g.seq++
	n := &node{id: id, seq: g.seq, level: int32(lvl), links: make([]atomic.Pointer[[]uint32], lvl+1)}
	copy(g.vec(slot), v)
	g.nodes[slot] = n
	g.ids[id] = slot
	g.count++
	return slot, true
}

// add inserts a prepared vector (normalised already for cosine).
func (g *graph) add(id int64, v []float32) {
	for {
		g.mu.RLock()
		slot, ok := g.alloc(id, v)
		if ok {
			g.link(slot)
			g.mu.RUnlock()
			return
		}
		g.mu.RUnlock()
		g.allocMu.Lock()
		need := g.count + 1
		g.allocMu.Unlock()
		g.grow(need)
	}
}

// addBatch inserts prepared vectors with one worker per core.
func (g *graph) addBatch(ids []int64, vecs [][]float32) {
	if len(ids) == 0 {
		return
	}
	g.allocMu.Lock()
	need := g.count + len(ids)
	g.allocMu.Unlock()
	g.grow(need)
	// Slots are allocated in order on one goroutine so levels are reproducible; linking runs on all cores.
	slots := make([]uint32, len(ids))
	for i := range ids {
		for {
			g.mu.RLock()
			s, ok := g.alloc(ids[i], vecs[i])
			g.mu.RUnlock()
			if ok {
				slots[i] = s
				break
			}
			g.allocMu.Lock()
			need := g.count + len(ids) - i
			g.allocMu.Unlock()
			g.grow(need)
		}
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	start := 0
	if g.entryPoint() < 0 {
		g.link(slots[0])
		start = 1
	}
	var next atomic.Int64
	next.Store(int64(start))
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(len(slots)) {
					return
				}
				g.link(slots[i])
			}
		}()
	}
	wg.Wait()
}

func (g *graph) entryPoint() int64 {
	g.epMu.RLock()
	defer g.epMu.RUnlock()
	return g.entry
}

// delete tombstones id; the slot stays in the graph as a waypoint until a rebuild drops it.
func (g *graph) delete(id int64) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	g.allocMu.Lock()
	defer g.allocMu.Unlock()
	slot, ok := g.ids[id]
	if !ok {
		return false
	}
	delete(g.ids, id)
	g.nodes[slot].deleted.Store(true)
	g.dead++
	return true
}

func (g *graph) stats() (live, dead int) {
	g.allocMu.Lock()
	defer g.allocMu.Unlock()
	return len(g.ids), g.dead
}

// adj returns slot's links on level. Layer-0 lists are copied into buf; upper lists are returned as published.
func (g *graph) adj(slot uint32, level int, buf []uint32) []uint32 {
	if level > 0 {
		return g.neighbours(g.nodes[slot], level)
	}
	row := g.l0row(slot)
	c := min(int(row[0].Load()), g.m0)
	buf = buf[:0]
	for i := 1; i <= c; i++ {
		buf = append(buf, row[i].Load())
	}
	return buf
}

func (g *graph) l0row(slot uint32) []atomic.Uint32 {
	w := 1 + g.m0
	c := g.l0[slot/chunkVecs]
	o := int(slot%chunkVecs) * w
	return c[o : o+w : o+w]
}

// storeAdj publishes slot's links on level; the caller holds the node's mu.
func (g *graph) storeAdj(slot uint32, n *node, level int, ids []uint32) {
	if level > 0 {
		n.links[level].Store(&ids)
		return
	}
	row := g.l0row(slot)
	for i, x := range ids {
		row[1+i].Store(x)
	}
	row[0].Store(uint32(len(ids)))
}

func (g *graph) neighbours(n *node, level int) []uint32 {
	if level >= len(n.links) {
		return nil
	}
	if p := n.links[level].Load(); p != nil {
		return *p
	}
	return nil
}

type visitedSet struct {
	marks []uint32
	epoch uint32
}

func (g *graph) getVisited() *visitedSet {
	vs, _ := g.visited.Get().(*visitedSet)
	if vs == nil {
		vs = &visitedSet{}
	}
	if len(vs.marks) < len(g.nodes) {
		vs.marks = make([]uint32, len(g.nodes))
		vs.epoch = 0
	}
	vs.epoch++
	if vs.epoch == 0 { // wrapped: old marks could collide
		clear(vs.marks)
		vs.epoch = 1
	}
	return vs
}

// link connects a filled slot into the graph (Alg. 1). The caller holds mu shared.
func (g *graph) link(slot uint32) {
	n := g.nodes[slot]
	q := g.vec(slot)
	level := int(n.level)

	g.epMu.Lock()
	if g.entry < 0 {
		g.entry, g.maxLevel = int64(slot), level
		g.epMu.Unlock()
		return
	}
	ep, top := uint32(g.entry), g.maxLevel
	g.epMu.Unlock()

	cur := cand{dist: g.dist(q, g.vec(ep)), slot: ep}
	for l := top; l > level; l-- {
		cur = g.greedy(q, cur, l)
	}
	vs := g.getVisited()
	defer g.visited.Put(vs)
	eps := []cand{cur}
	for l := min(level, top); l >= 0; l-- {
		w := g.searchLayer(q, eps, g.efC, l, vs, nil)
		mmax := g.m
		if l == 0 {
			mmax = g.m0
		}
		sel := g.selectHeuristic(w, g.m)
		ids := make([]uint32, len(sel))
		for i, c := range sel {
			ids[i] = c.slot
		}
		g.setLinks(slot, n, l, ids, mmax)
		for _, c := range sel {
			g.addLink(c.slot, slot, c.dist, l, mmax)
		}
		eps = w
		vs.epoch++
		if vs.epoch == 0 {
			clear(vs.marks)
			vs.epoch = 1
		}
	}
	if level > top {
		g.epMu.Lock()
		if level > g.maxLevel {
			g.entry, g.maxLevel = int64(slot), level
		}
		g.epMu.Unlock()
	}
}

// setLinks publishes a new node's own list at level, merging links other inserters made to it meanwhile.
func (g *graph) setLinks(slot uint32, n *node, level int, ids []uint32, mmax int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if cur := g.adj(slot, level, nil); len(cur) > 0 {
		ids = g.shrink(slot, append(append([]uint32(nil), cur...), ids...), mmax)
	}
	g.storeAdj(slot, n, level, ids)
}

// addLink adds a back-link to slot `to` from `from`, pruning with the heuristic when the list overflows.
func (g *graph) addLink(from, to uint32, d float32, level, mmax int) {
	n := g.nodes[from]
	n.mu.Lock()
	defer n.mu.Unlock()
	var buf [64]uint32
	cur := g.adj(from, level, buf[:0])
	for _, x := range cur {
		if x == to {
			return
		}
	}
	next := make([]uint32, len(cur), len(cur)+1)
	copy(next, cur)
	next = append(next, to)
	if len(next) > mmax {
		next = g.shrink(from, next, mmax)
	}
	g.storeAdj(from, n, level, next)
}

// shrink keeps at most mmax of slot's candidate links, chosen by the heuristic.
func (g *graph) shrink(slot uint32, ids []uint32, mmax int) []uint32 {
	base := g.vec(slot)
	cs := make([]cand, 0, len(ids))
	seen := map[uint32]bool{}
	for _, x := range ids {
		if x == slot || seen[x] {
			continue
		}
		seen[x] = true
		cs = append(cs, cand{dist: g.dist(base, g.vec(x)), slot: x})
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].dist < cs[j].dist })
	sel := g.selectHeuristic(cs, mmax)
	out := make([]uint32, len(sel))
	for i, c := range sel {
		out[i] = c.slot
	}
	return out
}

// selectHeuristic is Alg. 4 without candidate extension: walk candidates nearest first and keep one only if it is
// nearer to the base than to every neighbour kept so far, which spreads links across directions.
// cs must be sorted nearest first.
func (g *graph) selectHeuristic(cs []cand, m int) []cand {
	if len(cs) <= m {
		return cs
	}
	out := make([]cand, 0, m)
	for _, c := range cs {
		good := true
		cv := g.vec(c.slot)
		for _, r := range out {
			if g.dist(cv, g.vec(r.slot)) < c.dist {
				good = false
				break
			}
		}
		if good {
			out = append(out, c)
			if len(out) >= m {
				break
			}
		}
	}
	return out
}

// greedy walks one layer towards q (search with ef = 1).
func (g *graph) greedy(q []float32, cur cand, level int) cand {
	var buf [64]uint32
	for changed := true; changed; {
		changed = false
		for _, x := range g.adj(cur.slot, level, buf[:0]) {
			if d := g.dist(q, g.vec(x)); d < cur.dist {
				cur, changed = cand{dist: d, slot: x}, true
			}
		}
	}
	return cur
}

// searchLayer is Alg. 2. accept, when non-nil, decides which slots may be results; rejected slots are still walked
// through, so tombstones and filtered-out nodes keep the graph connected. Returns results nearest first.
func (g *graph) searchLayer(q []float32, eps []cand, ef, level int, vs *visitedSet, accept func(uint32) bool) []cand {
	var cands minHeap
	var res maxHeap
	bound := float32(math.Inf(1))
	for _, e := range eps {
		if vs.marks[e.slot] == vs.epoch {
			continue
		}
		vs.marks[e.slot] = vs.epoch
		cands.push(e)
		if accept == nil || accept(e.slot) {
			res.push(e)
			if len(res) > ef {
				res.pop()
			}
		}
	}
	if len(res) > 0 && len(res) >= ef {
		bound = res[0].dist
	}
	var fresh, buf [64]uint32
	for len(cands) > 0 {
		c := cands.pop()
		if c.dist > bound {
			break
		}
		// Collect the unvisited neighbours first so the next one's vector can be prefetched while the current one
		// is compared: at 100k × 768 a vector is 3 KB far from cache, and the wait for it dominates the walk.
		todo := fresh[:0]
		for _, x := range g.adj(c.slot, level, buf[:0]) {
			if vs.marks[x] != vs.epoch {
				vs.marks[x] = vs.epoch
				todo = append(todo, x)
			}
		}
		for i := 0; i < len(todo) && i < prefetchAhead; i++ {
			prefetch(g.vec(todo[i]))
		}
		for i, x := range todo {
			if i+prefetchAhead < len(todo) {
				prefetch(g.vec(todo[i+prefetchAhead]))
			}
			d := g.dist(q, g.vec(x))
			if d >= bound {
				continue
			}
			cands.push(cand{dist: d, slot: x})
			if accept == nil || accept(x) {
				res.push(cand{dist: d, slot: x})
				if len(res) > ef {
					res.pop()
				}
				if len(res) >= ef {
					bound = res[0].dist
				}
			}
		}
	}
	return res.sorted()
}

// search answers a query (already prepared) over the whole graph, keeping only slots accept allows.
func (g *graph) search(q []float32, k, ef int, accept func(uint32) bool) []cand {
	g.epMu.RLock()
	ep, top := g.entry, g.maxLevel
	g.epMu.RUnlock()
	if ep < 0 {
		return nil
	}
	cur := cand{dist: g.dist(q, g.vec(uint32(ep))), slot: uint32(ep)}
	for l := top; l > 0; l-- {
		cur = g.greedy(q, cur, l)
	}
	vs := g.getVisited()
	defer g.visited.Put(vs)
	res := g.searchLayer(q, []cand{cur}, max(ef, k), 0, vs, accept)
	if len(res) > k {
		res = res[:k]
	}
	return res
}

// scan is the exact answer over the filled slots that accept allows.
func (g *graph) scan(q []float32, k int, accept func(uint32) bool) []cand {
	g.allocMu.Lock()
	n := g.count
	g.allocMu.Unlock()
	t := topK{k: k}
	for s := uint32(0); s < uint32(n); s++ {
		if accept(s) {
			t.offer(cand{dist: g.dist(q, g.vec(s)), slot: s})
		}
	}
	return t.h.sorted()
}

// scanIDs is the exact answer over the given ids.
func (g *graph) scanIDs(q []float32, k int, ids []int64, allow func(int64) bool) []cand {
	slots := make([]uint32, 0, len(ids))
	g.allocMu.Lock()
	for _, id := range ids {
		if s, ok := g.ids[id]; ok {
			slots = append(slots, s)
		}
	}
	g.allocMu.Unlock()
	sort.Slice(slots, func(i, j int) bool { return slots[i] < slots[j] })
	t := topK{k: k}
	for i, s := range slots {
		if i > 0 && slots[i-1] == s {
			continue
		}
		n := g.nodes[s]
		if n.deleted.Load() || (allow != nil && !allow(n.id)) {
			continue
		}
		t.offer(cand{dist: g.dist(q, g.vec(s)), slot: s})
	}
	return t.h.sorted()
}
