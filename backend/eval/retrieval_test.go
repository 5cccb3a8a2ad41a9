package eval

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func devDataset(t *testing.T) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "eval", "dev", "questions.jsonl")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("dev dataset %s not found: %v", p, err)
	}
	return p
}

func TestReadDevQuestions(t *testing.T) {
	qs, err := ReadQuestions(devDataset(t))
	if err != nil {
		t.Fatal(err)
	}
	// Figures stated in shared/eval/README.md.
	withEvidence, sources := 0, map[string]int{}
	for _, q := range qs {
		if len(q.EvidencePages) > 0 {
			withEvidence++
		}
		for _, s := range q.EvidenceSources {
			sources[s]++
		}
	}
	if len(qs) != 66 || withEvidence != 54 {
		t.Errorf("%d questions, %d with evidence; want 66 and 54", len(qs), withEvidence)
	}
	if sources["Pure-text (Plain-text)"] != 31 || sources["Table"] != 16 {
		t.Errorf("evidence sources %v", sources)
	}
}

func TestReadQuestionsRejects(t *testing.T) {
	cases := map[string]string{
		"not-json":    "{nope\n",
		"missing-doc": `{"id":"a","question":"q"}` + "\n",
		"zero-page":   `{"id":"a","question":"q","doc":"d.pdf","evidence_pages":[0]}` + "\n",
		"empty":       "\n\n",
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "q.jsonl")
			if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadQuestions(p); err == nil {
				t.Error("accepted a bad dataset")
			}
		})
	}
}

func TestScorePages(t *testing.T) {
	p := func(doc string, n int) PageRef { return PageRef{doc, n} }
	ln := func(i int) float64 { return 1 / math.Log2(float64(i)+1) }
	cases := map[string]struct {
		ranked, rel []PageRef
		want        PageScores
	}{
		"first": {[]PageRef{p("a", 3), p("a", 1)}, []PageRef{p("a", 3)}, PageScores{1, 1, 1, 1, 1, 1, 1, 1}},
		"third-of-two": {[]PageRef{p("a", 1), p("b", 2), p("a", 2), p("x", 1), p("x", 2), p("a", 9)},
			[]PageRef{p("a", 2), p("a", 9)},
			PageScores{0, 0.5, 1, 1.0 / 3, ln(3) / (ln(1) + ln(2)), 0, 1, 1}},
		"other-doc-same-page": {[]PageRef{p("b", 2)}, []PageRef{p("a", 2)}, PageScores{}},
		"beyond-10": {append(make([]PageRef, 0), p("x", 1), p("x", 2), p("x", 3), p("x", 4), p("x", 5), p("x", 6),
			p("x", 7), p("x", 8), p("x", 9), p("x", 10), p("a", 1)), []PageRef{p("a", 1)}, PageScores{}},
		"duplicates-count-once": {[]PageRef{p("x", 1), p("x", 1), p("a", 1)}, []PageRef{p("a", 1)},
			PageScores{0, 1, 1, 0.5, ln(2), 0, 1, 1}},
		"no-evidence": {[]PageRef{p("a", 1)}, nil, PageScores{}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := ScorePages(c.ranked, c.rel)
			g := []float64{got.Recall1, got.Recall5, got.Recall10, got.MRR10, got.NDCG5, got.Hit1, got.Hit5, got.Hit10}
			w := []float64{c.want.Recall1, c.want.Recall5, c.want.Recall10, c.want.MRR10, c.want.NDCG5, c.want.Hit1,
				c.want.Hit5, c.want.Hit10}
			for i := range g {
				if math.Abs(g[i]-w[i]) > 1e-12 {
					t.Errorf("ScorePages = %+v, want %+v", got, c.want)
					break
				}
			}
		})
	}
}

func TestEvaluateRetrieval(t *testing.T) {
	qs := []Question{
		{ID: "1", Question: "q1", Doc: "a.pdf", EvidencePages: []int{2}, EvidenceSources: []string{"Table", "Chart"}},
		{ID: "2", Question: "q2", Doc: "b.pdf", EvidencePages: []int{1}, EvidenceSources: []string{"Table"}},
		{ID: "3", Question: "q3", Doc: "a.pdf"},
	}
	// "good" always ranks the evidence first; "bad" never finds it.
	retrieve := func(_ context.Context, q Question, mode string) ([]PageRef, error) {
		if mode == "good" {
			return []PageRef{{q.Doc, q.EvidencePages[0]}}, nil
		}
		return []PageRef{{"zzz.pdf", 1}}, nil
	}
	r, err := EvaluateRetrieval(context.Background(), qs, []string{"good", "bad"}, retrieve)
	if err != nil {
		t.Fatal(err)
	}
	if r.Questions != 2 || r.Skipped != 1 {
		t.Errorf("scored %d, skipped %d", r.Questions, r.Skipped)
	}
	if g, b := r.Overall["good"], r.Overall["bad"]; g.N != 2 || g.Recall5 != 1 || g.MRR10 != 1 || b.Recall10 != 0 {
		t.Errorf("overall good %+v bad %+v", g, b)
	}
	if r.BySource["Table"]["good"].N != 2 || r.BySource["Chart"]["good"].N != 1 {
		t.Errorf("by source %+v", r.BySource)
	}
	var sb strings.Builder
	if err := r.WriteTable(&sb); err != nil {
		t.Fatal(err)
	}
	if g := r.Overall["good"]; g.Hit1 != 1 || g.Hit10 != 1 || r.Overall["bad"].Hit10 != 0 {
		t.Errorf("hit rates good %+v bad %+v", g, r.Overall["bad"])
	}
	for _, want := range []string{"overall", "Table", "Chart", "R@5", "Hit@5", "1.000", "2 questions scored"} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, sb.String())
		}
	}
}
