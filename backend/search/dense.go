package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"proofglass/backend/kb"
	"proofglass/backend/model"
	"proofglass/backend/model/builtin"
)

// Neighbor is an indexed vector near a query, with its cosine similarity. UnitID is the id the vector was added
// under: a unit id for image vectors; for text, a passage id, or minus the unit id for a unit's whole-text vector
// (units embedded before passages existed), which the searcher maps back to units.
type Neighbor struct {
	UnitID int64
	Score  float32
}

// Index finds the stored vectors nearest to a query. Search must be safe for concurrent use; allow, when not nil,
// limits the result to the ids it accepts.
type Index interface {
	Search(q []float32, k int, allow func(unitID int64) bool) ([]Neighbor, error)
}

// IndexBuilder makes an Index over one embedder's vectors: L2-normalised, all of length dim, no zero vectors.
type IndexBuilder func(dim int, ids []int64, vecs [][]float32) (Index, error)

// indexKey names one embedder's vectors of one modality.
type indexKey struct {
	embedder string
	modality string
	dim      int
}

// unitMeta is what filters need to know about an indexed vector's unit, loaded with the vector so filtering costs
// no query.
type unitMeta struct {
	unit       int64
	collection int64
	document   int64
	kind       string
}

// fingerprint changes when vectors of an embedder are added, removed or replaced: kb's vectors generation, which
// triggers bump on every write, plus the count and id sum of the embedder's vectors (so a file written for another
// database with the same generation is not trusted either).
type fingerprint struct {
	gen int64
	n   int64
	sum float64
}

// indexState is one immutable built index; a rebuild replaces the pointer, so running searches keep theirs.
type indexState struct {
	idx         Index
	meta        *metaTable // by indexed id
	fp          fingerprint
	collections map[int64]bool // collections that have units in meta
	// pending counts, per collection, the units whose embedding is not recorded yet (an ingest or a re-embed after
	// the collection changed embedders is running): dense search cannot find them until it finishes.
	pending map[int64]int
	// saved is the base on disk this state descends from (nil: none known); a save writes only the changes since.
	// Set under the cached index's lock.
	saved *savedBase
}

// savedBase is the metadata and generation of an index file as saved.
type savedBase struct {
	meta *metaTable
	gen  uint64
}

type cachedIndex struct {
	mu      sync.Mutex // held while checking or rebuilding
	state   *indexState
	checked time.Time
}

func (s *Searcher) fingerprint(ctx context.Context, k indexKey) (fingerprint, error) {
	var fp fingerprint
	gen, err := s.kb.Content.VectorsGeneration(ctx)
	if err != nil {
		return fp, fmt.Errorf("search: %w", err)
	}
	fp.gen = gen
	if fp.n, fp.sum, err = s.kb.Search.VectorFingerprint(ctx, k.embedder, k.modality); err != nil {
		return fp, fmt.Errorf("search: %w", err)
	}
	return fp, nil
}

// set is the vectors k indexes, as kb names them.
func (k indexKey) set() kb.VectorSet {
	return kb.VectorSet{Embedder: k.embedder, Modality: k.modality, Dim: k.dim}
}

// pendingUnits counts, per collection, the units extracted but without a recorded embed step.
func (s *Searcher) pendingUnits(ctx context.Context) (map[int64]int, error) {
	out, err := s.kb.Search.UnitsAwaitingEmbedding(ctx)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return out, nil
}

// index returns the dense index of k, up to date with SQLite (checked at most every Options.RecheckEvery).
func (s *Searcher) index(ctx context.Context, k indexKey) (*indexState, error) {
	return s.indexNow(ctx, k, false)
}

