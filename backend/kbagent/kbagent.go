// Package kbagent connects the agent to the knowledge base: retrieval, page rendering, frames, blobs and run storage.
package kbagent

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"proofglass/backend/agent"
	"proofglass/backend/search"
)

// ID formats a knowledge-base id the way agent events carry it.
func ID(id int64) string { return strconv.FormatInt(id, 10) }

// ParseID reads an id from an agent event back into a knowledge-base id.
func ParseID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("knowledge-base id %q is not a positive integer", s)
	}
	return id, nil
}

// Retriever answers the agent's searches with the hybrid Searcher. Base carries the filters and fusion settings of
// every query (collections, mode, weights); its Text and K are set per search.
type Retriever struct {
	Searcher *search.Searcher
	Base     search.Query
	// Prefer are documents searched first, not exclusively (the documents a conversation's earlier answers cited):
	// their own ranking is fused with the whole search's, so their pages rise without hiding the rest.
	Prefer []int64
}

// preferRRFK is the rank constant of the fusion with the preferred documents' ranking (as in the hybrid search).
const preferRRFK = 60

var _ agent.RerankingRetriever = (*Retriever)(nil)

// Search runs one query and maps the hits to the agent's shape.
func (r *Retriever) Search(ctx context.Context, query string, k int) ([]agent.SearchHit, error) {
	hits, _, err := r.SearchReranked(ctx, query, k)
	return hits, err
}

// SearchReranked is Search that also reports what the reranking stage did: a failed reranker leaves the first
// stage's hits, and says why.
func (r *Retriever) SearchReranked(ctx context.Context, query string, k int) ([]agent.SearchHit, *agent.RerankReport, error) {
	q := r.Base
	q.Text, q.K = query, k
	res, err := r.Searcher.Search(ctx, q)
	if err != nil {
		return nil, nil, fmt.Errorf("kb search: %w", err)
	}
	var report *agent.RerankReport
	if ri := res.Rerank; ri != nil {
		report = &agent.RerankReport{Reranker: ri.Reranker, Error: ri.Error}
	}
	hits := res.Hits
	if pq, ok := r.preferred(q); ok {
		pq.NoRerank = true // the preferred documents' ranking only lifts their pages; one reranker call per search
		pres, err := r.Searcher.Search(ctx, pq)
		if err != nil {
			return nil, nil, fmt.Errorf("kb search in preferred documents: %w", err)
		}
		hits = fusePreferred(hits, pres.Hits, k)
	}
	return toAgentHits(hits), report, nil
}

// preferred is q narrowed to the preferred documents (within any documents q is already limited to).
func (r *Retriever) preferred(q search.Query) (search.Query, bool) {
	if len(r.Prefer) == 0 {
		return q, false
	}
	ids := r.Prefer
	if len(q.DocumentIDs) > 0 {
		ids = nil
		for _, id := range r.Prefer {
			if slices.Contains(q.DocumentIDs, id) {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			return q, false
		}
	}
	q.DocumentIDs = ids
	return q, true
}

// fusePreferred merges the whole search's ranking with the preferred documents' by reciprocal rank: a page of a
// preferred document gains a second term, so it ranks as if it were found twice; ties keep the whole search's order.
func fusePreferred(all, pref []search.Hit, k int) []search.Hit {
	type entry struct {
		h     search.Hit
		score float64
		first int
	}
	byUnit := map[int64]*entry{}
	var order []*entry
	add := func(hits []search.Hit, offset int) {
		for i, h := range hits {
			e := byUnit[h.UnitID]
			if e == nil {
				e = &entry{h: h, first: offset + i}
				byUnit[h.UnitID] = e
				order = append(order, e)
			}
			e.score += 1 / float64(preferRRFK+i+1)
		}
	}
	add(all, 0)
	add(pref, len(all))
	slices.SortStableFunc(order, func(a, b *entry) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return a.first - b.first
	})
	if k > 0 && len(order) > k {
		order = order[:k]
	}
	out := make([]search.Hit, len(order))
	for i, e := range order {
		out[i] = e.h
	}
	return out
}

func toAgentHits(hits []search.Hit) []agent.SearchHit {
	out := make([]agent.SearchHit, len(hits))
	for i, h := range hits {
		out[i] = agent.SearchHit{Hit: agent.Hit{
			UnitID:       ID(h.UnitID),
			DocumentID:   ID(h.DocumentID),
			DocumentName: h.Doc,
			Kind:         h.DocKind,
			Page:         h.Page,
			Score:        h.Score,
			Scores:       scores(h.Scores),
			StartS:       float64(h.TStartMS) / 1000,
			EndS:         float64(h.TEndMS) / 1000,
			Thumbnail:    h.Thumb,
			Rerank:       h.Rerank,
			FirstRank:    h.FirstRank,
		}, Text: h.Snippet}
	}
	return out
}

// scores names the signals the way events do; signals that did not return the unit are left out.
func scores(s search.Scores) map[string]float64 {
	m := map[string]float64{}
	for name, v := range map[string]*float64{"bm25": s.BM25, "dense_text": s.Text, "dense_image": s.Visual} {
		if v != nil {
			m[name] = *v
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}
