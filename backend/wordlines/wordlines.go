// Package wordlines groups a page's word boxes into lines as a reader sees them: by baseline, left to right.
package wordlines

import (
	"cmp"
	"slices"

	"proofglass/backend/kb"
)

// Lines groups words into lines by their vertical centre: a word joins the line above when its centre is within
// half its height of that line's first word's centre. Each line lists word indices left to right; a word without a
// box (or with no text) is on no line.
func Lines(words []kb.Word) [][]int {
	idx := make([]int, 0, len(words))
	for i, w := range words {
		if w.X1 > w.X0 && w.Y1 > w.Y0 && w.Text != "" {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		wa, wb := words[a], words[b]
		return cmp.Compare(wa.Y0+wa.Y1, wb.Y0+wb.Y1)
	})
	var out [][]int
	lineY := 0.0 // the centre of the current line's first word
	for _, i := range idx {
		w := words[i]
		cy := (w.Y0 + w.Y1) / 2
		if n := len(out); n > 0 && cy-lineY < (w.Y1-w.Y0)*0.5 {
			out[n-1] = append(out[n-1], i)
			continue
		}
		out = append(out, []int{i})
		lineY = cy
	}
	for _, l := range out {
		slices.SortStableFunc(l, func(a, b int) int { return cmp.Compare(words[a].X0, words[b].X0) })
	}
	return out
}

// WideGap reports whether b, right of a on a line, stands more than 1.5 word heights away: the gap between a
// table's cells, wider than any space between the words of a justified line.
func WideGap(a, b kb.Word) bool {
	h := min(a.Y1-a.Y0, b.Y1-b.Y0)
	return b.X0-a.X1 > 1.5*h
}