// indexNow returns k's index, bringing it up to date when SQLite changed. In order of preference: the index in
// memory, updated with the vectors added and removed since; the saved file (mapped, not read), likewise; a build
// from SQLite. With force it skips the RecheckEvery shortcut and saves what changed, for the next process.
func (s *Searcher) indexNow(ctx context.Context, k indexKey, force bool) (*indexState, error) {
	s.mu.Lock()
	ci, ok := s.indexes[k]
	if !ok {
		ci = &cachedIndex{}
		s.indexes[k] = ci
	}
	s.mu.Unlock()

	ci.mu.Lock()
	defer ci.mu.Unlock()
	if !force && ci.state != nil && time.Since(ci.checked) < s.opts.RecheckEvery {
		return ci.state, nil
	}
	// Every write to vectors or passages bumps the generation, so an unchanged one means an unchanged index: one
	// row read. The full fingerprint counts the embedder's vectors (a scan that grows with the library, and every
	// search waited on it under ci.mu); it is needed only when something changed or a saved file is judged.
	if !force && ci.state != nil {
		gen, err := s.kb.Content.VectorsGeneration(ctx)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		if gen == ci.state.fp.gen {
			ci.checked = time.Now()
			return ci.state, nil
		}
	}
	fp, err := s.fingerprint(ctx, k)
	if err != nil {
		return nil, err
	}
	if ci.state != nil && ci.state.fp == fp {
		ci.checked = time.Now()
		return ci.state, nil
	}
	start := time.Now()
	pending, err := s.pendingUnits(ctx)
	if err != nil {
		return nil, err
	}
	var st *indexState
	prev, fromFile := ci.state, false
	if prev == nil && s.opts.IndexDir != "" {
		vi, t, gen, base, err := s.openSaved(k)
		switch {
		case err == nil && gen == fp.generation():
			st = newState(vi, t, fp, pending)
			st.saved = base
			slog.Debug("search: dense index opened", "embedder", k.embedder, "modality", k.modality, "took", time.Since(start))
		case err == nil:
			prev, fromFile = newState(vi, t, fingerprint{}, nil), true
			prev.saved = base
		case !isMissing(err):
			slog.Info("search: saved dense index unusable, rebuilding", "embedder", k.embedder, "modality", k.modality, "reason", err)
		}
	}
	if st == nil && prev != nil {
		if vi, ok := prev.idx.(vectorIndex); ok {
			t, ok, err := s.applyDelta(ctx, k, vi, prev.meta)
			if err != nil {
				return nil, err
			}
			if ok {
				st = newState(vi, t, fp, pending)
				st.saved = prev.saved
				if force || fromFile {
					s.saveState(k, st)
				}
			}
		}
	}
	if st == nil {
		if st, err = s.buildIndex(ctx, k, fp, pending); err != nil {
			return nil, err
		}
		s.saveState(k, st)
	}
	ci.state, ci.checked = st, time.Now()
	return st, nil
}

func (s *Searcher) buildIndex(ctx context.Context, k indexKey, fp fingerprint, pending map[int64]int) (*indexState, error) {
	start := time.Now()
	meta := &metaTable{}
	var ids []int64
	var vecs [][]float32
	err := s.kb.Search.ScanIndexItems(ctx, k.set(), true, func(it kb.IndexItem) error {
		meta.add(it.ID, unitMeta{unit: it.Unit, collection: it.Collection, document: it.Document, kind: it.Kind})
		if !normalize(it.Vec) {
			return nil // a text without known words: no direction, no dense signal
		}
		ids = append(ids, it.ID)
		vecs = append(vecs, it.Vec)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	idx, err := s.opts.NewIndex(k.dim, ids, vecs)
	if err != nil {
		return nil, fmt.Errorf("search: build index of %s (%s): %w", k.embedder, k.modality, err)
	}
	slog.Debug("search: dense index built", "embedder", k.embedder, "modality", k.modality, "vectors", len(ids),
		"took", time.Since(start))
	return newState(idx, meta.sorted(), fp, pending), nil
}

func newState(idx Index, meta *metaTable, fp fingerprint, pending map[int64]int) *indexState {
	st := &indexState{idx: idx, meta: meta, fp: fp, collections: map[int64]bool{}, pending: pending}
	last := int64(-1)
	for _, c := range meta.colls {
		if c != last { // ids of one document are mostly adjacent: skip the map for runs
			st.collections[c], last = true, c
		}
	}
	return st
}

// normalize scales v to unit length in place; it reports false for a zero (or non-finite) vector.
func normalize(v []float32) bool {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 || math.IsNaN(ss) || math.IsInf(ss, 0) {
		return false
	}
	inv := float32(1 / math.Sqrt(ss))
	for i := range v {
		v[i] *= inv
	}
	return true
}

// dense ranks units by the cosine between the query's embedding and their vectors of one modality. Collections
// are grouped by the embedder they pin; each group's query vector is compared only with that embedder's vectors of
// that group's units, so dimensions and embedding spaces never mix. Problems that only cost this signal (an
// embedder that is not configured or fails, a query without known words) become notes, not errors.
func (s *Searcher) dense(ctx context.Context, turn *turn, text, modality string, sc *scope, depth int, notes *[]string) (signal, error) {
	groups := map[indexKey]map[int64]bool{}
	var order []indexKey
	for _, c := range sc.collections {
		k := indexKey{embedder: c.TextEmbedder, modality: modality, dim: c.TextDim}
		if modality == kb.ModalityImage {
			k.embedder, k.dim = c.ImageEmbedder, c.ImageDim
		}
		if k.embedder == "" || k.dim <= 0 {
			continue
		}
		if groups[k] == nil {
			groups[k] = map[int64]bool{}
			order = append(order, k)
		}
		groups[k][c.ID] = true
	}
	var all []Neighbor
	for _, k := range order {
		e, err := s.embedder(ctx, k.embedder)
		if err != nil {
			logNote(notes, "%s: embedder %s unavailable: %v", modality, k.embedder, err)
			continue
		}
		var vs [][]float32
		if _, local := e.(*builtin.Embedder); local {
			vs, err = e.Embed(ctx, []model.EmbedInput{{Text: text}})
		} else {
			// A model server answers in its own time: let another search run meanwhile.
			turn.give()
			vs, err = e.Embed(ctx, []model.EmbedInput{{Text: text}})
			if terr := turn.take(ctx); terr != nil {
				return signal{}, terr
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return signal{}, fmt.Errorf("search: embed query: %w", ctx.Err())
			}
			logNote(notes, "%s: embedding the query with %s failed: %v", modality, k.embedder, err)
			continue
		}
		if len(vs) != 1 || len(vs[0]) != k.dim {
			logNote(notes, "%s: %s returned a vector of another dimension than the collection's %d", modality, k.embedder, k.dim)
			continue
		}
		q := slices.Clone(vs[0])
		if !normalize(q) {
			logNote(notes, "%s: the query has no words %s knows", modality, k.embedder)
			continue
		}
		st, err := s.index(ctx, k)
		if err != nil {
			return signal{}, err
		}
		colls := groups[k]
		allow := func(id int64) bool {
			m, ok := st.meta.lookup(id)
			return ok && colls[m.collection] && sc.allows(m)
		}
		if len(sc.docIDs) == 0 && len(sc.kinds) == 0 && subset(st.collections, colls) {
			allow = nil // every indexed unit qualifies: let the index search unfiltered
		}
		for _, c := range sc.collections {
			if n := st.pending[c.ID]; colls[c.ID] && n > 0 && modality == kb.ModalityText {
				logNote(notes, "%s: collection %q has %d units not yet embedded with %s (ingest or re-embedding in progress); "+
					"dense search covers the others, full-text search covers all", modality, c.Name, n, k.embedder)
			}
		}
		// A unit can have several passages near the query: ask for more than depth so that depth distinct units
		// remain after each unit keeps its best passage.
		want := depth
		if modality == kb.ModalityText {
			want = depth * passageFanout
		}
		ns, err := st.idx.Search(q, want, allow)
		if err != nil {
			return signal{}, fmt.Errorf("search: %s index of %s: %w", modality, k.embedder, err)
		}
		for _, n := range ns {
			if m, ok := st.meta.lookup(n.UnitID); ok {
				all = append(all, Neighbor{UnitID: m.unit, Score: n.Score})
			}
		}
	}
	slices.SortStableFunc(all, func(a, b Neighbor) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.UnitID, b.UnitID))
	})
	// A unit scores as its best passage (the list is sorted, so its first occurrence).
	seen := map[int64]bool{}
	uniq := all[:0]
	for _, n := range all {
		if !seen[n.UnitID] {
			seen[n.UnitID] = true
			uniq = append(uniq, n)
		}
	}
	all = uniq
	if len(all) > depth {
		all = all[:depth]
	}
	sig := signal{ids: make([]int64, len(all)), scores: make([]float64, len(all))}
	for i, n := range all {
		sig.ids[i], sig.scores[i] = n.UnitID, float64(n.Score)
	}
	return sig, nil
}

