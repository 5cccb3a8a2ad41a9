package glove

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"proofglass/backend/glove/internal/tablefmt"
)

// referenceTokens is Tokens as first written (a rune loop over the Unicode classes), against which its ASCII
// shortcut is checked.
func referenceTokens(text string, fn func(tok string)) {
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			fn(string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range text {
		if !tablefmt.IsWordRune(r) {
			flush()
			continue
		}
		cur = append(cur, unicode.ToLower(r))
	}
	flush()
}

// referenceEmbed is Embed with the stop words checked apart from the table lookup, as first written.
func referenceEmbed(t *Table, text string) []float32 {
	v := make([]float32, t.dim)
	n := 0
	referenceTokens(text, func(tok string) {
		if IsStopWord(tok) {
			return
		}
		if i, ok := t.row(tok); ok {
			t.addRow(v, i)
			n++
		}
	})
	return meanUnit(v, n) // the arithmetic is shared; what is checked is which rows are summed
}

func randomText(rng *rand.Rand) string {
	pieces := []string{"The", "revenue", "GREW", "by", "12%", "in", "Q3", "—", "Straße", "ÉCOLE", "naïve", "中文文本", "İstanbul",
		"ǅemal", "x\xffy", "\xe4\xb8", " ", "\n", ",", "R-refman", "don't", "ΣΊΣΥΦΟΣ", "Ⅻ", "٣٤", "e\u0301", "ﬁnance", "ABC123def"}
	var b strings.Builder
	for range rng.IntN(40) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
		if rng.IntN(3) == 0 {
			b.WriteByte(' ')
		}
		if rng.IntN(10) == 0 {
			b.WriteString(string(utf8.AppendRune(nil, rune(rng.IntN(0x3000)))))
		}
	}
	return b.String()
}

// TestTokensMatchesReference checks Tokens, and Embed's single lookup, against the plain rune loop and the
// separate stop-word check on mixed-script, mixed-case and invalid text: same tokens, bit-identical vectors.
func TestTokensMatchesReference(t *testing.T) {
	tab, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 3000 {
		s := randomText(rng)
		var got, want []string
		Tokens(s, func(tok string) { got = append(got, tok) })
		referenceTokens(s, func(tok string) { want = append(want, tok) })
		if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Fatalf("%q:\n got %q\nwant %q", s, got, want)
		}
		gv, wv := tab.Embed(s), referenceEmbed(tab, s)
		for j := range gv {
			if math.Float32bits(gv[j]) != math.Float32bits(wv[j]) {
				t.Fatalf("%q: dimension %d is %v, want %v", s, j, gv[j], wv[j])
			}
		}
	}
}
