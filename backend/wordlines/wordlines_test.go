package wordlines

import (
	"testing"

	"proofglass/backend/kb"
)

func TestLines(t *testing.T) {
	w := func(s string, x, y float64) kb.Word {
		return kb.Word{Text: s, X0: x, Y0: y, X1: x + 5*float64(len(s)), Y1: y + 10}
	}
	words := []kb.Word{
		w("1,084", 330, 101), // a cell a point lower than its label: the same line
		w("Net", 60, 100), w("income", 82, 100),
		w("Revenue", 60, 86),
		{Text: "unboxed"},
		w("2023", 330, 60),
	}
	lines := Lines(words)
	var got [][]string
	for _, l := range lines {
		var s []string
		for _, i := range l {
			s = append(s, words[i].Text)
		}
		got = append(got, s)
	}
	want := [][]string{{"2023"}, {"Revenue"}, {"Net", "income", "1,084"}}
	if len(got) != len(want) {
		t.Fatalf("lines %q, want %q", got, want)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("line %d %q, want %q", i, got[i], want[i])
		}
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Errorf("line %d %q, want %q", i, got[i], want[i])
			}
		}
	}
	if WideGap(words[1], words[2]) || !WideGap(words[2], words[0]) {
		t.Error("the space between words is no gap; the space before a cell is")
	}
}
