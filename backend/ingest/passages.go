package ingest

import "unicode"

// Passage windows. A page is embedded as overlapping windows of its words as well as whole, and search scores the
// page by its best window: a mean-pooled vector of a whole page blurs every topic on it into one direction, while
// a question is usually about one part. 64 words with a half-window stride is the length of a paragraph (the size
// passage retrievers index) and ensures every run of up to 32 words lies whole inside some window.
const (
	PassageWords  = 64
	PassageStride = PassageWords / 2
)

// span is a passage's byte range in the unit's text.
type span struct{ start, end int }

// passageSpans splits text into windows of PassageWords whitespace-separated words, PassageStride apart, the last
// one ending at the last word (so no window is short, except the only one of a short text). Text without words
// gets none.
func passageSpans(text string) []span {
	words := make([]span, 0, len(text)/6+1) // about a word per six bytes of English: no regrowing
	start := -1
	for i, r := range text {
		if unicode.IsSpace(r) {
			if start >= 0 {
				words = append(words, span{start, i})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		words = append(words, span{start, len(text)})
	}
	n := len(words)
	if n == 0 {
		return nil
	}
	if n <= PassageWords {
		return []span{{words[0].start, words[n-1].end}}
	}
	var out []span
	for st := 0; ; st += PassageStride {
		if st+PassageWords >= n {
			st = n - PassageWords
			out = append(out, span{words[st].start, words[n-1].end})
			return out
		}
		out = append(out, span{words[st].start, words[st+PassageWords-1].end})
	}
}
