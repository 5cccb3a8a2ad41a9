// Package search is Proofglass's hybrid retrieval: BM25 over FTS5, dense text and dense visual vectors, fused by
// reciprocal rank, with per-signal scores and hit boxes.
package search

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"proofglass/backend/glove"
	"proofglass/backend/kb"
	"proofglass/backend/kb/lexical"
	"proofglass/backend/model"
	"proofglass/backend/model/provider"
)

// Mode selects which signals a search uses.
type Mode string

const (
	Hybrid Mode = "hybrid" // BM25 + dense text + dense visual, fused
	BM25   Mode = "bm25"   // full-text only
	Dense  Mode = "dense"  // dense text + dense visual only
)

// ParseMode accepts "hybrid", "bm25" or "dense" ("" means hybrid).
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", Hybrid:
		return Hybrid, nil
	case BM25, Dense:
		return Mode(s), nil
	}
	return "", fmt.Errorf("search: unknown mode %q (want hybrid, bm25 or dense)", s)
}

// Weights scale each signal's reciprocal-rank contribution; a zero weight turns the signal off.
type Weights struct {
	BM25   float64 `json:"bm25"`
	Text   float64 `json:"text"`
	Visual float64 `json:"visual"`
}

// DefaultWeights counts every signal equally, as plain reciprocal-rank fusion does.
var DefaultWeights = Weights{BM25: 1, Text: 1, Visual: 1}

// BuiltinTextWeight is the default weight of the dense text signal when it comes from the built-in embedder (a
// bag of GloVe word vectors), which is far weaker than BM25: on the dev set dense recall@5 was 0.24 against BM25's
// 0.58, and equal-weight fusion pulled hybrid down to 0.32. At this weight it only breaks near-ties in BM25's
// ranking and adds the pages BM25 does not return; a server embedder gets the full weight.
const BuiltinTextWeight = 0.01

// onlyBuiltinText reports whether every collection's text embedder is the built-in one.
func onlyBuiltinText(cs []kb.Collection) bool {
	for _, c := range cs {
		if c.TextEmbedder != glove.ModelID {
			return false
		}
	}
	return true
}

// DefaultRRFK is the k of reciprocal-rank fusion, score = Σ w / (k + rank): 60 as in Cormack et al. (2009).
const DefaultRRFK = 60

// Query is one search request.
type Query struct {
	Text string
	K    int  // results wanted; 0 means 10
	Mode Mode // "" means hybrid
	// Filters: a unit must pass all that are set.
	Collections []string // collection names; empty means all collections
	DocumentIDs []int64
	Kinds       []string // document kinds: pdf, image, video
	// Where admits only the documents whose facets pass it (backend/facets.ParseWhere reads `org=…,year=2022`).
	Where kb.FacetFilter
	// Fusion; zero values mean DefaultWeights, DefaultRRFK, and max(100, 4·K) candidates per signal.
	Weights *Weights
	RRFK    int
	Depth   int
	// Structure weighs the structure signals (structure.go); nil means DefaultStructure.
	Structure *StructureWeights
	// NoRerank skips the reranking stage (rerank.go) even when one is configured.
	NoRerank bool
	// NoLearned orders the candidates by the hand-set fusion even when the library has a learned ranker
	// (features.go): the baseline it is measured against.
	NoLearned bool
}

// Box is a matched term's word box in the unit's coordinates (PDF points at 72 dpi for pages, pixels for images
// and frames; see kb.Word), with the unit's Width and Height in the same units.
type Box struct {
	Term string  `json:"term"`
	X0   float64 `json:"x0"`
	Y0   float64 `json:"y0"`
	X1   float64 `json:"x1"`
	Y1   float64 `json:"y1"`
}

// Scores holds the raw score of each signal that found the unit; nil when the signal did not return it.
// bm25 is FTS5's bm25 negated (higher is better), raised by up to ×2 for a unit whose best passage holds the
// question's words (passage.go); text and visual are cosine similarities.
type Scores struct {
	BM25   *float64 `json:"bm25"`
	Text   *float64 `json:"text"`
	Visual *float64 `json:"visual"`
}

