package search

import (
	"cmp"
	"context"
	"slices"
	"time"

	"proofglass/backend/rank"
)

// FeatureVersion names the candidate features below: a stored ranker trained on other features is not used.
const FeatureVersion = "signals-v1"

// FeatureNames are the features of a candidate page that a learned ranker weighs: its reciprocal rank in each
// first-stage and structure signal (as the hand-set fusion weighs them), BM25's score relative to the best, the
// dense cosines, and how many signals listed it.
var FeatureNames = []string{"bm25_rr", "text_rr", "visual_rr", "doc_rr", "name_rr", "facet_rr", "figure_rr", "label_rr",
	"page_rr", "bm25_rel", "text_cos", "visual_cos", "signals"}

// features are f's features (FeatureNames) at fusion constant k, with topBM25 the best BM25 score of the search.
func features(f fusedUnit, k int, topBM25 float64) []float64 {
	x := make([]float64, len(FeatureNames))
	rr := func(r int) float64 {
		if r <= 0 {
			return 0
		}
		return 1 / float64(k+r)
	}
	n := 0
	for s, r := range f.ranks {
		x[s] = rr(r)
		if r > 0 {
			n++
		}
	}
	for s, r := range f.structure {
		x[3+s] = rr(r)
		if r > 0 {
			n++
		}
	}
	if f.ranks[0] > 0 && topBM25 > 0 {
		x[9] = f.raw[0] / topBM25
	}
	if f.ranks[1] > 0 {
		x[10] = f.raw[1]
	}
	if f.ranks[2] > 0 {
		x[11] = f.raw[2]
	}
	x[12] = float64(n)
	return x
}

// HandWeights are the hand-set ranker as weights on FeatureNames: the fused score of a candidate is exactly their
// dot product with its features. They start and anchor a learned ranker, and are the baseline it is measured against.
func HandWeights(w Weights, sw StructureWeights) []float64 {
	out := make([]float64, len(FeatureNames))
	copy(out, []float64{w.BM25, w.Text, w.Visual, sw.Doc, sw.Name, sw.Facet, sw.Figure, sw.Label, sw.Page})
	return out
}

// Candidate is a first-stage candidate page with its features, for training and measuring a ranker.
type Candidate struct {
	UnitID   int64
	Features []float64
}

// Candidates runs q's first stage (signals, fusion and structure, no learned ranker, no reranking) and returns its
// candidates, best first by the hand-set fusion, up to q.Depth (default max(100, 4·K)), with the hand-set weights
// that ordered them (on FeatureNames: their dot product with a candidate's features is its fused score). Those
// depend on the collections: the built-in embedder's text signal weighs less than a server embedder's.
func (s *Searcher) Candidates(ctx context.Context, q Query) ([]Candidate, []float64, error) {
	q.NoLearned = true
	st, err := s.firstStage(ctx, &q, nil)
	if err != nil || st == nil {
		return nil, nil, err
	}
	defer st.turn.give()
	out := make([]Candidate, 0, min(len(st.fused), q.Depth))
	for i, f := range st.fused {
		if i >= q.Depth {
			break
		}
		out = append(out, Candidate{UnitID: f.id, Features: features(f, q.RRFK, st.topBM25)})
	}
	return out, st.hand, nil
}

// learned is the searcher's copy of one of the library's learned rankers, checked against the store now and then.
type learned struct {
	model   *rank.Model
	stored  time.Time // when the stored model was saved
	checked time.Time
}

// rankerRecheck bounds how often a searcher looks for a newer stored ranker.
const rankerRecheck = 5 * time.Second

// ranker is the library's learned ranker for a scope (kb.RankLibrary, kb.RankDocument), if it has one that fits
// the features; nil otherwise.
func (s *Searcher) ranker(ctx context.Context, scope string) *rank.Model {
	s.rankMu.Lock()
	defer s.rankMu.Unlock()
	if s.rankers == nil {
		s.rankers = map[string]*learned{}
	}
	l := s.rankers[scope]
	if l == nil {
		l = &learned{}
		s.rankers[scope] = l
	}
	if time.Since(l.checked) < rankerRecheck {
		return l.model
	}
	l.checked = time.Now()
	b, saved, err := s.kb.Search.Ranker(ctx, scope)
	if err != nil || len(b) == 0 {
		l.model = nil // none stored (or unreadable): the hand-set weights
		return nil
	}
	if saved.Equal(l.stored) && l.model != nil {
		return l.model
	}
	m, err := rank.Decode(b)
	if err != nil || !m.Fits(FeatureVersion, len(FeatureNames)) {
		l.model = nil
		return nil
	}
	l.model, l.stored = m, saved
	return m
}

// ForgetRanker makes the next search read the stored rankers again (after training in this process).
func (s *Searcher) ForgetRanker() {
	s.rankMu.Lock()
	s.rankers = nil
	s.rankMu.Unlock()
}

// rerankLearned orders the candidates by the learned ranker's score, ties by the hand-set fusion.
func rerankLearned(m *rank.Model, fused []fusedUnit, k int, topBM25 float64) {
	score := make(map[int64]float64, len(fused))
	for _, f := range fused {
		score[f.id] = m.Score(features(f, k, topBM25))
	}
	slices.SortStableFunc(fused, func(a, b fusedUnit) int {
		return cmp.Or(cmp.Compare(score[b.id], score[a.id]), cmp.Compare(b.score, a.score), cmp.Compare(a.id, b.id))
	})
}
