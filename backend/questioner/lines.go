package questioner

import (
	"slices"
	"strings"
	"unicode/utf8"

	"proofglass/backend/kb"
)

// line is a run of a page's words on one baseline, left to right.
type line struct {
	words []kb.Word
	y     float64 // the vertical centre of its first word
}

// segment is a run of a line's words with no wide gap inside: a table cell, a label, or a column of text.
type segment struct {
	words  []kb.Word
	x0, x1 float64
}

func (s segment) text() string {
	parts := make([]string, len(s.words))
	for i, w := range s.words {
		parts[i] = w.Text
	}
	return joinWords(parts)
}

// pageLines groups word boxes into lines by their vertical centre: a word joins the line above when its centre is
// within half its height of that line's.
func pageLines(words []kb.Word) []line {
	ws := slices.Clone(words)
	slices.SortStableFunc(ws, func(a, b kb.Word) int {
		return cmpFloat(a.Y0+a.Y1, b.Y0+b.Y1)
	})
	var out []line
	for _, w := range ws {
		if w.X1 <= w.X0 || w.Y1 <= w.Y0 || strings.TrimSpace(w.Text) == "" {
			continue
		}
		cy := (w.Y0 + w.Y1) / 2
		if n := len(out); n > 0 && cy-out[n-1].y < (w.Y1-w.Y0)*0.5 {
			out[n-1].words = append(out[n-1].words, w)
			continue
		}
		out = append(out, line{words: []kb.Word{w}, y: cy})
	}
	for _, l := range out {
		slices.SortStableFunc(l.words, func(a, b kb.Word) int { return cmpFloat(a.X0, b.X0) })
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// wideGap is the gap that parts a table's cells: more than 1.5 word heights, wider than any space between the
// words of a justified line.
func wideGap(a, b kb.Word) bool {
	h := min(a.Y1-a.Y0, b.Y1-b.Y0)
	return b.X0-a.X1 > 1.5*h
}

// segments splits a line at its wide gaps.
func (l line) segments() []segment {
	var out []segment
	for i, w := range l.words {
		if i == 0 || wideGap(l.words[i-1], w) {
			out = append(out, segment{x0: w.X0})
		}
		s := &out[len(out)-1]
		s.words = append(s.words, w)
		s.x1 = max(s.x1, w.X1)
	}
	return out
}

// height is the line's tallest word.
func (l line) height() float64 {
	h := 0.0
	for _, w := range l.words {
		h = max(h, w.Y1-w.Y0)
	}
	return h
}

func (l line) text() string {
	return segment{words: l.words}.text()
}

// joinWords joins a line's words with spaces, but Chinese characters, which the text layer gives one word each,
// without, as Chinese writes them ("2023年").
func joinWords(ws []string) string {
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			last, _ := utf8.DecodeLastRuneInString(ws[i-1])
			first, _ := utf8.DecodeRuneInString(w)
			if !isCJK(last) && !isCJK(first) {
				b.WriteByte(' ')
			}
		}
		b.WriteString(w)
	}
	return b.String()
}