// Hit is one retrieved unit.
type Hit struct {
	UnitID     int64   `json:"unit_id"`
	DocumentID int64   `json:"document_id"`
	Doc        string  `json:"doc"`      // the document's file name
	DocKind    string  `json:"doc_kind"` // pdf, image, video
	Collection int64   `json:"collection_id"`
	Page       int     `json:"page"` // 1-based page, image (1) or clip number
	UnitKind   string  `json:"unit_kind"`
	TStartMS   int64   `json:"t_start_ms,omitempty"`
	TEndMS     int64   `json:"t_end_ms,omitempty"`
	Width      float64 `json:"width"`
	Height     float64 `json:"height"`
	Score      float64 `json:"score"` // fused reciprocal-rank score
	Scores     Scores  `json:"scores"`
	Ranks      [3]int  `json:"ranks"` // 1-based rank in bm25, text, visual; 0 = not returned
	Thumb      string  `json:"thumb,omitempty"`
	Boxes      []Box   `json:"boxes"`
	Snippet    string  `json:"snippet,omitempty"`
	// Rerank is the reranker's relevance score; nil when the reranking stage did not score the unit.
	Rerank *float64 `json:"rerank,omitempty"`
	// FirstRank is the 1-based rank the first stage gave the unit, set when a reranker ran (0 otherwise).
	FirstRank int `json:"first_rank,omitempty"`

	text string // the unit's text, for the reranker
}

// Result is the answer to one Query.
type Result struct {
	Hits []Hit `json:"hits"`
	// Notes says which signals were skipped and why (no vectors, unknown embedder, a query without known words).
	Notes []string `json:"notes,omitempty"`
	// Rerank says what the reranking stage did; nil when no reranker is configured. When it failed, Hits are the
	// first stage's, in its order.
	Rerank *RerankInfo `json:"rerank,omitempty"`
	// Ranker is "learned" when the library's learned ranker ordered the candidates; empty for the hand-set fusion.
	Ranker string `json:"ranker,omitempty"`
}

// Resolver returns the embedder for a model id as stored in a collection (provider.Resolver, which ingest shares).
type Resolver = provider.Resolver

// ErrNoEmbedder is returned by a Resolver that does not know a model id.
var ErrNoEmbedder = provider.ErrNoEmbedder

// BuiltinResolver knows only the built-in GloVe embedder.
var BuiltinResolver Resolver = provider.BuiltinResolver

// ConfigResolver resolves "profile/model" ids through the configured provider profiles (provider.ConfigResolver).
var ConfigResolver = provider.ConfigResolver

// Options configure a Searcher.
type Options struct {
	// Embedders resolves the embedders collections pin; nil means BuiltinResolver.
	Embedders Resolver
	// NewIndex builds the dense index for one embedder's vectors; nil means NewVectorIndex.
	NewIndex IndexBuilder
	// IndexDir, when set, keeps each built index in a file there (the data directory's index/), reopened by the
	// next process instead of rebuilt, as long as SQLite still holds the same vectors.
	IndexDir string
	// Lexical keeps an in-memory word index (backend/kb/lexical) that answers BM25 exactly as FTS5 would, built in the
	// background on the first search and kept current from SQLite's unit change log: for long-lived processes
	// (window, server), where it makes full-text ranking independent of how many rows match. Call Close to stop it.
	Lexical bool
	// RecheckEvery bounds how often a cached dense index is checked against SQLite for added or removed vectors;
	// 0 means every search.
	RecheckEvery time.Duration
	// Rerank gives the reranking stage run after the first stage (rerank.go); nil: none.
	Rerank RerankSource
	// PageImage draws pages for rerankers that look at them; nil: they are sent text only.
	PageImage PageImager
}

// Searcher runs searches over one knowledge base. It is safe for concurrent use.
type Searcher struct {
	kb   *kb.KB
	opts Options

	lex atomic.Pointer[lexical.Index] // nil until Options.Lexical or UseLexicalIndex
	// running admits as many searches at once as there are processors; the rest wait their turn in arrival order
	// (channel senders are woken first in, first out). Eight searches at once on two cores did not finish sooner
	// together, they contended (SQLite's page cache mutex, the scheduler) and a few waited 100+ ms (p99 112 ms at
	// p50 4 ms on a quiet machine, 100k units).
	running chan struct{}

	mu      sync.Mutex
	indexes map[indexKey]*cachedIndex
	embeds  map[string]model.Embedder

	names    nameCache // documents' name stems (docname.go)
	orgCache orgCache  // the library's organisations (facetsignal.go)
	rankMu   sync.Mutex
	rankers  map[string]*learned // the library's learned rankers by scope (features.go)
}

// New returns a Searcher over k.
func New(k *kb.KB, o Options) *Searcher {
	if o.Embedders == nil {
		o.Embedders = BuiltinResolver
	}
	if o.NewIndex == nil {
		o.NewIndex = NewVectorIndex
	}
	s := &Searcher{kb: k, opts: o, indexes: map[indexKey]*cachedIndex{}, embeds: map[string]model.Embedder{},
		running: make(chan struct{}, runtime.GOMAXPROCS(0))}
	if o.Lexical {
		s.lex.Store(lexical.New(k.SnapshotDB()))
	}
	return s
}

