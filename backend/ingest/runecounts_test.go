package ingest

import (
	"testing"
	"unicode"
)

// TestRuneCountsASCIIAsUnicode checks runeCounts' ASCII shortcut against the Unicode classes it stands for.
func TestRuneCountsASCIIAsUnicode(t *testing.T) {
	for r := rune(0); r < 0x80; r++ {
		var good, bad int
		switch {
		case unicode.IsControl(r) && !unicode.IsSpace(r):
			bad = 1
		case unicode.IsLetter(r), unicode.IsDigit(r):
			good = 1
		}
		if g, b := runeCounts(string(r)); g != good || b != bad {
			t.Errorf("%q: good %d bad %d, want %d %d", r, g, b, good, bad)
		}
	}
	if g, b := runeCounts("Größe 42\x01\ufffd"); g != 7 || b != 2 {
		t.Errorf("mixed text: good %d bad %d, want 7 2", g, b)
	}
}
