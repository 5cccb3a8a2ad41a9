package search

import (
	"context"
	"fmt"
	"strings"

	"proofglass/backend/kb"
	"proofglass/backend/kb/lexical"
)

// kbScope is the scope as kb filters documents by it.
func (sc *scope) kbScope() kb.Scope {
	return kb.Scope{Collections: sc.collIDs, Documents: sc.docIDs, Kinds: sc.kinds}
}

// ftsOr builds an FTS5 query matching any of the phrases. Phrases are quoted so FTS5 operators and column filters
// in user text are taken literally.
func ftsOr(phrases []string) string {
	phrases = capTerms(phrases, maxFTSPhrases) // SQLite's limits: see limits.go
	q := make([]string, len(phrases))
	for i, p := range phrases {
		q[i] = `"` + strings.ReplaceAll(p, `"`, `""`) + `"`
	}
	return strings.Join(q, " OR ")
}

// bm25 ranks units by FTS5's BM25. Word queries (stop words already dropped by parseTerms) use the word index,
// which stems with porter over unicode61, so each quoted word also matches its inflections. A query with CJK text
// uses the bigram index (kb.CJKBigramText): Chinese has no spaces, so each CJK run is matched by its overlapping
// character pairs, and as a phrase of them (the run as written), with the query's other words beside them; a query
// whose CJK runs are single characters falls back to a substring scan.
func (s *Searcher) bm25(ctx context.Context, t terms, sc *scope, depth int) (signal, error) {
	if t.empty() {
		return signal{}, nil
	}
	if ix := s.lex.Load(); len(t.cjk) == 0 && ix != nil {
		if sig, ok, err := s.bm25Memory(ctx, ix, t, sc, depth); err != nil || ok {
			return sig, err
		}
	}
	var r kb.Ranked
	var err error
	switch {
	case len(t.cjk) == 0 && sc.everything:
		// No filter narrows the search: rank in the FTS index alone, without visiting the (large) unit rows.
		r, err = s.kb.Search.RankFTS(ctx, ftsOr(t.words), nil, depth)
	case len(t.cjk) == 0:
		ks := sc.kbScope()
		r, err = s.kb.Search.RankFTS(ctx, ftsOr(t.words), &ks, depth)
	case len(t.cjkKeys()) > 0:
		r, err = s.kb.Search.RankFTSBigram(ctx, ftsOr(append(append(t.cjkPhrases(), t.cjkKeys()...), t.words...)), sc.kbScope(), depth)
	default:
		// Score = number of distinct terms the text contains.
		subs := capTerms(append(append([]string{}, t.cjk...), t.words...), maxScanTerms) // see limits.go
		r, err = s.kb.Search.RankSubstrings(ctx, subs, sc.kbScope(), depth)
	}
	if err != nil {
		return signal{}, fmt.Errorf("search: full-text query: %w", err)
	}
	return signal{ids: r.IDs, scores: r.Scores}, nil
}

// bm25Memory ranks with the in-memory word index, which scores exactly as FTS5 does; ok is false when it cannot
// serve this search (not current yet, or a word it cannot tokenize as FTS5 would) and FTS5 must.
func (s *Searcher) bm25Memory(ctx context.Context, ix *lexical.Index, t terms, sc *scope, depth int) (signal, bool, error) {
	words := capTerms(t.words, maxFTSPhrases) // the same phrases ftsOr would send
	tokens := make([]string, 0, len(words))
	for _, w := range words {
		tok, ok := lexical.Token(w, stem)
		if !ok {
			return signal{}, false, nil
		}
		tokens = append(tokens, tok)
	}
	var allow func(int64) bool
	if !sc.everything {
		docs, err := s.scopeDocuments(ctx, sc)
		if err != nil {
			return signal{}, false, err
		}
		allow = func(d int64) bool { return docs[d] }
	}
	ids, scores, ok, err := ix.Search(ctx, tokens, depth, allow)
	if err != nil || !ok {
		return signal{}, false, err
	}
	return signal{ids: ids, scores: scores}, true, nil
}

// scopeDocuments lists the documents a scope admits.
func (s *Searcher) scopeDocuments(ctx context.Context, sc *scope) (map[int64]bool, error) {
	docs, err := s.kb.Search.ScopeDocuments(ctx, sc.kbScope())
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return docs, nil
}
