package search

import (
	"context"
	"testing"
)

func TestFigureIntentRE(t *testing.T) {
	cases := map[string]struct {
		q    string
		want bool
	}{
		"plotted":     {"How many strategies are plotted for post-hoc correction?", true},
		"image":       {"What's the color of the line in the loss curve image?", true},
		"illustrated": {"Which module is illustrated on the left?", true},
		"chart":       {"Which bar is highest in the chart?", true},
		"plain-text":  {"What degree does Lebour have?", false},
		"figurative":  {"What is the total figured in dollars?", false},
		"plotting":    {"Who is plotting against the king?", false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := figureIntentRE.MatchString(c.q); got != c.want {
				t.Errorf("figureIntentRE on %q = %v, want %v", c.q, got, c.want)
			}
		})
	}
}

func TestAnyCaptionRE(t *testing.T) {
	cases := map[string]struct {
		text string
		want bool
	}{
		"figure":     {"text\nFigure 4: Three post-hoc correction strategies", true},
		"fig-abbrev": {"Fig. 2. A breccia gash", true},
		"ocr-spaced": {"FIG . 3 .\nDiagram", true},
		"sub-figure": {"Figure 2b: detail", true},
		"mention":    {"as shown in Figure 4(a), the model", false},
		"no-number":  {"Figure: none", false},
		"table":      {"Table 1: Results", false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := anyCaptionRE.MatchString(c.text); got != c.want {
				t.Errorf("anyCaptionRE on %q = %v, want %v", c.text, got, c.want)
			}
		})
	}
}

// TestFigureSignal checks that for a question about an unnamed figure, the page holding a captioned figure comes
// before a page BM25 alone prefers, and that a question without figure words is left alone.
func TestFigureSignal(t *testing.T) {
	ctx := context.Background()
	k := openKB(t)
	c := collection(t, k, "f")
	pages := []string{
		"Correction strategies: training-time correction strategies and post-hoc correction strategies are surveyed here.",
		"Figure 4: Three post-hoc correction strategies.",
	}
	addTextPages(t, k, c, "f", pages)
	s := New(k, Options{})
	cases := map[string]struct {
		q      string
		figure float64
		first  int
	}{
		"bm25-alone":     {"How many correction strategies are plotted?", 0, 1},
		"figure-words":   {"How many correction strategies are plotted?", 1, 2},
		"no-figure-word": {"How many correction strategies are there?", 1, 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := s.Search(ctx, Query{Text: tc.q, K: 2, Mode: BM25, Structure: &StructureWeights{Figure: tc.figure}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 || res.Hits[0].Page != tc.first {
				t.Fatalf("hits %+v; want page %d first", res.Hits, tc.first)
			}
		})
	}
}
