package transcript

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"proofglass/backend/agent"
)

func sampleRun() []agent.Event {
	reranked := 0.125 // a reranker's score on the second hit
	region := [4]float64{0.1, 0.2, 0.5, 0.4}
	evs := []agent.Event{
		{Kind: agent.KindRunStarted, Run: &agent.RunInfo{Mode: "vrag", Question: "How much?", Provider: "ollama", Model: "qwen"}},
		{Step: 1, Kind: agent.KindThinking, Text: "look "},
		{Step: 1, Kind: agent.KindThinking, Text: "it up"},
		{Step: 1, Kind: agent.KindContent, Text: "\n<search>blo"},
		{Step: 1, Kind: agent.KindContent, Text: "od</search>"},
		{Step: 1, Kind: agent.KindSearch, Search: &agent.SearchInfo{Query: "blood"}},
		{Step: 1, Kind: agent.KindResults, Results: &agent.ResultsInfo{Query: "blood", Hits: []agent.Hit{
			{UnitID: "7", DocumentName: "r.pdf", Kind: "pdf", Page: 3, Score: 0.5, Shown: true},
			{UnitID: "8", DocumentName: "r.pdf", Kind: "pdf", Page: 4, Score: 0.25, Skipped: "already_shown", Rerank: &reranked, FirstRank: 1},
		}, Sent: []agent.SentImage{{UnitID: "7", Image: agent.ImageRef{Width: 532, Height: 753}, VisualTokens: 513}}}},
		{Step: 2, Kind: agent.KindContent, Text: "<bbox>[1,2,3,4]</bbox>"},
		{Step: 2, Kind: agent.KindCrop, Crop: &agent.CropInfo{UnitID: "7", DocumentName: "r.pdf", Page: 3, BBoxSent: [4]float64{1, 2, 3, 4},
			FrameW: 532, FrameH: 756, BBoxRaw: [4]float64{10, 20, 30, 40}, PageW: 1654, PageH: 2339, Region: region, TrueZoom: true,
			Image: agent.SentImage{Image: agent.ImageRef{Blob: "abc", Width: 600, Height: 400}}}},
		{Step: 3, Kind: agent.KindError, Error: &agent.ErrorInfo{Code: "invalid_action", Message: "no tag", Recoverable: true}},
		{Step: 3, Kind: agent.KindAnswer, Answer: &agent.AnswerInfo{Text: "500 ml\nroughly", Citations: []agent.Citation{
			{UnitID: "7", DocumentName: "r.pdf", Page: 3, Region: &region}}}},
		{Step: 3, Kind: agent.KindDone, Done: &agent.DoneInfo{Status: agent.StatusAnswered, Usage: agent.Usage{Steps: 3, ToolSteps: 2,
			Images: 3, VisualTokens: 900, PromptTokens: 3000, CompletionTokens: 60, WallMS: 2500}}},
	}
	for i := range evs {
		evs[i].Seq = i + 1
		evs[i].RunID = "5"
	}
	return evs
}

