package search

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"proofglass/backend/facets"
	"proofglass/backend/kb"
)

// The facet signal. A question about one filing among many alike ("ACME's revenue in its 2022 10-K") shares its
// words with every year's filing, and BM25 cannot tell them apart; the documents' facets can. When the question
// names a year, a quarter, an organisation or a kind of filing, the documents in scope that match the most of
// what it names are searched again by BM25 on their own, and their pages are listed in that order: the right
// year's pages rise even when the whole-library candidates held none of them. A question that names none of these,
// or names what every document in scope shares, adds nothing, so it ranks exactly as without facets.

// facetDocuments returns the documents in scope that match the most of the facets the question names, or nil when
// it names none or none would tell documents apart.
func (s *Searcher) facetDocuments(ctx context.Context, text string, sc *scope) (map[int64]bool, error) {
	named := facets.InQuestion(text)
	orgs, err := s.orgs(ctx)
	if err != nil {
		return nil, err
	}
	orgDocs := orgs.InQuestion(text)
	if named.Empty() && len(orgDocs) == 0 {
		return nil, nil
	}
	score := map[int64]float64{}
	matchBy := func(f kb.FacetFilter, w float64) error {
		docs, err := s.kb.Facets.DocumentsWhere(ctx, f)
		if err != nil {
			return fmt.Errorf("search: %w", err)
		}
		for d := range docs {
			score[d] += w
		}
		return nil
	}
	match := func(f kb.FacetFilter) error { return matchBy(f, 1) }
	// A year or quarter counts only for periodic reports, whose year is the period they cover: a paper's or a
	// manual's year is when it appeared, and a question naming a year ("proposed in 2021") is seldom asking for
	// what appeared then (on the dev set it cost a table question its page).
	periodic := kb.FacetCond{Name: facets.Kind, Op: kb.FacetEq, Values: lower(facets.PeriodicKinds)}
	if len(named.Years) > 0 {
		if err := match(kb.FacetFilter{{Name: facets.Year, Op: kb.FacetEq, Values: named.Years}, periodic}); err != nil {
			return nil, err
		}
	}
	if len(named.Quarters) > 0 {
		if err := match(kb.FacetFilter{{Name: facets.Quarter, Op: kb.FacetEq, Values: lower(named.Quarters)}, periodic}); err != nil {
			return nil, err
		}
	}
	if len(named.Kinds) > 0 {
		if err := match(kb.FacetFilter{{Name: facets.Kind, Op: kb.FacetEq, Values: lower(named.Kinds)}}); err != nil {
			return nil, err
		}
		if slices.Contains(named.Kinds, facets.KindAnnual) && !slices.Contains(named.Kinds, facets.Kind10K) {
			// What a US or foreign issuer files as its annual report counts half: the report itself, where the
			// library has it, comes first.
			annual := []string{strings.ToLower(facets.Kind10K), strings.ToLower(facets.Kind20F)}
			if err := matchBy(kb.FacetFilter{{Name: facets.Kind, Op: kb.FacetEq, Values: annual}}, 0.5); err != nil {
				return nil, err
			}
		}
	}
	seen := map[int64]bool{}
	for _, d := range orgDocs {
		if !seen[d] {
			seen[d] = true
			score[d]++
		}
	}
	if len(score) == 0 {
		return nil, nil
	}
	inScope, err := s.scopeDocuments(ctx, sc)
	if err != nil {
		return nil, err
	}
	best := 0.0
	for d, n := range score {
		if inScope[d] && n > best {
			best = n
		}
	}
	out := map[int64]bool{}
	for d, n := range score {
		if inScope[d] && n == best {
			out[d] = true
		}
	}
	if len(out) == 0 || len(out) == len(inScope) {
		return nil, nil // nothing to tell apart
	}
	return out, nil
}

// orgCache keeps the library's organisations indexed for questions, reloaded when the facets change.
type orgCache struct {
	mu      sync.Mutex
	version int64
	orgs    *facets.Orgs
}

// orgs returns the library's organisations, reading them again only when a facet changed since (one primary-key
// read per search otherwise).
func (s *Searcher) orgs(ctx context.Context) (*facets.Orgs, error) {
	v, err := s.kb.Facets.FacetsVersion(ctx)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	c := &s.orgCache
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.orgs != nil && c.version == v {
		return c.orgs, nil
	}
	values, err := s.kb.Facets.FacetValues(ctx, facets.Org)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	c.orgs, c.version = facets.NewOrgs(values), v
	return c.orgs, nil
}

func lower(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strings.ToLower(v)
	}
	return out
}

// facetSignal lists the pages of the documents the question's facets pick, by BM25 among those documents.
func (s *Searcher) facetSignal(ctx context.Context, text string, t terms, sc *scope, depth int) (signal, error) {
	docs, err := s.facetDocuments(ctx, text, sc)
	if err != nil || len(docs) == 0 {
		return signal{}, err
	}
	narrow := *sc
	narrow.docIDs, narrow.everything = docs, false
	return s.bm25(ctx, t, &narrow, depth)
}
