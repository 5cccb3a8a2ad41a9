package eval

import (
	"bytes"
	"encoding/xml"
	"os"
	"strings"
	"testing"
)

func TestReportHTMLSelfContained(t *testing.T) {
	qs := []Question{
		{ID: "q1", Question: "What <b>is</b> it?", Answer: "M.A.", AnswerFormat: "Str", EvidencePages: []int{1},
			EvidenceSources: []string{"Table"}, Doc: "a.pdf"},
		{ID: "q2", Question: "How many?", Answer: "3", AnswerFormat: "Int", EvidencePages: []int{2},
			EvidenceSources: []string{"Pure-text (Plain-text)", "Chart"}, Doc: "a.pdf"},
	}
	items := []ItemResult{
		{QuestionID: "q1", Mode: "vrag", RunID: 11, Status: "answered", Answer: "M.A.", Short: "M.A.", Score: 1, Judge: 1,
			Format: 1, NDCG: 1, Reward: 1, Shown: []string{"a_1"}, Cost: Cost{ModelCalls: 2, PromptTokens: 900, Steps: 1},
			Calls: []Call{answeredCall()}},
		{QuestionID: "q2", Mode: "vrag", RunID: 12, Status: "answered", Answer: "<script>alert(1)</script>", Short: "x",
			Format: 1, Reward: 0.1, Shown: []string{"a_5"}, Cost: Cost{ModelCalls: 3, PromptTokens: 1500, Steps: 2}},
		{QuestionID: "q1", Mode: "vanilla", RunID: 13, Status: "answered", Answer: "no", Short: "no", Format: 1, Reward: 0.1},
	}
	rep := Summarize(5, qs, items, []string{"vrag", "vanilla"}, "rule")
	var b bytes.Buffer
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if p := os.Getenv("PROOFGLASS_REPORT_OUT"); p != "" {
		_ = os.WriteFile(p, b.Bytes(), 0o644)
	}
	for _, want := range []string{`<a href="#run-11">run 11</a>`, `id="run-12"`, "proofglass runs show 13", "<svg", "table", "chart", "text",
		"&lt;script&gt;alert(1)&lt;/script&gt;", "What &lt;b&gt;is&lt;/b&gt; it?"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(html, "<script") || strings.Contains(html, `src="http`) || strings.Contains(html, "<link") {
		t.Error("report is not self-contained or lets answer text through unescaped")
	}
	// Every chart is well-formed SVG.
	for rest := html; ; {
		i := strings.Index(rest, "<svg")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "</svg>")
		svg := rest[i : i+j+len("</svg>")]
		if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
			t.Errorf("chart is not well-formed SVG: %v", err)
		}
		rest = rest[i+j:]
	}
	// Per-source numbers: q2 counts for text and chart; vrag answered q1 right (judge 1) and q2 wrong.
	if s := rep.BySource["table"]["vrag"]; s.N != 1 || s.JudgeAcc != 1 {
		t.Errorf("table/vrag %+v", s)
	}
	if s := rep.BySource["chart"]["vrag"]; s.N != 1 || s.JudgeAcc != 0 {
		t.Errorf("chart/vrag %+v", s)
	}
	if s := rep.Overall["vrag"]; s.N != 2 || s.Accuracy != 0.5 || s.Tokens != 1200 || s.Steps != 1.5 {
		t.Errorf("overall vrag %+v", s)
	}
}
