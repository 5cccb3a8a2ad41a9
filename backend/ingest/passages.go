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
// gets none. It keeps only the last window's worth of word starts, not every word of the page.
func passageSpans(text string) []span {
	var starts [PassageWords]int // starts[k%PassageWords]: where word k starts, for the last PassageWords words
	var out []span
	n := 0        // words so far
	next := 0     // the word the next window starts at
	lastEnd := -1 // where the last window ended
	start := -1
	word := func(end int) {
		starts[n%PassageWords] = start
		if n == next+PassageWords-1 {
			// The window of words next…n, whether or not more words follow: when n is the last word, the final
			// window (the last PassageWords words) is this one.
			out = append(out, span{starts[next%PassageWords], end})
			next += PassageStride
			lastEnd = end
		}
		n++
	}
	end := 0
	for i, r := range text {
		if unicode.IsSpace(r) {
			if start >= 0 {
				word(i)
				end = i
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		word(len(text))
		end = len(text)
	}
	switch {
	case n == 0:
		return nil
	case n < PassageWords:
		return []span{{starts[0], end}}
	case lastEnd != end:
		out = append(out, span{starts[(n-PassageWords)%PassageWords], end})
	}
	return out
}