func TestTranscript(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]struct {
		dim  bool
		blob func(string) ([]byte, error)
		want string
	}{
		"plain with crop saved": {false, func(id string) ([]byte, error) { return []byte("jpeg:" + id), nil }, "" +
			"run 5 · vrag · ollama/qwen\n" +
			"question: How much?\n" +
			"── step 1 ──\n" +
			"thinking: look it up\n" +
			"<search>blood</search>\n" +
			"search: \"blood\"\n" +
			"  * 1. r.pdf p.3 score 0.5000 → sent 532x753, 513 visual tokens\n" +
			"    2. r.pdf p.4 rerank 0.1250 (was #1) (already shown)\n" +
			"── step 2 ──\n" +
			"<bbox>[1,2,3,4]</bbox>\n" +
			"crop: r.pdf p.3, box [1, 2, 3, 4] in the 532x756 view → [10, 20, 30, 40] of the 1654x2339 page, re-rendered (true zoom), sent 600x400\n" +
			"  saved " + filepath.Join(dir, "run-5-crop-009.jpg") + "\n" +
			"── step 3 ──\n" +
			"warning [invalid_action]: no tag\n" +
			"answer:\n  500 ml\n  roughly\n" +
			"  [1] r.pdf p.3 (unit 7), region [0.100, 0.200, 0.500, 0.400]\n" +
			"done: answered · 3 model calls, 2 tool steps, 3 images (900 visual tokens), 3000 prompt + 60 completion tokens, 2.5 s\n"},
		"dimmed thinking, missing blob": {true, func(string) ([]byte, error) { return nil, errors.New("gone") }, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			p := New(&out)
			p.Dim, p.CropDir, p.Blob = c.dim, dir, c.blob
			for _, ev := range sampleRun() {
				if err := p.Print(ev); err != nil {
					t.Fatal(err)
				}
			}
			got := out.String()
			if c.want != "" && got != c.want {
				t.Fatalf("transcript:\n%s\nwant:\n%s", got, c.want)
			}
			if c.dim {
				if !strings.Contains(got, "thinking: "+dimOn+"look it up"+dimOff+"\n") || strings.Count(got, dimOn) != 1 {
					t.Fatalf("thinking not dimmed once:\n%q", got)
				}
				if !strings.Contains(got, "  crop image not saved: gone\n") {
					t.Fatalf("missing blob not reported:\n%s", got)
				}
				return
			}
			if b, err := os.ReadFile(filepath.Join(dir, "run-5-crop-009.jpg")); err != nil || string(b) != "jpeg:abc" {
				t.Fatalf("crop file: %q %v", b, err)
			}
		})
	}
}

func TestGroundingFooter(t *testing.T) {
	evs := []agent.Event{
		{Seq: 1, Kind: agent.KindAnswer, Step: 1, Answer: &agent.AnswerInfo{Text: "3370.0 g and 3250.0 g", Citations: []agent.Citation{}}},
		{Seq: 2, Kind: agent.KindGrounding, Step: 1, Grounding: &agent.GroundingInfo{
			Summary: "1 of 3 figures found in the cited evidence; 1 mismatch, 1 not found", Figures: 3, FiguresGrounded: 1,
			Claims: []agent.GroundedClaim{
				{Text: "3370.0", Kind: "number", Status: agent.GroundRegion, Note: "in the cited region (page 2)"},
				{Text: "3250.0", Kind: "number", Status: agent.GroundMismatch, Note: "3250.0 — the cited region says 3200.0 (page 2)"},
				{Text: "4.9%", Kind: "percent", Status: agent.GroundElsewhere, Note: "elsewhere in the document (page 1)"},
				{Text: "12", Kind: "number", Status: agent.GroundNotFound, Note: "not found in the cited evidence or the rest of the document"},
			}}},
		{Seq: 3, Kind: agent.KindDone, Step: 1, Done: &agent.DoneInfo{Status: agent.StatusAnswered}},
	}
	var out bytes.Buffer
	p := New(&out)
	for _, ev := range evs {
		if err := p.Print(ev); err != nil {
			t.Fatal(err)
		}
	}
	want := "" +
		"grounding: 1 of 3 figures found in the cited evidence; 1 mismatch, 1 not found\n" +
		"  ✓ 3370.0: in the cited region (page 2)\n" +
		"  ✗ mismatch: 3250.0 — the cited region says 3200.0 (page 2)\n" +
		"  ~ 4.9%: elsewhere in the document (page 1)\n" +
		"  ? 12: not found in the cited evidence or the rest of the document\n" +
		"done: "
	if got := out.String(); !strings.Contains(got, want) {
		t.Fatalf("transcript:\n%s\nwant the footer:\n%s", got, want)
	}
}

