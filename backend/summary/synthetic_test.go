package summary

import (
	"strings"
	"testing"

	"proofglass/backend/kb"
)

// page lays out lines of text on an A4 page: each line's words at the given size, one under the other from y.
func page(n int, y float64, lines ...struct {
	size float64
	text string
}) kb.Unit {
	u := kb.Unit{DocumentID: 1, Ordinal: n, Kind: kb.UnitPage, Width: 595, Height: 842}
	for _, l := range lines {
		x := 72.0
		for _, w := range strings.Fields(l.text) {
			width := float64(len(w)) * l.size * 0.5
			u.Words = append(u.Words, kb.Word{Text: w, X0: x, Y0: y, X1: x + width, Y1: y + l.size})
			x += width + l.size*0.3
		}
		y += l.size * 1.4
	}
	return u
}

type ln = struct {
	size float64
	text string
}

func body(n int) []ln {
	out := make([]ln, n)
	for i := range out {
		out[i] = ln{10, "the plain running text of the report goes on here without any figure in it at all"}
	}
	return out
}

// Key figures come from the first pages and from an executive summary further in, not from the pages after it.
func TestKeyFiguresOfASummarySection(t *testing.T) {
	var units []kb.Unit
	for n := 1; n <= 9; n++ {
		lines := body(20)
		switch n {
		case 5:
			lines = append([]ln{{16, "Executive Summary"}, {10, "Revenue grew 12% to $4.1 billion in 2023, the best year on record."}}, lines...)
		case 9:
			lines = append(lines, ln{10, "Costs fell by 3.5% in the second half of the year."})
		}
		units = append(units, page(n, 100, lines...))
	}
	g := FromUnits(units)
	var found []string
	for _, k := range g.KeyFigures {
		found = append(found, k.Figure)
		if k.Figure == "12%" && (k.Page != 5 || k.Region == nil) {
			t.Errorf("key figure %+v, want page 5 with its region", k)
		}
	}
	if len(found) != 1 || found[0] != "12%" {
		t.Errorf("key figures %v, want the executive summary's 12%% only", found)
	}
	if len(g.Sections) != 1 || g.Sections[0].Title != "Executive Summary" || g.Sections[0].Page != 5 {
		t.Errorf("sections %+v", g.Sections)
	}
}