// UseLexicalIndex turns on the in-memory word index (Options.Lexical) and starts building it now, for a process
// that will serve many searches (the window, `proofglass serve`, `proofglass mcp`, `proofglass watch`).
func (s *Searcher) UseLexicalIndex() {
	if s.lex.Load() == nil {
		s.lex.CompareAndSwap(nil, lexical.New(s.kb.SnapshotDB()))
	}
	s.lex.Load().Refresh()
}

// Close stops background work (the in-memory word index's refresh).
func (s *Searcher) Close() {
	if ix := s.lex.Load(); ix != nil {
		ix.Close()
	}
}

// WarmLexical waits until the in-memory word index is current (no-op without it): benchmarks measure the warm
// state with it.
func (s *Searcher) WarmLexical(ctx context.Context) error {
	if ix := s.lex.Load(); ix != nil {
		return ix.WaitCurrent(ctx)
	}
	return nil
}

// scope is a query's filters resolved to ids.
type scope struct {
	collections []kb.Collection
	collIDs     map[int64]bool
	everything  bool // every collection, no document or kind filter
	none        bool // a facet filter no document passes
	docIDs      map[int64]bool
	kinds       map[string]bool
}

func (s *scope) allows(m unitMeta) bool {
	return s.collIDs[m.collection] && (len(s.docIDs) == 0 || s.docIDs[m.document]) &&
		(len(s.kinds) == 0 || s.kinds[m.kind])
}

