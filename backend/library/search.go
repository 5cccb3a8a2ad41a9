package library

import (
	"context"
	"errors"
	"fmt"

	"proofglass/backend/facets"
	"proofglass/backend/kb"
	"proofglass/backend/search"
)

// MaxSearchK is the most results one search returns, whatever the face.
const MaxSearchK = 200

// SearchRequest is one search as every face hands it to the library.
type SearchRequest struct {
	Text string
	K    int         // results wanted: 0 means 10, at most MaxSearchK
	Mode search.Mode // "" means hybrid
	// Scope narrows the search like a question's; its Where filter is applied inside the search, so a filter no
	// document passes finds nothing rather than failing.
	Scope
	// Collections widens Scope.Collection to any of several (VRAG's search_corpus list); each must exist.
	Collections []string
	// Weights and Structure override the searcher's fusion and structure weights (nil: its defaults, which depend
	// on the collection's embedder); NoRerank skips a configured reranker.
	Weights   *search.Weights
	Structure *search.StructureWeights
	NoRerank  bool
}

// SearchQuery checks a search and resolves its scope the way Prepare does for a question: every collection named
// must exist, every document named must exist (and belong to the collection), the filter must read. A refusal is a
// RequestError (ErrNoCollection for an unknown collection). The query is ready for l.Searcher; a face that runs many
// texts over one scope (the VRAG server's batches) sets Text per search.
func (l *Library) SearchQuery(ctx context.Context, req SearchRequest) (search.Query, error) {
	if req.K < 0 || req.K > MaxSearchK {
		return search.Query{}, refused(fmt.Errorf("k must be between 1 and %d, got %d", MaxSearchK, req.K))
	}
	mode, err := search.ParseMode(string(req.Mode))
	if err != nil {
		return search.Query{}, refused(err)
	}
	where, err := facets.ParseWhere(req.Where)
	if err != nil {
		return search.Query{}, refused(err)
	}
	q := search.Query{Text: req.Text, K: req.K, Mode: mode, Where: where, Weights: req.Weights,
		Structure: req.Structure, NoRerank: req.NoRerank}
	for _, c := range req.Collections {
		if err := l.collectionExists(ctx, c); err != nil {
			return search.Query{}, err
		}
	}
	q.Collections = append(q.Collections, req.Collections...)
	if req.Collection != "" {
		q.Collections = append(q.Collections, req.Collection)
	}
	// The filter stays in the query: resolving it here would turn "nothing passes" into an error.
	docScope := req.Scope
	docScope.Where = ""
	if q.DocumentIDs, err = l.Documents(ctx, docScope); err != nil {
		return search.Query{}, err
	}
	return q, nil
}

// Search runs one checked search (SearchQuery) over the library: the window's search box, the CLI's search and
// MCP's search tool.
func (l *Library) Search(ctx context.Context, req SearchRequest) (search.Result, error) {
	q, err := l.SearchQuery(ctx, req)
	if err != nil {
		return search.Result{}, err
	}
	res, err := l.Searcher.Search(ctx, q)
	if err != nil {
		return search.Result{}, fmt.Errorf("search: %w", err)
	}
	return res, nil
}

// collectionExists refuses a collection the library does not have with ErrNoCollection.
func (l *Library) collectionExists(ctx context.Context, name string) error {
	_, err := l.KB.Docs.CollectionByName(ctx, name)
	if errors.Is(err, kb.ErrNotFound) {
		return refused(fmt.Errorf("collection %q: %w", name, ErrNoCollection))
	}
	return err
}
