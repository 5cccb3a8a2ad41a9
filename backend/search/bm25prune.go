package search

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
)

// DefaultPruneRows is the Options.PruneRows the benchmark measures: how many index rows a word query's phrases may
// match in all before bm25 ranks only the units that hold one of its rarest phrases (see bm25Pruned).
const DefaultPruneRows = 4000

// FTS5's bm25 constants (k1, b): a phrase adds at most idf·(k1+1) to a row's score, however often it occurs.
const bm25K1 = 1.2

// bm25Pruned ranks a word query without scoring every row that matches a common word. FTS5's bm25 cannot stop
// early: ORDER BY … LIMIT still scores and sorts every row matching any phrase, and a query with one common word
// matches a large part of a library. Here the phrases are split by how many rows hold them: the rarest (E), whose
// rows together number a few times depth, and the common rest (C). Rows holding an E phrase get their full score
// from FTS5 itself — `E` alone for rows without a C phrase, `(E) AND (C)` for the others, both sums over each
// phrase once — so their scores equal those of the unpruned query. Rows holding only C phrases are not scored;
// each scores below Σ idf·(k1+1) over C, so the leading rows that score above that bound (exactTop of them,
// logged) are exactly the unpruned ranking's; below them it may miss rows that hold only common words, which the
// dense signals and the document pass still see. ok is false when pruning would not pay (few rows, one phrase, E would be most rows): the caller ranks all.
func (s *Searcher) bm25Pruned(ctx context.Context, words []string, sc *scope, depth int) (sig signal, ok bool, exactTop int, err error) {
	words = capTerms(words, maxFTSPhrases)
	if len(words) < 2 {
		return signal{}, false, 0, nil
	}
	limit := s.opts.PruneRows
	db := s.kb.DB()
	df := make([]int64, len(words))
	var total int64
	for i, w := range words {
		// Counting a phrase's rows walks its doclist without scoring: cheap next to bm25's per-row work.
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM units_fts WHERE units_fts MATCH ?`, ftsOr([]string{w})).Scan(&df[i]); err != nil {
			return signal{}, false, 0, fmt.Errorf("search: count rows of %q: %w", w, err)
		}
		total += df[i]
	}
	if total <= int64(limit) {
		return signal{}, false, 0, nil
	}
	order := make([]int, len(words))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(df[a], df[b]) })
	inE := make([]bool, len(words))
	var rowsE int64
	for _, i := range order {
		if rowsE >= int64(4*depth) {
			break
		}
		inE[i] = true
		rowsE += df[i]
	}
	var e, c []string // in query order, so each sum adds its phrases in the order the unpruned query would
	var cdf []int64
	for i, w := range words {
		if inE[i] {
			e = append(e, w)
		} else {
			c = append(c, w)
			cdf = append(cdf, df[i])
		}
	}
	if len(c) == 0 || 2*rowsE > total {
		return signal{}, false, 0, nil
	}
	score := map[int64]float64{}
	for _, match := range []string{ftsOr(e), "(" + ftsOr(e) + ") AND (" + ftsOr(c) + ")"} {
		part, err := s.bm25Rows(ctx, match, sc)
		if err != nil {
			return signal{}, false, 0, err
		}
		for i, id := range part.ids {
			score[id] = part.scores[i] // the second query's full score replaces the first's E-only one
		}
	}
	for id, sc := range score {
		sig.ids = append(sig.ids, id)
		sig.scores = append(sig.scores, sc)
	}
	idx := make([]int, len(sig.ids))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(sig.scores[b], sig.scores[a]), cmp.Compare(sig.ids[a], sig.ids[b]))
	})
	idx = idx[:min(len(idx), depth)]
	out := signal{ids: make([]int64, len(idx)), scores: make([]float64, len(idx))}
	for i, j := range idx {
		out.ids[i], out.scores[i] = sig.ids[j], sig.scores[j]
	}
	bound, err := s.commonBound(ctx, cdf)
	if err != nil {
		return signal{}, false, 0, err
	}
	for exactTop < len(out.ids) && out.scores[exactTop] > bound {
		exactTop++
	}
	slog.Debug("search: bm25 pruned", "rows", total, "scored", rowsE, "rare", len(e), "common", len(c), "exact_top", exactTop)
	return out, true, exactTop, nil
}

// commonBound is an upper bound on the score of a row that holds only the common phrases: each adds less than
// idf·(k1+1), with idf = ln((N − n + 0.5)/(n + 0.5)) as FTS5 computes it (at least 1e-6), and N taken as the
// largest unit id, which is at least the number of rows.
func (s *Searcher) commonBound(ctx context.Context, dfs []int64) (float64, error) {
	var n int64
	if err := s.kb.DB().QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM units`).Scan(&n); err != nil {
		return 0, fmt.Errorf("search: count units: %w", err)
	}
	var b float64
	for _, d := range dfs {
		idf := math.Log((float64(n) - float64(d) + 0.5) / (float64(d) + 0.5))
		b += max(idf, 1e-6) * (bm25K1 + 1)
	}
	return b * (1 + 1e-9), nil
}

// bm25Rows scores every unit in scope that matches an FTS5 expression.
func (s *Searcher) bm25Rows(ctx context.Context, match string, sc *scope) (signal, error) {
	if sc.everything {
		return s.bm25Query(ctx, `SELECT rowid, -bm25(units_fts) FROM units_fts WHERE units_fts MATCH ?`, []any{match})
	}
	where, args := sc.filterSQL()
	return s.bm25Query(ctx, `SELECT units_fts.rowid, -bm25(units_fts) FROM units_fts JOIN units u ON u.id = units_fts.rowid
		JOIN documents d ON d.id = u.document_id WHERE units_fts MATCH ? AND `+where, append([]any{match}, args...))
}