func (s *Searcher) resolveScope(ctx context.Context, q Query) (*scope, error) {
	all, err := s.collections(ctx)
	if err != nil {
		return nil, err
	}
	sc := &scope{collIDs: map[int64]bool{}, docIDs: map[int64]bool{}, kinds: map[string]bool{}}
	for _, name := range q.Collections {
		i := slices.IndexFunc(all, func(c kb.Collection) bool { return c.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("search: collection %q: %w", name, kb.ErrNotFound)
		}
	}
	for _, c := range all {
		if len(q.Collections) == 0 || slices.Contains(q.Collections, c.Name) {
			sc.collections = append(sc.collections, c)
			sc.collIDs[c.ID] = true
		}
	}
	for _, id := range q.DocumentIDs {
		sc.docIDs[id] = true
	}
	if len(q.Where) > 0 {
		pass, err := s.kb.Facets.DocumentsWhere(ctx, q.Where)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		if len(q.DocumentIDs) > 0 {
			for id := range sc.docIDs {
				if !pass[id] {
					delete(sc.docIDs, id)
				}
			}
		} else {
			sc.docIDs = pass
		}
		sc.none = len(sc.docIDs) == 0
	}
	for _, k := range q.Kinds {
		switch k {
		case "pdf", "image", "video":
			sc.kinds[k] = true
		default:
			return nil, fmt.Errorf("search: unknown document kind %q (want pdf, image or video)", k)
		}
	}
	sc.everything = len(sc.collections) == len(all) && len(sc.docIDs) == 0 && len(sc.kinds) == 0 && !sc.none
	return sc, nil
}

// signal is one ranked list: unit ids best first with their raw scores.
type signal struct {
	ids    []int64
	scores []float64
}

// Search runs q and returns up to K fused hits with their boxes.
func (s *Searcher) Search(ctx context.Context, q Query) (Result, error) {
	var res Result
	st, err := s.firstStage(ctx, &q, &res)
	if err != nil || st == nil {
		return res, err
	}
	defer st.turn.give()
	turn, fused, terms := st.turn, st.fused, st.terms
	// A search of chosen documents has its own ranker: there every page of a document shares its document-level
	// signals, which the whole library's ranker weighs.
	if !q.NoLearned {
		scope := kb.RankLibrary
		if len(q.DocumentIDs) > 0 {
			scope = kb.RankDocument
		}
		if m := s.ranker(ctx, scope); m != nil {
			rerankLearned(m, fused, q.RRFK, st.topBM25)
			res.Ranker = "learned"
		}
	}
	// The reranking stage, when there is one, gets the first stage's top Depth pages.
	stage, info := s.rerankStage(ctx, q)
	res.Rerank = info
	keep := q.K
	if stage != nil {
		keep = max(keep, stage.Depth)
	}
	if len(fused) > keep {
		fused = fused[:keep]
	}
	if stage == nil {
		res.Hits, _, err = s.hits(ctx, fused, terms, true)
		return res, err
	}
	// Boxes and snippets are found only for the hits kept after reranking.
	hits, units, err := s.hits(ctx, fused, terms, false)
	if err != nil {
		return res, err
	}
	turn.give() // a reranker waits on a server, not on this machine's processors
	for i := range hits {
		hits[i].FirstRank = i + 1
	}
	hits, res.Rerank = s.rerank(ctx, stage, q.Text, hits)
	if len(hits) > q.K {
		hits = hits[:q.K]
	}
	for i := range hits {
		decorate(&hits[i], units[hits[i].UnitID], terms)
	}
	res.Hits = hits
	return res, nil
}

// stage is a search's first stage: its candidates, fused and restructured, and the turn it holds.
type stage struct {
	turn    *turn
	fused   []fusedUnit
	terms   terms
	topBM25 float64   // the best BM25 score, which BM25 features are relative to
	hand    []float64 // the hand-set weights that fused it, on FeatureNames
}

// firstStage fills in q's defaults and runs its signals, fusion and structure signals. It returns nil without an
// error when nothing can match (no collection, a filter that no document passes), saying why in res's notes (res
// may be nil). The caller gives the stage's turn back.
func (s *Searcher) firstStage(ctx context.Context, q *Query, res *Result) (*stage, error) {
	notes := new([]string)
	if res != nil {
		notes = &res.Notes
	}
	mode, err := ParseMode(string(q.Mode))
	if err != nil {
		return nil, err
	}
	if q.K <= 0 {
		q.K = 10
	}
	w := DefaultWeights
	if q.Weights != nil {
		w = *q.Weights
	}
	if q.RRFK <= 0 {
		q.RRFK = DefaultRRFK
	}
	if q.Depth <= 0 {
		q.Depth = max(100, 4*q.K)
	}
	if strings.TrimSpace(q.Text) == "" {
		return nil, fmt.Errorf("search: empty query")
	}
	turn := &turn{running: s.running}
	if err := turn.take(ctx); err != nil {
		return nil, err
	}
	done := false
	defer func() {
		if !done {
			turn.give()
		}
	}()
	sc, err := s.resolveScope(ctx, *q)
	if err != nil {
		return nil, err
	}
	if len(sc.collections) == 0 {
		*notes = append(*notes, "no collections")
		return nil, nil
	}
	if sc.none {
		*notes = append(*notes, "no document passes the where filter")
		return nil, nil
	}
	if q.Weights == nil && onlyBuiltinText(sc.collections) {
		w.Text = BuiltinTextWeight
	}
	qq := parseQuestion(q.Text)
	terms := parseTerms(qq.text)
	sw := DefaultStructure
	if q.Structure != nil {
		sw = *q.Structure
	}

	var sigs [3]signal // bm25, text, visual
	if mode != Dense && w.BM25 != 0 {
		sigs[0], err = s.bm25(ctx, terms, sc, q.Depth)
		if err != nil {
			return nil, err
		}
		if sigs[0], err = s.passageRerank(ctx, sigs[0], qq.text, sw.Passage); err != nil {
			return nil, err
		}
	}
	if mode != BM25 {
		if w.Text != 0 {
			sigs[1], err = s.dense(ctx, turn, qq.text, kb.ModalityText, sc, q.Depth, notes)
			if err != nil {
				return nil, err
			}
		}
		if w.Visual != 0 {
			sigs[2], err = s.dense(ctx, turn, qq.text, kb.ModalityImage, sc, q.Depth, notes)
			if err != nil {
				return nil, err
			}
		}
	}
	fused := fuse(sigs, [3]float64{w.BM25, w.Text, w.Visual}, q.RRFK)
	if fused, err = s.restructure(ctx, fused, sigs[0], qq, terms, sc, sw, q.RRFK, q.Depth); err != nil {
		return nil, err
	}
	st := &stage{turn: turn, fused: fused, terms: terms, hand: HandWeights(w, sw)}
	if len(sigs[0].scores) > 0 {
		st.topBM25 = sigs[0].scores[0]
	}
	done = true
	return st, nil
}

// turn is one search's place among the running ones.
type turn struct {
	running chan struct{}
	held    bool
}

func (t *turn) take(ctx context.Context) error {
	select {
	case t.running <- struct{}{}:
		t.held = true
		return nil
	case <-ctx.Done():
		return fmt.Errorf("search: %w", ctx.Err())
	}
}

func (t *turn) give() {
	if t.held {
		t.held = false
		<-t.running
	}
}

// hits loads the units and documents of the fused list and, when decorated, finds their boxes and snippets (else
// decorate does it later, from the units returned).
func (s *Searcher) hits(ctx context.Context, fused []fusedUnit, terms terms, decorated bool) ([]Hit, map[int64]kb.Unit, error) {
	out := make([]Hit, 0, len(fused))
	ids := make([]int64, len(fused))
	for i, f := range fused {
		ids[i] = f.id
	}
	// One query for the page of hits (SQLite's default limit on bound variables is 32,766; K is at most a few
	// hundred), decoding only the word boxes that can match a query word.
	units, err := s.kb.Content.UnitsByIDKeeping(ctx, ids, terms.mayMatch())
	if err != nil {
		return nil, nil, fmt.Errorf("search: %w", err)
	}
	docs, err := s.hitDocuments(ctx, units)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range fused {
		u, ok := units[f.id]
		if !ok {
			continue // deleted since the signals ran
		}
		d, ok := docs[u.DocumentID]
		if !ok {
			continue
		}
		h := Hit{
			UnitID: u.ID, DocumentID: d.id, Doc: d.name, DocKind: d.kind, Collection: d.collection,
			Page: u.Ordinal, UnitKind: u.Kind, TStartMS: u.TStartMS, TEndMS: u.TEndMS, Width: u.Width, Height: u.Height,
			Score: f.score, Ranks: f.ranks, Thumb: u.ThumbBlob,
		}
		if f.ranks[0] > 0 {
			h.Scores.BM25 = &f.raw[0]
		}
		if f.ranks[1] > 0 {
			h.Scores.Text = &f.raw[1]
		}
		if f.ranks[2] > 0 {
			h.Scores.Visual = &f.raw[2]
		}
		h.text = u.Text
		if decorated {
			decorate(&h, u, terms)
		}
		out = append(out, h)
	}
	return out, units, nil
}

// decorate finds a hit's matched word boxes and its snippet.
func decorate(h *Hit, u kb.Unit, terms terms) {
	h.Boxes = matchBoxes(u.Words, terms)
	if h.Boxes == nil {
		h.Boxes = []Box{}
	}
	h.Snippet = snippet(u.Text, terms)
}

// hitDoc is what a hit shows of its document.
type hitDoc struct {
	id, collection int64
	name, kind     string
}

// hitDocuments loads the documents of the units in one query.
func (s *Searcher) hitDocuments(ctx context.Context, units map[int64]kb.Unit) (map[int64]hitDoc, error) {
	var ids []int64
	seen := map[int64]bool{}
	for _, u := range units {
		if !seen[u.DocumentID] {
			seen[u.DocumentID] = true
			ids = append(ids, u.DocumentID)
		}
	}
	docs, err := s.kb.Search.DocumentsByID(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("search: documents of the hits: %w", err)
	}
	out := make(map[int64]hitDoc, len(docs))
	for id, d := range docs {
		out[id] = hitDoc{id: d.ID, collection: d.CollectionID, name: d.Name, kind: d.Kind}
	}
	return out, nil
}

// embedder returns the cached embedder for a model id.
func (s *Searcher) embedder(ctx context.Context, id string) (model.Embedder, error) {
	s.mu.Lock()
	e, ok := s.embeds[id]
	s.mu.Unlock()
	if ok {
		return e, nil
	}
	e, err := s.opts.Embedders(ctx, id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.embeds[id] = e
	s.mu.Unlock()
	return e, nil
}

func logNote(notes *[]string, msg string, args ...any) {
	m := fmt.Sprintf(msg, args...)
	slog.Debug("search: " + m)
	*notes = append(*notes, m)
}

// ParseWeights reads "bm25=1,text=0.5,visual=1"; signals not named keep their DefaultWeights value.
func ParseWeights(s string) (Weights, error) {
	w := DefaultWeights
	err := parseNamedWeights(s, "weight", []string{"bm25", "text", "visual"}, []*float64{&w.BM25, &w.Text, &w.Visual})
	return w, err
}

// parseNamedWeights reads "name=value,…" into the fields, fields[i] named names[i]; values are non-negative
// numbers, and an unknown name is an error that lists the known ones.
func parseNamedWeights(s, what string, names []string, fields []*float64) error {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if !ok || err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("search: %s %q: want name=non-negative number", what, part)
		}
		i := slices.Index(names, strings.TrimSpace(name))
		if i < 0 {
			return fmt.Errorf("search: %s %q: unknown signal (want %s)", what, part, strings.Join(names, ", "))
		}
		*fields[i] = f
	}
	return nil
}

// collections lists the collections with their embedders (kb.Collections also counts documents and units, which
// scans every unit: too slow to run on each search of a large knowledge base).
func (s *Searcher) collections(ctx context.Context) ([]kb.Collection, error) {
	cs, err := s.kb.Search.CollectionEmbedders(ctx)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return cs, nil
}
