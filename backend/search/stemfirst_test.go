package search

import (
	"testing"

	"proofglass/backend/glove"
)

// TestStemKeepsFirstByte checks what matchBoxes relies on to skip stemming most words: Porter rewrites suffixes
// only, so a word's stem starts with the word's first byte. Every word of the built-in vocabulary is tried.
func TestStemKeepsFirstByte(t *testing.T) {
	tb, err := glove.Default()
	if err != nil {
		t.Fatal(err)
	}
	extra := []string{"ies", "sses", "eed", "ability", "relational", "organization", "happy", "sky", "y", "yes"}
	n := 0
	check := func(w string) {
		if w == "" {
			return
		}
		n++
		if s := stem(w); s == "" || s[0] != w[0] {
			t.Errorf("stem(%q) = %q: first byte changed", w, s)
		}
	}
	for i := range tb.Len() {
		check(tb.Word(i))
	}
	for _, w := range extra {
		check(w)
	}
	if n < 1000 {
		t.Fatalf("only %d words tried", n)
	}
}
