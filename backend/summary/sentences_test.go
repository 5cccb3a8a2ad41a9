package summary

import (
	"testing"

	"proofglass/backend/tables"
)

// A sentence does not run across a paragraph break, a page or the rows above it (an e-mail's header table, as
// MuPDF lays message.eml out: word boxes 15.1 high, rows 0.5 apart, the paragraphs 9–11 apart), but it does run
// over wrapped lines that touch.
func TestSentencesStopAtParagraphs(t *testing.T) {
	line := func(page int, y0 float64, text string) pline {
		return pline{page: page, text: text, height: 15.1, box: tables.Box{X0: 22, Y0: y0, X1: 400, Y1: y0 + 15.1}, pw: 595, ph: 842}
	}
	got := sentences([]pline{
		line(1, 118.8, "Cc Bo Chen <bo@example.org>"),
		line(1, 134.5, "Date 14 November 2023 09:30 +0100"),
		line(1, 161.0, "Dear all,"),
		line(1, 185.2, "the review is attached: revenue"),
		line(1, 200.0, "rose 4.2% in Q3."),
		line(2, 40.0, "A line on the next page"),
	})
	want := []string{"Cc Bo Chen <bo@example.org> Date 14 November 2023 09:30 +0100", "Dear all,",
		"the review is attached: revenue rose 4.2% in Q3.", "A line on the next page"}
	if len(got) != len(want) {
		t.Fatalf("%d sentences %+v, want %q", len(got), got, want)
	}
	for i := range want {
		if got[i].text != want[i] {
			t.Errorf("sentence %d: %q, want %q", i, got[i].text, want[i])
		}
	}
	if got[2].box.Y0 != 185.2 || got[2].box.Y1 != 215.1 {
		t.Errorf("the wrapped sentence's box %+v: want both its lines", got[2].box)
	}
}
