package search

import (
	"context"
	"fmt"
	"strings"

	"proofglass/backend/lexical"
)

// filterSQL returns the WHERE conditions (on units u and documents d) and arguments that restrict to the scope.
func (sc *scope) filterSQL() (string, []any) {
	var conds []string
	var args []any
	in := func(col string, n int) string {
		return col + " IN (" + strings.TrimSuffix(strings.Repeat("?,", n), ",") + ")"
	}
	conds = append(conds, in("d.collection_id", len(sc.collIDs)))
	for id := range sc.collIDs {
		args = append(args, id)
	}
	if len(sc.docIDs) > 0 {
		conds = append(conds, in("d.id", len(sc.docIDs)))
		for id := range sc.docIDs {
			args = append(args, id)
		}
	}
	if len(sc.kinds) > 0 {
		conds = append(conds, in("d.kind", len(sc.kinds)))
		for k := range sc.kinds {
			args = append(args, k)
		}
	}
	return strings.Join(conds, " AND "), args
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
// which stems with porter over unicode61, so each quoted word also matches its inflections. A query with CJK text uses the trigram
// index, matching each CJK run by its trigrams (Chinese has no spaces, so words cannot be matched as tokens);
// CJK runs shorter than three characters cannot use the trigram index and fall back to a substring scan.
func (s *Searcher) bm25(ctx context.Context, t terms, sc *scope, depth int) (signal, error) {
	if t.empty() {
		return signal{}, nil
	}
	if ix := s.lex.Load(); len(t.cjk) == 0 && ix != nil {
		if sig, ok, err := s.bm25Memory(ctx, ix, t, sc, depth); err != nil || ok {
			return sig, err
		}
	}
	where, args := sc.filterSQL()
	var query string
	var qargs []any
	switch {
	case len(t.cjk) == 0 && sc.everything:
		// No filter narrows the search: rank in the FTS index alone, without visiting the (large) unit rows.
		query = `SELECT rowid, -bm25(units_fts) FROM units_fts WHERE units_fts MATCH ? ORDER BY bm25(units_fts) LIMIT ?`
		qargs = []any{ftsOr(t.words), depth}
	case len(t.cjk) == 0:
		query = `SELECT units_fts.rowid, -bm25(units_fts) FROM units_fts JOIN units u ON u.id = units_fts.rowid
			JOIN documents d ON d.id = u.document_id WHERE units_fts MATCH ? AND ` + where +
			` ORDER BY bm25(units_fts) LIMIT ?`
		qargs = append(append([]any{ftsOr(t.words)}, args...), depth)
	case !t.hasShortCJK():
		phrases := t.cjkKeys()
		for _, w := range t.words {
			if len([]rune(w)) >= 3 {
				phrases = append(phrases, w)
			}
		}
		query = `SELECT units_fts_cjk.rowid, -bm25(units_fts_cjk) FROM units_fts_cjk
			JOIN units u ON u.id = units_fts_cjk.rowid JOIN documents d ON d.id = u.document_id
			WHERE units_fts_cjk MATCH ? AND ` + where + ` ORDER BY bm25(units_fts_cjk) LIMIT ?`
		qargs = append(append([]any{ftsOr(phrases)}, args...), depth)
	default:
		// Score = number of distinct terms the text contains.
		subs := capTerms(append(append([]string{}, t.cjk...), t.words...), maxScanTerms) // see limits.go
		var sum []string
		for range subs {
			sum = append(sum, "(instr(lower(u.text), ?) > 0)")
		}
		expr := strings.Join(sum, " + ")
		query = `SELECT id, s FROM (SELECT u.id AS id, ` + expr + ` AS s FROM units u JOIN documents d ON d.id = u.document_id
			WHERE ` + where + `) WHERE s > 0 ORDER BY s DESC, id LIMIT ?`
		for _, x := range subs {
			qargs = append(qargs, x)
		}
		qargs = append(append(qargs, args...), depth)
	}
	rows, err := s.kb.DB().QueryContext(ctx, query, qargs...)
	if err != nil {
		return signal{}, fmt.Errorf("search: full-text query: %w", err)
	}
	defer rows.Close()
	var sig signal
	for rows.Next() {
		var id int64
		var score float64
		if err := rows.Scan(&id, &score); err != nil {
			return signal{}, fmt.Errorf("search: full-text row: %w", err)
		}
		sig.ids = append(sig.ids, id)
		sig.scores = append(sig.scores, score)
	}
	if err := rows.Err(); err != nil {
		return signal{}, fmt.Errorf("search: full-text rows: %w", err)
	}
	return sig, nil
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
	where, args := sc.filterSQL()
	rows, err := s.kb.DB().QueryContext(ctx, `SELECT d.id FROM documents d WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("search: documents in scope: %w", err)
	}
	defer rows.Close()
	docs := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("search: documents in scope: %w", err)
		}
		docs[id] = true
	}
	return docs, rows.Err()
}

func (t terms) hasShortCJK() bool {
	for _, r := range t.cjk {
		if len([]rune(r)) < 3 {
			return true
		}
	}
	return false
}
