package search

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"loupe/backend/glove"
)

// Passage re-ranking. FTS5 scores a page by its words one at a time: a page that repeats one of the question's
// words scores like a page where all of them stand together, and a long page that holds the question's words in
// scattered places scores like one that answers it in a sentence. A page's best passage tells them apart (Callan,
// "Passage-level evidence in document retrieval", 1994): the BM25 scores of the best candidates are multiplied by
// 1 + λ·share, where share is the part of the question's distinct words, each weighed by its rarity, found in the
// page's best window of passageWidth words. The work is bounded by passageDepth pages whatever the size of the
// knowledge base, and the boost at most doubles a score (λ = 1), so it reorders pages BM25 finds about equally good.
//
// Measured on shared/eval/dev (whole collection, hybrid): recall@5 0.646 → 0.666, recall@10 0.727 → 0.733, MRR
// 0.586 → 0.606; per document recall@5 0.767 → 0.791. Weighing words evenly instead of by rarity lost it all
// (0.627), and so did windows of the whole page (query coverage, 0.650).

const (
	// passageDepth is how many of BM25's best units are re-read.
	passageDepth = 50
	// passageWidth is the window, in words other than stop words: a few lines of prose or table rows.
	passageWidth = 30
)

// queryWords are the question's content words as passages are matched: distinct Porter stems, as the word index
// matches them, each with a rarity weight.
type queryWords struct {
	index  map[string]int // stem → position in weight
	weight []float64
	total  float64
	first  [256]bool // first bytes of the stems (Porter keeps a word's first byte), to skip most page words unstemmed
}

// wordWeight is a rough inverse document frequency from GloVe's frequency order: by Zipf's law a word's corpus
// frequency falls as 1/rank, so log(rank) grows as its IDF does; words GloVe lacks (names, codes) count as rarest.
// The word index's own statistics are the BM25 engine's, and a single collection's are skewed by its longest
// document.
func wordWeight(tb *glove.Table, w string) float64 {
	r, ok := tb.Rank(w)
	if !ok {
		r = 2 * tb.Len()
	}
	return math.Log(2 + float64(r))
}

func newQueryWords(text string) (queryWords, error) {
	tb, err := glove.Default()
	if err != nil {
		return queryWords{}, fmt.Errorf("search: %w", err)
	}
	q := queryWords{index: map[string]int{}}
	glove.Tokens(text, func(tok string) {
		if glove.IsStopWord(tok) {
			return
		}
		splitCJK(tok, func(part string, cjk bool) {
			if cjk {
				return // CJK text has no words to window over
			}
			st := stem(part)
			if _, ok := q.index[st]; ok {
				return
			}
			q.index[st] = len(q.weight)
			w := wordWeight(tb, part)
			q.weight = append(q.weight, w)
			q.total += w
			q.first[st[0]] = true
		})
	})
	return q, nil
}

// passageShare returns the weighted share (0 to 1) of the question's distinct words that the text's best window of
// passageWidth words holds. cache maps page tokens to a stem position (-1: not a question word) across texts.
func (q *queryWords) passageShare(text string, cache map[string]int) float64 {
	if q.total == 0 {
		return 0
	}
	type hit struct{ pos, word int }
	var hits []hit
	pos := 0
	glove.Tokens(text, func(tok string) {
		if glove.IsStopWord(tok) {
			return
		}
		pos++
		if !q.first[tok[0]] {
			return
		}
		i, ok := cache[tok]
		if !ok {
			i = -1
			if j, in := q.index[stem(tok)]; in {
				i = j
			}
			cache[tok] = i
		}
		if i >= 0 {
			hits = append(hits, hit{pos, i})
		}
	})
	// Slide a window over the matches, counting each question word once however often it recurs inside.
	count := make([]int, len(q.weight))
	var cur, best float64
	lo := 0
	for _, h := range hits {
		if count[h.word] == 0 {
			cur += q.weight[h.word]
		}
		count[h.word]++
		for hits[lo].pos <= h.pos-passageWidth {
			if count[hits[lo].word]--; count[hits[lo].word] == 0 {
				cur -= q.weight[hits[lo].word]
			}
			lo++
		}
		best = math.Max(best, cur)
	}
	return best / q.total
}

// passageRerank multiplies the scores of the first passageDepth units of a BM25 list by 1 + lambda·share and
// re-sorts them. Lists with non-positive scores (not BM25's) and questions without Latin-script words pass through.
func (s *Searcher) passageRerank(ctx context.Context, sig signal, text string, lambda float64) (signal, error) {
	n := min(len(sig.ids), passageDepth)
	if lambda <= 0 || n == 0 || slices.ContainsFunc(sig.scores[:n], func(x float64) bool { return x <= 0 }) {
		return sig, nil
	}
	q, err := newQueryWords(text)
	if err != nil || q.total == 0 {
		return sig, err
	}
	texts, err := s.unitTexts(ctx, sig.ids[:n])
	if err != nil {
		return sig, err
	}
	type scored struct {
		id    int64
		score float64
	}
	head := make([]scored, n)
	cache := map[string]int{}
	for i, id := range sig.ids[:n] {
		head[i] = scored{id, sig.scores[i] * (1 + lambda*q.passageShare(texts[id], cache))}
	}
	// Stable: equal scores keep BM25's order. Units past the head score at most the head's lowest raw score, which
	// no boost lowers, so they stay behind it.
	slices.SortStableFunc(head, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	out := signal{ids: slices.Clone(sig.ids), scores: slices.Clone(sig.scores)}
	for i, h := range head {
		out.ids[i], out.scores[i] = h.id, h.score
	}
	return out, nil
}

// unitTexts loads the text of the given units.
func (s *Searcher) unitTexts(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(len(ids), start+500)]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := s.kb.DB().QueryContext(ctx, `SELECT id, text FROM units WHERE id IN (`+placeholders(len(chunk))+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("search: unit text: %w", err)
		}
		for rows.Next() {
			var id int64
			var t string
			if err := rows.Scan(&id, &t); err != nil {
				rows.Close()
				return nil, fmt.Errorf("search: unit text: %w", err)
			}
			out[id] = t
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("search: unit text: %w", err)
		}
	}
	return out, nil
}
