package glove

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestTokenizedEmbedIsEmbed checks that a window of a tokenized text embeds bit for bit as the window's own text:
// windows at word boundaries (as passages are), windows that cut a word or a multi-byte character in two, empty
// and whole ones, over English with capitals, stop words and unknown words, accented and Chinese text, and bytes
// that are not UTF-8.
func TestTokenizedEmbedIsEmbed(t *testing.T) {
	tab, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"The Linear Model fits COEFFICIENTS by least squares; see lm() and glm(), p-values < 0.05.",
		"Naïve café résumé — Ünïcödé words, ÉCOLE and école; 中文 数字 视觉文档问答 mixed with English text.",
		"bad\xffbytes in\xe4\xb8 the middle of wo\xe4\xb8\xadrds and catalog cat dog",
		"",
		strings.Repeat("regression analysis of variance with Data Frames ", 40),
	}
	// A page of real text as well, when the shared test data is there.
	_, file, _, _ := runtime.Caller(0)
	if b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "reference", "vrag.md")); err == nil {
		texts = append(texts, string(b[:min(len(b), 20000)]))
	}
	r := rand.New(rand.NewPCG(3, 4))
	same := func(a, b []float32) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
				return false
			}
		}
		return true
	}
	for n, text := range texts {
		d := tab.Tokenize(text)
		var bounds []int // word starts and ends, as passage windows use
		for i := 0; i <= len(text); i++ {
			if i == 0 || i == len(text) || (text[i-1] == ' ') != (text[i] == ' ') {
				bounds = append(bounds, i)
			}
		}
		check := func(s, e int) {
			if got, want := d.Embed(s, e), tab.Embed(text[s:e]); !same(got, want) {
				t.Fatalf("text %d, window %d:%d (%q): Tokenized.Embed differs from Embed", n, s, e, text[s:e])
			}
		}
		check(0, len(text))
		for range 300 {
			a, b := r.IntN(len(text)+1), r.IntN(len(text)+1)
			check(min(a, b), max(a, b))
			a, b = bounds[r.IntN(len(bounds))], bounds[r.IntN(len(bounds))]
			check(min(a, b), max(a, b))
		}
	}
}
