package server

import (
	"math"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// The parsers run before any work: whatever they accept must be inside the documented limits.

func FuzzParseSearchPOST(f *testing.F) {
	for _, s := range []string{`{"queries":["a"],"top_k":3}`, `{"queries":[]}`, `{"queries":["", " "],"vrag_ret":true}`,
		`{"queries":["x"],"search_corpus":["a","b"]}`, `{"queries":null}`, `{"queries":["a"],"top_k":-1}`, `[]`, `{`,
		`{"queries":["a"],"top_k":1e309}`, `{"queries":["a"]}{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := parseSearchPOST(body)
		if err != nil {
			return
		}
		checkSearchParams(t, p)
	})
}

func FuzzParseSearchGET(f *testing.F) {
	for _, s := range []string{"queries=a&queries=b", "queries=&top_k=5", "top_k=0&queries=a", "queries=a&mode=dense",
		"queries=%ff%fe", "queries=a&top_k=99999999999999999999", "queries=a&search_corpus=docs"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		p, err := parseSearchGET(q)
		if err != nil {
			return
		}
		checkSearchParams(t, p)
	})
}

func checkSearchParams(t *testing.T, p searchParams) {
	if p.TopK < 1 || p.TopK > MaxTopK || len(p.Queries)*p.TopK > MaxPagesPerRequest {
		t.Fatalf("accepted top_k %d with %d queries", p.TopK, len(p.Queries))
	}
	for _, q := range p.Queries {
		if utf8.RuneCountInString(q) > MaxQueryRunes || len(strings.Fields(q)) > MaxQueryTerms || !utf8.ValidString(q) {
			t.Fatalf("query not cut: %d runes, %d terms", utf8.RuneCountInString(q), len(strings.Fields(q)))
		}
	}
}

func FuzzParseImageParams(f *testing.F) {
	for _, s := range [][2]string{{"1", "region=0,0,10,10"}, {"7", "region=0,0,4294967296,4294967296"},
		{"3", "region=NaN,0,1,1"}, {"3", "region=0,0,Inf,1"}, {"-1", ""}, {"2", "max_pixels=0"}, {"2", "region=1e-320,0,1e-310,1"},
		{"9", "region=5,5,5,9&max_pixels=100"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, id, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		p, err := parseImageParams(id, q)
		if err != nil {
			return
		}
		r := p.Region
		for _, v := range []float64{r.X0, r.Y0, r.X1, r.Y1} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > maxRegionCoord {
				t.Fatalf("accepted region %+v", r)
			}
		}
		if r != (p.Region) || (r.X1 != 0 && !(r.X1 > r.X0 && r.Y1 > r.Y0)) {
			t.Fatalf("accepted empty region %+v", r)
		}
		if p.UnitID <= 0 || p.MaxPixels < 1 || p.MaxPixels > maxImagePixels {
			t.Fatalf("accepted %+v", p)
		}
	})
}

func FuzzParseAsk(f *testing.F) {
	for _, s := range []string{`{"question":"q","mode":"vrag"}`, `{"question":" "}`, `{"question":"q","mode":"nope"}`, `{}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		req, err := parseAsk(strings.NewReader(body), "vrag")
		if err != nil {
			return
		}
		switch req.Mode {
		case "vrag", "vimrag", "vanilla", "react":
		default:
			t.Fatalf("accepted mode %q", req.Mode)
		}
		if strings.TrimSpace(req.Question) == "" || len(req.Question) > maxQuestionBytes {
			t.Fatalf("accepted question of %d bytes", len(req.Question))
		}
	})
}

func TestCutQuery(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"short":        {"blood  loss", "blood loss"},
		"many terms":   {strings.Repeat("a ", 100), strings.TrimSpace(strings.Repeat("a ", MaxQueryTerms))},
		"one long run": {strings.Repeat("出", 2000), strings.Repeat("出", MaxQueryRunes)},
		"invalid utf8": {"a\xffb", "a\uFFFDb"},
	}
	for name, c := range cases {
		if got := CutQuery(c.in); got != c.want {
			t.Errorf("%s: %q", name, got)
		}
	}
}
