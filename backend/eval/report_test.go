package eval

import (
	"bytes"
	"encoding/xml"
	"os"
	"strings"
	"testing"

	"proofglass/backend/agent"
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

// TestGroundingStats: the grounded rate and the judge's accuracy on grounded and ungrounded answers apart, from the
// runs' grounding events; answers without a checkable claim or without a pass count in neither group.
func TestGroundingStats(t *testing.T) {
	grounding := func(claims, inCited int) []agent.Event {
		g := &agent.GroundingInfo{FiguresGrounded: inCited, Figures: claims}
		for range claims {
			g.Claims = append(g.Claims, agent.GroundedClaim{})
		}
		return []agent.Event{{Kind: agent.KindAnswer, Answer: &agent.AnswerInfo{}}, {Kind: agent.KindGrounding, Grounding: g}}
	}
	qs := []Question{{ID: "q1", Answer: "1"}, {ID: "q2", Answer: "2"}, {ID: "q3", Answer: "3"}, {ID: "q4", Answer: "4"}, {ID: "q5", Answer: "5"}}
	var items []ItemResult
	for i, c := range []struct {
		evs   []agent.Event
		judge float64
	}{
		{grounding(2, 2), 1}, // grounded, right
		{grounding(3, 3), 0}, // grounded, wrong
		{grounding(2, 1), 0}, // ungrounded, wrong
		{grounding(0, 0), 1}, // no checkable claim
		{nil, 1},             // no pass (an older run)
	} {
		items = append(items, ItemResult{QuestionID: qs[i].ID, Mode: "vrag", Status: "answered", Judge: c.judge,
			Grounding: GroundingOf(c.evs)})
	}
	rep := Summarize(1, qs, items, []string{"vrag"}, "rule")
	s := rep.Overall["vrag"]
	if s.NGrounded != 2 || s.NUngrounded != 1 || s.Checked != 0.6 || s.Grounded != 2.0/3 || s.JudgeGrounded != 0.5 || s.JudgeUngrounded != 0 {
		t.Fatalf("grounding stats %+v", s)
	}
	var b bytes.Buffer
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "grounding (answers whose every figure and name was found in the evidence they cite):") ||
		!strings.Contains(b.String(), "vrag     0.60      0.67           0.500    2             0.000    1") {
		t.Fatalf("table:\n%s", b.String())
	}
}
