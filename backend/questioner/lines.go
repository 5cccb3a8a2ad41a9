package questioner

import (
	"strings"
	"unicode/utf8"

	"proofglass/backend/kb"
	"proofglass/backend/wordlines"
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

// pageLines groups word boxes into lines (backend/wordlines), left to right, without the words of no text.
func pageLines(words []kb.Word) []line {
	var out []line
	for _, l := range wordlines.Lines(words) {
		var ln line
		for _, i := range l {
			if strings.TrimSpace(words[i].Text) != "" {
				ln.words = append(ln.words, words[i])
			}
		}
		if len(ln.words) > 0 {
			w := ln.words[0]
			ln.y = (w.Y0 + w.Y1) / 2
			out = append(out, ln)
		}
	}
	return out
}

// wideGap is the gap that parts a table's cells (wordlines.WideGap).
func wideGap(a, b kb.Word) bool { return wordlines.WideGap(a, b) }

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
