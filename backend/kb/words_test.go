package kb

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestDecodeWordsMatchesEncodingJSON(t *testing.T) {
	texts := []string{"plain", "", `quote"d`, `back\slash`, "<tag>&amp;", "naïve", "中文", "line\nbreak", "\u2028", "tab\t", "😀"}
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		ws := make([]Word, n%7)
		for i := range ws {
			ws[i] = Word{Text: texts[r.IntN(len(texts))], X0: r.Float64() * 600, Y0: -r.Float64(), X1: float64(r.IntN(1000)), Y1: 1e-7 * r.Float64()}
		}
		b, _ := json.Marshal(ws)
		got, err := decodeWords(string(b))
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !reflect.DeepEqual(got, ws) {
			t.Fatalf("%s:\n got %+v\nwant %+v", b, got, ws)
		}
		if _, ok := fastWords(string(b), nil); !ok {
			t.Errorf("fast path refused json.Marshal output %s", b)
		}
	}
	// Other shapes still decode, through encoding/json.
	cases := map[string]struct {
		in   string
		want []Word
	}{
		"keys reordered": {`[{"x0":1,"t":"a","y0":2,"x1":3,"y1":4}]`, []Word{{Text: "a", X0: 1, Y0: 2, X1: 3, Y1: 4}}},
		"spaces":         {`[ {"t": "a", "x0": 1, "y0": 2, "x1": 3, "y1": 4} ]`, []Word{{Text: "a", X0: 1, Y0: 2, X1: 3, Y1: 4}}},
		"missing fields": {`[{"t":"a"}]`, []Word{{Text: "a"}}},
		"empty":          {`[]`, []Word{}},
	}
	for name, c := range cases {
		got, err := decodeWords(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v, %v; want %+v", name, got, err, c.want)
		}
	}
	for _, bad := range []string{`[{"t":"a","x0":1,"y0":2,"x1":3,"y1":4},]`, `[{"t":"a`, `{"t":"a"}`, `[{"t":"a","x0":x,"y0":2,"x1":3,"y1":4}]`} {
		if _, err := decodeWords(bad); err == nil {
			t.Errorf("%s decoded without error", bad)
		}
	}
}

func TestDecodeWordsKeepingIsTheFilteredDecode(t *testing.T) {
	texts := []string{"keep", "drop", `quote"d`, "naïve", "中文", "", "keep too"}
	keep := func(s string) bool { return len(s) > 0 && (s[0] == 'k' || s[0] == 'q' || s[0] >= 0x80) }
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 200 {
		ws := make([]Word, n%9)
		for i := range ws {
			ws[i] = Word{Text: texts[r.IntN(len(texts))], X0: r.Float64() * 600, Y0: -r.Float64(), X1: float64(r.IntN(1000)), Y1: 1e-7 * r.Float64()}
		}
		want := []Word{}
		for _, w := range ws {
			if keep(w.Text) {
				want = append(want, w)
			}
		}
		b, _ := json.Marshal(ws)
		got, err := decodeWordsKeeping(string(b), keep)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %+v, %v\nwant %+v", b, got, err, want)
		}
		// The slow path (another key order) filters alike.
		var generic []map[string]any
		json.Unmarshal(b, &generic)
		gb, _ := json.Marshal(generic) // keys sorted: t comes last
		if got, err := decodeWordsKeeping(string(gb), keep); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s (slow path):\n got %+v, %v\nwant %+v", gb, got, err, want)
		}
	}
}
