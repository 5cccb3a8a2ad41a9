package kb

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// TestEncodeWordsMatchesJSON checks that the hand-written encoder writes exactly what encoding/json writes.
func TestEncodeWordsMatchesJSON(t *testing.T) {
	texts := []string{"", "word", "Anh", `"quoted"`, `back\slash`, "<tag>", "a&b", "tab\there", "nl\n", "\x01ctl", "\x7f",
		"é", "中文", "emoji😀", "bad\xffutf8", "\u2028sep", "e-09", "1e21"}
	floats := []float64{0, -0, 1, -1, 0.5, 72.25, 595.2760009765625, 1e-6, 9.99e-7, 1e-9, -3e-8, 1e20, 1e21, 1.5e300,
		math.SmallestNonzeroFloat64, math.MaxFloat64, 123456789.123456789}
	rng := rand.New(rand.NewPCG(1, 2))
	var words []Word
	for i := range 2000 {
		w := Word{Text: texts[i%len(texts)]}
		for k, p := range []*float64{&w.X0, &w.Y0, &w.X1, &w.Y1} {
			if (i+k)%3 == 0 {
				*p = floats[(i*7+k)%len(floats)]
			} else {
				*p = (rng.Float64() - 0.2) * math.Pow(10, float64(rng.IntN(30)-12))
			}
		}
		words = append(words, w)
	}
	for name, ws := range map[string][]Word{"nil": nil, "empty": {}, "one": words[:1], "many": words} {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(ws)
			if err != nil {
				t.Fatal(err)
			}
			got, err := encodeWords(ws)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Fatalf("differs at byte %d: got …%s…, want …%s…", i, got[max(0, i-40):min(len(got), i+40)],
							want[max(0, i-40):min(len(want), i+40)])
					}
				}
				t.Fatalf("got %d bytes, want %d", len(got), len(want))
			}
		})
	}
	if _, err := encodeWords([]Word{{Text: "x", X0: math.NaN()}}); err == nil {
		t.Error("NaN box: no error, want encoding/json's")
	}
}
