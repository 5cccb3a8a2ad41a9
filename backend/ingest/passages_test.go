package ingest

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// TestPassageSpansAsBefore checks passageSpans against the version that kept every word (referencePassageSpans,
// as it was): texts of 0 to 300 words around every window boundary, with runs of spaces, tabs, newlines, Unicode
// spaces, leading and trailing space.
func TestPassageSpansAsBefore(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	seps := []string{" ", "  ", "\n", "\t", "\u00a0", "\u3000", " \n "}
	words := []string{"a", "word", "naïve", "中文", "x1", "—", "end."}
	for n := 0; n <= 300; n++ {
		for rep := range 3 {
			var b strings.Builder
			if rep == 1 {
				b.WriteString(" ")
			}
			for i := range n {
				if i > 0 {
					b.WriteString(seps[r.IntN(len(seps))])
				}
				b.WriteString(words[r.IntN(len(words))])
			}
			if rep == 2 {
				b.WriteString("\n ")
			}
			text := b.String()
			if got, want := passageSpans(text), referencePassageSpans(text); !reflect.DeepEqual(got, want) {
				t.Fatalf("%d words (%q…): spans %v, want %v", n, text[:min(len(text), 40)], got, want)
			}
		}
	}
}

// referencePassageSpans is passageSpans as it was before it stopped keeping every word's span.
func referencePassageSpans(text string) []span {
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
