// Package kbagent connects the agent to the knowledge base: retrieval, page rendering, frames, blobs and run storage.
package kbagent

import (
	"context"
	"fmt"
	"strconv"

	"loupe/backend/agent"
	"loupe/backend/search"
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
}

// Search runs one query and maps the hits to the agent's shape.
func (r *Retriever) Search(ctx context.Context, query string, k int) ([]agent.SearchHit, error) {
	q := r.Base
	q.Text, q.K = query, k
	res, err := r.Searcher.Search(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("kb search: %w", err)
	}
	out := make([]agent.SearchHit, len(res.Hits))
	for i, h := range res.Hits {
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
		}, Text: h.Snippet}
	}
	return out, nil
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
