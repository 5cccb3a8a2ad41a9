package glove

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"slices"
	"strings"
	"testing"
)

// tableSHA256 is the checksum of data/glove-100d.bin recorded in NOTICE; regenerating the table must update both.
const tableSHA256 = "cd6eabd2348d78a81f9c2155db2f90acb902781a48bc0fcbfadf6f99643b1395"

func table(t testing.TB) *Table {
	t.Helper()
	tb, err := Default()
	if err != nil {
		t.Fatalf("load embedded table: %v", err)
	}
	return tb
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func isZero(v []float32) bool {
	return !slices.ContainsFunc(v, func(x float32) bool { return x != 0 })
}

func TestEmbeddedTable(t *testing.T) {
	sum := sha256.Sum256(tableFile)
	if got := hex.EncodeToString(sum[:]); got != tableSHA256 {
		t.Errorf("embedded table sha256 = %s, want %s (update NOTICE and this test after regenerating)", got, tableSHA256)
	}
	tb := table(t)
	if tb.Dim() != Dim || tb.Len() != 65536 {
		t.Fatalf("table is %d words × %d, want 65536 × %d", tb.Len(), tb.Dim(), Dim)
	}
	// GloVe's order is by corpus frequency; punctuation is dropped by the generator.
	if got := tb.words[:5]; !slices.Equal(got, []string{"the", "of", "to", "and", "in"}) {
		t.Errorf("first words = %v, want the most frequent GloVe words", got)
	}
	v, ok := tb.Vector("the")
	if !ok {
		t.Fatal(`"the" missing`)
	}
	// First value of GloVe 6B 100-d "the" is -0.038194; float16 keeps about 3 significant digits.
	if math.Abs(float64(v[0])+0.038194) > 1e-4 {
		t.Errorf(`"the"[0] = %v, want ≈ -0.038194`, v[0])
	}
}

func TestSimilarityOrdering(t *testing.T) {
	tb := table(t)
	cases := map[string]struct{ a, near, far string }{
		"cat": {"cat", "kitten", "stock"},
		"car": {"car", "truck", "banana"},
		"sentence": {"The kitten slept on the rug.", "A cat rested on the carpet.",
			"Quarterly revenue and stock prices fell."},
		"climate": {"climate change and human health", "global warming effects on disease",
			"object detection with a convolutional backbone"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			a, near, far := tb.Embed(c.a), tb.Embed(c.near), tb.Embed(c.far)
			if cn, cf := cosine(a, near), cosine(a, far); cn <= cf {
				t.Errorf("cos(%q, %q) = %.3f not above cos(%q, %q) = %.3f", c.a, c.near, cn, c.a, c.far, cf)
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	text := "Program-guided reasoning decomposes complex claims into simpler sub-tasks."
	fresh, err := Load(tableFile)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := table(t).Embed(text), table(t).Embed(text), fresh.Embed(text)
	if !slices.Equal(a, b) || !slices.Equal(a, c) {
		t.Errorf("embedding the same text differs between calls or loads")
	}
}

func TestNormalised(t *testing.T) {
	tb := table(t)
	for name, text := range map[string]string{
		"word":      "kitten",
		"sentence":  "The Impacts of Climate Change on Human Health in the United States",
		"mixedcase": "MMDetection TRAINING Pipeline",
		"numbers":   "revenue grew 12 percent in 2023",
		"long":      strings.Repeat("table figure chart evidence page ", 500),
	} {
		t.Run(name, func(t *testing.T) {
			if n := norm(tb.Embed(text)); math.Abs(n-1) > 1e-5 {
				t.Errorf("norm = %v, want 1", n)
			}
		})
	}
}

func TestStopWordsIgnored(t *testing.T) {
	tb := table(t)
	if a, b := tb.Embed("the cat is on the mat"), tb.Embed("cat mat"); !slices.Equal(a, b) {
		t.Errorf("stop words changed the embedding")
	}
	if v := tb.Embed("the of and to which would"); !isZero(v) {
		t.Errorf("a text of only stop words gave a non-zero vector")
	}
}

func TestZeroVector(t *testing.T) {
	tb := table(t)
	for name, text := range map[string]string{
		"empty":       "",
		"punctuation": "--- ... !!! ,,,",
		"chinese":     "视觉文档问答系统检索页面图像",
		"unknown":     "qzxvbnmw xxyyzzqq",
	} {
		t.Run(name, func(t *testing.T) {
			v := tb.Embed(text)
			if len(v) != Dim || !isZero(v) {
				t.Errorf("Embed(%q) = non-zero or wrong length %d, want %d zeros", text, len(v), Dim)
			}
		})
	}
	// Chinese mixed into English text contributes nothing.
	if a, b := tb.Embed("猫 cat 小猫"), tb.Embed("cat"); !slices.Equal(a, b) {
		t.Errorf("Chinese words changed the embedding of mixed text")
	}
}

func TestTokens(t *testing.T) {
	cases := map[string]struct {
		in   string
		want []string
	}{
		"simple":      {"The cat sat.", []string{"the", "cat", "sat"}},
		"hyphen":      {"three-member panel", []string{"three", "member", "panel"}},
		"digits":      {"COVID19 in 2023: 64.3%", []string{"covid19", "in", "2023", "64", "3"}},
		"apostrophe":  {"don't", []string{"don", "t"}},
		"accents":     {"Café RÉSUMÉ", []string{"café", "résumé"}},
		"cjk":         {"中文 text", []string{"中文", "text"}},
		"underscore":  {"snake_case", []string{"snake", "case"}},
		"empty":       {"", nil},
		"invalidutf8": {"ab\xffcd", []string{"ab", "cd"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			Tokens(c.in, func(tok string) { got = append(got, tok) })
			if !slices.Equal(got, c.want) {
				t.Errorf("Tokens(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// pageText is a page-sized English text (about 300 words) for the benchmarks.
var pageText = strings.Repeat("Fact-checking real-world claims often requires collecting multiple pieces of evidence "+
	"and applying complex multi-step reasoning. We present Program-Guided Fact-Checking, a novel fact-checking "+
	"model that decomposes complex claims into simpler sub-tasks that can be solved using a shared library of "+
	"specialized functions. ", 6)

// BenchmarkLoad measures decoding the embedded table (what the first Embed call pays once).
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := Load(tableFile); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEmbedPage reports words embedded per second; BenchmarkTokensPage is its baseline (tokenizing alone),
// and the ratio between their ns/op is the cost of the vector lookups.
func BenchmarkEmbedPage(b *testing.B) {
	tb := table(b)
	words := len(strings.Fields(pageText))
	b.SetBytes(int64(len(pageText)))
	for b.Loop() {
		tb.Embed(pageText)
	}
	b.ReportMetric(float64(words*b.N)/b.Elapsed().Seconds(), "words/s")
}

func BenchmarkTokensPage(b *testing.B) {
	b.SetBytes(int64(len(pageText)))
	n := 0
	for b.Loop() {
		Tokens(pageText, func(string) { n++ })
	}
}

func BenchmarkEmbedQuery(b *testing.B) {
	tb := table(b)
	for b.Loop() {
		tb.Embed("What is the accuracy of the fact-checking model on HOVER?")
	}
}