// TestControlCharactersEscaped: names, questions, the model's text and errors cannot drive the terminal; the dim
// codes the printer writes itself stay.
func TestControlCharactersEscaped(t *testing.T) {
	evil := "\x1b[31mred\x1b]0;title\x07\rforged\u202e"
	evs := []agent.Event{
		{Kind: agent.KindRunStarted, Run: &agent.RunInfo{Mode: "vrag", Question: "why " + evil, Collection: evil}},
		{Step: 1, Kind: agent.KindThinking, Text: "think " + evil + "\nnext line"},
		{Step: 1, Kind: agent.KindSearch, Search: &agent.SearchInfo{Query: evil}},
		{Step: 1, Kind: agent.KindResults, Results: &agent.ResultsInfo{Hits: []agent.Hit{{UnitID: "7", DocumentName: evil + ".pdf", Kind: "pdf", Page: 1}}}},
		{Step: 2, Kind: agent.KindError, Error: &agent.ErrorInfo{Code: "render", Message: "open " + evil}},
		{Step: 2, Kind: agent.KindAnswer, Answer: &agent.AnswerInfo{Text: "it is " + evil + "\nsecond", Citations: []agent.Citation{
			{UnitID: "7", DocumentName: evil + ".pdf", Page: 1}}}},
		{Step: 2, Kind: agent.KindDone, Done: &agent.DoneInfo{Status: agent.StatusAnswered}},
	}
	var b bytes.Buffer
	p := New(&b)
	p.Dim = true
	for _, ev := range evs {
		if err := p.Print(ev); err != nil {
			t.Fatal(err)
		}
	}
	out := strings.NewReplacer(dimOn, "", dimOff, "").Replace(b.String())
	for _, bad := range []string{"\x1b", "\x07", "\r", "\u202e"} {
		if strings.Contains(out, bad) {
			t.Fatalf("transcript holds %q raw:\n%s", bad, out)
		}
	}
	for _, want := range []string{`question: why \x1b[31mred\x1b]0;title\x07\rforged\u202e`, `collection: \x1b[31mred`,
		`1. \x1b[31mred\x1b]0;title\x07\rforged\u202e.pdf p.1`, `error [render]: open \x1b[31mred`, `  it is \x1b[31mred`,
		"  second", `[1] \x1b[31mred`, "next line"} {
		if !strings.Contains(out, want) {
			t.Errorf("transcript lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(b.String(), dimOn) {
		t.Error("the printer's own dim code was escaped")
	}
}

func TestCalculationLines(t *testing.T) {
	v := 42.8571428571
	n1, n2 := 350.0, 500.0
	evs := []agent.Event{
		{Seq: 1, Kind: agent.KindCalculation, Step: 2, Calculation: &agent.CalculationInfo{ID: "calc-1", Expression: "growth(vaginal, planned)",
			Text: "42.86%", Value: &v, Unit: "%", Operands: []agent.CalcOperand{
				{Name: "vaginal", Value: "350.0", Number: &n1, Source: &agent.CalcSource{DocumentName: "blood_loss_report.pdf", Page: 2, Cell: "measured blood loss"}},
				{Name: "planned", Value: "500.0", Number: &n2, Source: &agent.CalcSource{Page: 2}}}}},
		{Seq: 2, Kind: agent.KindCalculation, Step: 3, Calculation: &agent.CalculationInfo{ID: "calc-2", NodeID: "calculation 2", Expression: "a / b",
			ErrorKind: "division_by_zero", Error: "division by zero: the divisor in 1 / 0 is zero; check the operand",
			Operands: []agent.CalcOperand{{Name: "a", Value: "1"}, {Name: "b", Value: "0"}}}},
		{Seq: 3, Kind: agent.KindGrounding, Step: 3, Grounding: &agent.GroundingInfo{Summary: "1 of 1 figure found in the cited evidence; 1 computed from cited figures",
			Claims: []agent.GroundedClaim{{Text: "42.86%", Status: agent.GroundComputed, Calculation: "calc-1",
				Note: "computed by calc-1: growth(vaginal, planned) = 42.86% from 350.0 (page 2) and 500.0 (page 2)"}}}},
	}
	var out bytes.Buffer
	p := New(&out)
	for _, ev := range evs {
		if err := p.Print(ev); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{
		"calculate calc-1: growth(vaginal, planned) = 42.86%\n" +
			"  vaginal = 350.0 (blood_loss_report.pdf p.2 measured blood loss)\n" +
			"  planned = 500.0 (p.2)\n",
		"calculate calc-2 [calculation 2]: a / b → error [division_by_zero]: division by zero: the divisor in 1 / 0 is zero; check the operand\n" +
			"  a = 1\n  b = 0\n",
		"  = 42.86%: computed by calc-1: growth(vaginal, planned) = 42.86% from 350.0 (page 2) and 500.0 (page 2)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("transcript:\n%s\nlacks:\n%s", out.String(), want)
		}
	}
}