// passageFanout is how many passages per wanted unit a text search asks the index for. Pages average a few
// passages and only the best per page counts, so 4 leaves enough distinct pages in practice.
const passageFanout = 4

// Exact is an Index that compares the query with every vector: exact, and fast enough for tens of thousands of
// units (about 100 ns per 100-d vector).
type Exact struct {
	dim  int
	ids  []int64
	data []float32 // len(ids) × dim, row-major, unit length
}

// NewExact is the default IndexBuilder.
func NewExact(dim int, ids []int64, vecs [][]float32) (Index, error) {
	e := &Exact{dim: dim, ids: slices.Clone(ids), data: make([]float32, 0, len(ids)*dim)}
	for i, v := range vecs {
		if len(v) != dim {
			return nil, fmt.Errorf("vector of unit %d has %d values, want %d", ids[i], len(v), dim)
		}
		e.data = append(e.data, v...)
	}
	return e, nil
}

var errBadQuery = errors.New("query vector has the wrong dimension")

// Search returns the k vectors with the highest cosine to q (q must be unit length), best first; ties go to the
// lower unit id so results are deterministic.
func (e *Exact) Search(q []float32, k int, allow func(int64) bool) ([]Neighbor, error) {
	if len(q) != e.dim {
		return nil, fmt.Errorf("%w: %d, index has %d", errBadQuery, len(q), e.dim)
	}
	if k <= 0 {
		return nil, nil
	}
	top := make([]Neighbor, 0, k+1) // kept sorted worst first, so the worst is top[0]
	worse := func(a, b Neighbor) bool { return a.Score < b.Score || (a.Score == b.Score && a.UnitID > b.UnitID) }
	for i, id := range e.ids {
		if allow != nil && !allow(id) {
			continue
		}
		row := e.data[i*e.dim : (i+1)*e.dim]
		var s float32
		for j, x := range q {
			s += x * row[j]
		}
		n := Neighbor{UnitID: id, Score: s}
		if len(top) == k && !worse(top[0], n) {
			continue
		}
		pos, _ := slices.BinarySearchFunc(top, n, func(a, b Neighbor) int {
			if worse(a, b) {
				return -1
			}
			return 1
		})
		top = slices.Insert(top, pos, n)
		if len(top) > k {
			top = top[1:]
		}
	}
	slices.Reverse(top)
	return top, nil
}

// subset reports whether every key of a is in b.
func subset(a, b map[int64]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
