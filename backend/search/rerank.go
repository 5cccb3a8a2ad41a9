package search

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"proofglass/backend/model"
	"proofglass/backend/rerank"
)

// RerankStage is the stage after the first: Reranker reorders the first stage's top Depth pages.
type RerankStage struct {
	Reranker rerank.Reranker
	Depth    int
	// Timeout bounds the whole rerank call (0: 8 s); past it the search answers in first-stage order.
	Timeout time.Duration
}

// defaultRerankTimeout is a stage's deadline when it sets none.
const defaultRerankTimeout = 8 * time.Second

// RerankSource returns the reranking stage for a search, read per search so a settings change applies at once; a
// nil stage means reranking is off. An error is reported in the result and the first stage's order stands.
type RerankSource func(ctx context.Context) (*RerankStage, error)

// PageImager draws a unit for rerankers that look at pages.
type PageImager func(ctx context.Context, unitID int64) (*model.Image, error)

// RerankInfo says what the reranking stage did with a search.
type RerankInfo struct {
	Reranker   string `json:"reranker"`        // which reranker: kind, model and server
	Candidates int    `json:"candidates"`      // first-stage pages sent to it
	Reranked   bool   `json:"reranked"`        // false: it failed, and the hits are in the first stage's order
	Error      string `json:"error,omitempty"` // why it failed
	MS         int64  `json:"ms"`              // time it took
}

// ErrRerank wraps a failed reranking stage (the search itself answered, in first-stage order).
var ErrRerank = errors.New("reranker failed; results are in first-stage order")

// Err is the stage's failure as an error, nil when it reranked.
func (r *RerankInfo) Err() error {
	if r == nil || r.Reranked {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrRerank, r.Error)
}

// rerankStage is the search's stage, nil when off or not asked for.
func (s *Searcher) rerankStage(ctx context.Context, q Query) (*RerankStage, *RerankInfo) {
	if q.NoRerank || s.opts.Rerank == nil {
		return nil, nil
	}
	st, err := s.opts.Rerank(ctx)
	if err != nil {
		return nil, &RerankInfo{Reranker: "reranker", Error: err.Error()}
	}
	if st == nil || st.Reranker == nil {
		return nil, nil
	}
	if st.Depth <= 0 {
		st.Depth = 30
	}
	return st, nil
}

// rerank reorders the first st.Depth hits by the reranker's scores; the rest follow in first-stage order. When the
// reranker fails the hits come back as they were, with the failure in the info.
func (s *Searcher) rerank(ctx context.Context, st *RerankStage, query string, hits []Hit) ([]Hit, *RerankInfo) {
	n := min(st.Depth, len(hits))
	info := &RerankInfo{Reranker: st.Reranker.Name(), Candidates: n}
	if n == 0 {
		info.Reranked = true
		return hits, info
	}
	cands := make([]rerank.Candidate, n)
	for i := range n {
		cands[i].Text = hits[i].text
		if s.opts.PageImage != nil {
			id := hits[i].UnitID
			cands[i].Image = func(ctx context.Context) (*model.Image, error) { return s.opts.PageImage(ctx, id) }
		}
	}
	start := time.Now()
	timeout := st.Timeout
	if timeout <= 0 {
		timeout = defaultRerankTimeout
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	scores, err := st.Reranker.Rerank(rctx, query, cands)
	cancel()
	info.MS = time.Since(start).Milliseconds()
	if err != nil {
		info.Error = err.Error()
		if ctx.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded) {
			info.Error = fmt.Sprintf("no answer within %s (rerank timeout_s in the settings)", timeout)
		}
		slog.Debug("search: reranker failed; first-stage order kept", "reranker", info.Reranker, "err", err)
		return hits, info
	}
	info.Reranked = true
	for _, sc := range scores {
		if sc.Index >= 0 && sc.Index < n {
			v := sc.Relevance
			hits[sc.Index].Rerank = &v
		}
	}
	out := make([]Hit, 0, len(hits))
	for _, idx := range rerank.Order(n, scores) {
		out = append(out, hits[idx])
	}
	return append(out, hits[n:]...), info
}
