package search

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"proofglass/backend/glove"
)

// Passage re-ranking. FTS5 scores a page by its words one at a time: a page that repeats one of the question's
// words scores like a page where all of them stand together, and a long page that holds the question's words in
// scattered places scores like one that answers it in a sentence. A page's best passage tells them apart (Callan,
// "Passage-level evidence in document retrieval", 1994): the BM25 scores of the best candidates are multiplied by
// 1 + λ·share, where share is the part of the question's distinct words, each weighed by its rarity, found in the
// page's best window of passageWidth words. The work is bounded by passageDepth pages whatever the size of the
// knowledge base, and the boost at most doubles a score (λ = 1), so it reorders pages BM25 finds about equally good.
//
// Measured on shared/eval/dev (hybrid): whole collection recall@5 0.646 → 0.672, MRR 0.586 → 0.620, recall@1
// 0.372 → 0.402; per document recall@5 0.767 → 0.782, MRR 0.726 → 0.754. Weighing the words evenly instead of by
// rarity lost it all (0.627), and so did using the whole page as the window (query coverage: 0.650, MRR 0.593).

const (
	// passageDepth is how many of BM25's best units are re-read: 10, 15, 20, 50 and 100 measured within one
	// question of each other on shared/eval/dev, and reading the texts is most of the boost's cost.
	passageDepth = 10
	// passageWidth is the window in words, stop words included: a paragraph, or a few table rows (windows of 45 to
	// 120 words measured within 0.01 of each other).
	passageWidth = 60
)

// queryWords are the question's content words as passages are matched: distinct Porter stems, as the word index
// matches them, each with a rarity weight.
type queryWords struct {
	index  map[string]int // stem → position in weight
	weight []float64
	total  float64
	first  [256]bool // first bytes of the stems (Porter keeps a word's first byte), to skip most page words unstemmed
	pre2   []string  // the stems' first two bytes (a one-byte stem: itself), to stem only words that start alike
}

// wordWeight is a rough inverse document frequency from GloVe's frequency order: by Zipf's law a word's corpus
// frequency falls as 1/rank, so log(rank) grows as its IDF does; words GloVe lacks (names, codes) count as rarest.
// (The word index's statistics stay inside the BM25 engine, and a small collection's are skewed by its longest
// document.)
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
			if p := st[:min(2, len(st))]; !slices.Contains(q.pre2, p) {
				q.pre2 = append(q.pre2, p)
			}
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
	eachToken(text, q.first, func(tok string) {
		pos++
		if tok == "" {
			return // a token that cannot be a question word
		}
		i, ok := cache[tok]
		if !ok {
			i = -1
			if q.mayMatch(tok) {
				if j, in := q.index[stem(tok)]; in {
					i = j
				}
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

// mayMatch reports whether a lower-case token can stem to a question word: Porter rewrites only a word's ending and
// leaves words under three bytes alone, so a stem keeps its word's first two bytes (all but 4 of the 65,536 words of
// the built-in vocabulary: "eed", "eyed", "ied", "ieds", which shrink to one byte or change their second).
func (q *queryWords) mayMatch(tok string) bool {
	for _, p := range q.pre2 {
		if len(p) == 1 && tok == p || len(p) == 2 && len(tok) >= 2 && tok[:2] == p {
			return true
		}
	}
	return false
}

// eachToken calls fn once per word token of text as glove.Tokens cuts them (runs of letters and digits), in order:
// with the token lower-cased when its first letter is one of first, else with "" (no copy, no lower-casing: most of
// a page's words cannot match, and this is the re-ranking's inner loop).
func eachToken(text string, first [256]bool, fn func(tok string)) {
	for i := 0; i < len(text); {
		r, n := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(text[i:])
		}
		if !wordRune(r) {
			i += n
			continue
		}
		start, ascii, upper := i, true, false
		for i < len(text) {
			r, n = rune(text[i]), 1
			if r >= utf8.RuneSelf {
				r, n = utf8.DecodeRuneInString(text[i:])
				ascii = false
			}
			if !wordRune(r) {
				break
			}
			upper = upper || ('A' <= r && r <= 'Z')
			i += n
		}
		tok := text[start:i]
		c := tok[0]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case ascii && !first[c]:
			fn("")
		case ascii && !upper:
			fn(tok)
		default:
			fn(strings.ToLower(tok))
		}
	}
}

func wordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
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
	out, err := s.kb.Search.UnitTexts(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return out, nil
}
