package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
)

// Table 1 of blood_loss_report.pdf, page 2: measured blood loss, Med (IQR), is 350.0 ml for vaginal delivery and
// 500.0 ml for planned cesarean: growth 42.86%.
const growthCall = `<think>Page 2's Table 1 has both medians.</think>
<calculate>{"expression": "growth(vaginal, planned)", "operands": [
  {"name": "vaginal", "value": "350.0", "source": {"document": "blood_loss_report.pdf", "page": 2, "cell": "measured blood loss / Vaginal delivery"}},
  {"name": "planned", "value": "500.0", "source": {"page": 2}}]}</calculate>`

// The calculator off leaves every mode's first request exactly as it was: the reference prompts, no tools.
func TestCalculatorOffLeavesPromptsUnchanged(t *testing.T) {
	kb := newPageKB(t)
	q := "How much blood?"
	for _, mode := range []Mode{ModeVRAG, ModeReAct, ModeVimRAG} {
		first := func(on bool) model.Request {
			reply := "<answer>x</answer>"
			if mode == ModeVimRAG {
				reply = `<tool_call>{"name": "add_answer_node", "arguments": {"parent_ids": ["root"], "answer": "x"}}</tool_call>`
			}
			chat := modeltest.Replay(reply)
			a, _ := newTestAgent(kb, chat)
			if _, err := a.Run(context.Background(), "r", Config{Mode: mode, Calculator: on}, q, nil); err != nil {
				t.Fatal(err)
			}
			return chat.Requests()[0]
		}
		off, on := first(false), first(true)
		var want []model.Message
		switch mode {
		case ModeVRAG:
			want = []model.Message{model.TextMessage(model.RoleSystem, DefaultSystemLine), model.TextMessage(model.RoleUser, VRAGPrompt(q))}
		case ModeReAct:
			want = []model.Message{model.TextMessage(model.RoleSystem, DefaultSystemLine), model.TextMessage(model.RoleUser, ReActPrompt(q))}
		case ModeVimRAG:
			rootJSON := `[{"id": "root", "name": "Initial Node", "content": "Initial query from user: How much blood?"}]`
			want = []model.Message{model.TextMessage(model.RoleSystem, VimRAGSystemPrompt()), model.TextMessage(model.RoleUser, VimRAGUserPrompt(q, rootJSON))}
		}
		if d := cmp.Diff(want, off.Messages); d != "" || off.Tools != nil {
			t.Fatalf("%s with the calculator off: first request changed (-want +got):\n%s\ntools %v", mode, d, off.Tools)
		}
		// On: the same request but for the calculator's one addition.
		switch mode {
		case ModeVRAG, ModeReAct:
			got, ref := on.Messages[1].Text(), want[1].Text()
			if strings.Count(got, calcSentence) != 1 || strings.Replace(got, calcSentence, "", 1) != ref {
				t.Fatalf("%s prompt with the calculator is not the reference plus one sentence:\n%s", mode, got)
			}
			if mode == ModeReAct && (len(on.Tools) != 1 || on.Tools[0].Name != "calculate" || !json.Valid(on.Tools[0].Parameters)) {
				t.Fatalf("react tools %+v", on.Tools)
			}
			if mode == ModeVRAG && on.Tools != nil {
				t.Fatalf("vrag must not send native tools: %+v", on.Tools)
			}
		case ModeVimRAG:
			sys := on.Messages[0].Text()
			line := vimragCalcToolLine()
			if !json.Valid([]byte(line)) || strings.Replace(sys, line+"\n", "", 1) != VimRAGSystemPrompt() || !strings.Contains(sys, line+"\n</tools>") {
				t.Fatalf("vimrag system prompt with the calculator is not the reference plus the calculate tool line")
			}
		}
	}
}

func TestVRAGCalculation(t *testing.T) {
	kb := newPageKB(t)
	kb.rank["measured blood loss by mode of delivery"] = []int{2}
	chat := &modeltest.Script{Replies: []model.Delta{
		text("<search>measured blood loss by mode of delivery</search>"),
		text(growthCall),
		text("<answer>The median measured blood loss is 42.86% higher after planned cesarean (500.0 ml) than after vaginal delivery (350.0 ml).</answer>"),
	}}
	a, _ := newTestAgent(kb, chat)
	rec := &recorder{}
	res, err := a.Run(context.Background(), "c1", Config{Mode: ModeVRAG, Calculator: true}, "By what percent is the median blood loss higher after planned cesarean than after vaginal delivery?", rec.sink)
	if err != nil || res.Status != StatusAnswered {
		t.Fatalf("run: %v %+v", err, res)
	}
	calcs := rec.of(KindCalculation)
	if len(calcs) != 1 {
		t.Fatalf("%d calculation events", len(calcs))
	}
	c := calcs[0].Calculation
	if c.Error != "" || c.Text != "42.86%" || c.Unit != "%" || c.Value == nil || *c.Value != 42.8571428571 || c.ID != "calc-1" {
		t.Fatalf("calculation %+v", c)
	}
	if len(c.Operands) != 2 || *c.Operands[0].Number != 350 || *c.Operands[1].Number != 500 {
		t.Fatalf("operands %+v", c.Operands)
	}
	for _, op := range c.Operands {
		if op.Source == nil || op.Source.Page != 2 || op.Source.UnitID != "u2" || op.Source.DocumentName != "blood_loss_report.pdf" {
			t.Fatalf("operand %s source %+v, want page 2 resolved to u2", op.Name, op.Source)
		}
	}
	if c.Operands[0].Source.Cell != "measured blood loss / Vaginal delivery" {
		t.Fatalf("cell %q", c.Operands[0].Source.Cell)
	}
	// The result is the next user turn, like a search's image.
	reqs := chat.Requests()
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	if last.Role != model.RoleUser || last.Text() != "Calculator result: growth(vaginal, planned) = 42.86%" {
		t.Fatalf("calculation observation %+v", last)
	}
	if reqs[2].Messages[len(reqs[2].Messages)-2].Text() != chat.Replies[1].Content {
		t.Fatal("the assistant's calculate turn is not in the history verbatim")
	}
	done := rec.evs[len(rec.evs)-1].Done
	if done.Usage.ToolSteps != 2 || done.Usage.Calculations != 1 {
		t.Fatalf("usage %+v", done.Usage)
	}
	checkEventStream(t, rec.evs, "c1")
	// A stored run replays with its calculation in the step that made it.
	st, err := Replay(rec.evs)
	if err != nil {
		t.Fatal(err)
	}
	if s := st.Steps[len(st.Steps)-2]; len(s.Calculations) != 1 || s.Calculations[0].Text != "42.86%" || s.Step != 2 {
		t.Fatalf("replayed step %+v", s)
	}
	if !st.Run.Calculator {
		t.Fatal("run_started does not say the calculator was on")
	}
}

// Bad calculator input is a tool error the model reads in its next request; the run goes on and answers.
func TestCalculatorErrorsReachTheModel(t *testing.T) {
	kb := newPageKB(t)
	kb.rank["table"] = []int{2}
	long := `<calculate>{"expression": "` + strings.Repeat("a + ", 200) + `a", "operands": [{"name": "a", "value": "1"}]}</calculate>`
	cases := []struct {
		reply, kind, says string
	}{
		{long, "too_long", "at most 512"},
		{`<calculate>{"expression": "a +", "operands": [{"name": "a", "value": "1"}]</calculate>`, "malformed", `{"expression"`},
		{`<calculate>{"expression": "a +", "operands": [{"name": "a", "value": "1"}]}</calculate>`, "syntax", "syntax error"},
		{`<calculate>{"expression": "exec(a)", "operands": [{"name": "a", "value": "1"}]}</calculate>`, "unknown_function", `"exec"`},
		{`<calculate>{"expression": "a / b", "operands": [{"name": "a", "value": "350.0"}, {"name": "b", "value": "0"}]}</calculate>`, "division_by_zero", "division by zero"},
		{`<calculate>{"expression": "a * 2", "operands": [{"name": "a", "value": "about 12"}]}</calculate>`, "bad_figure", "not a figure"},
		{`<calculate>` + strings.Repeat("[", 20000) + `</calculate>`, "too_long", "split the calculation"},
		{`<calculate>{"expression": "a", "operands": [{"name": "a", "value": "` + strings.Repeat("9", 300) + `"}]}</calculate>`, "bad_operand", "over 256 bytes"},
		{`<calculate>{"expression": "a", "operands": "a = 1"}</calculate>`, "malformed", `"operands" must be a list`},
	}
	for _, tc := range cases {
		chat := modeltest.Replay("<search>table</search>", tc.reply, "<answer>350.0</answer>")
		a, _ := newTestAgent(kb, chat)
		rec := &recorder{}
		res, err := a.Run(context.Background(), "e", Config{Mode: ModeVRAG, Calculator: true}, "q", rec.sink)
		if err != nil || res.Status != StatusAnswered {
			t.Fatalf("%s: the run must go on: %v %+v", tc.kind, err, res)
		}
		calcs := rec.of(KindCalculation)
		if len(calcs) != 1 || calcs[0].Calculation.ErrorKind != tc.kind || calcs[0].Calculation.Text != "" {
			t.Fatalf("%s: calculation events %+v", tc.kind, calcs)
		}
		if e := calcs[0].Calculation.Expression; len(e) > 512+len("…") {
			t.Fatalf("%s: the event keeps a %d-byte expression", tc.kind, len(e))
		}
		reqs := chat.Requests()
		seen := reqs[2].Messages[len(reqs[2].Messages)-1].Text()
		if !strings.HasPrefix(seen, "Calculator error ("+tc.kind+"): ") || !strings.Contains(seen, tc.says) || !strings.HasSuffix(seen, "or answer.") {
			t.Fatalf("%s: the model was told %q", tc.kind, seen)
		}
		if len(rec.of(KindError)) != 0 {
			t.Fatalf("%s: a calculator error is a tool result, not an error event", tc.kind)
		}
	}
}

// With the calculator off, a <calculate> tag is not an action: the model gets the usual corrective message.
func TestCalculateTagIgnoredWhenOff(t *testing.T) {
	kb := newPageKB(t)
	chat := modeltest.Replay(growthCall, "<answer>x</answer>")
	a, _ := newTestAgent(kb, chat)
	rec := &recorder{}
	if _, err := a.Run(context.Background(), "o", Config{Mode: ModeVRAG}, "q", rec.sink); err != nil {
		t.Fatal(err)
	}
	if len(rec.of(KindCalculation)) != 0 || chat.Requests()[1].Messages[3].Text() != vragNoTag {
		t.Fatalf("calculate ran with the calculator off")
	}
}

// Vimrag without the calculator: a calculate call is an unknown function, corrected like any other.
func TestVimRAGCalculateWhenOff(t *testing.T) {
	kb := newPageKB(t)
	chat := &modeltest.Script{Replies: []model.Delta{
		call("calculate", `{"expression": "1 + 1", "operands": []}`),
		call("add_answer_node", `{"parent_ids": ["root"], "answer": "2"}`),
	}}
	a, _ := newTestAgent(kb, chat)
	rec := &recorder{}
	if _, err := a.Run(context.Background(), "v", Config{Mode: ModeVimRAG}, "q", rec.sink); err != nil {
		t.Fatal(err)
	}
	if len(rec.of(KindCalculation)) != 0 {
		t.Fatal("calculated with the calculator off")
	}
	errs := rec.of(KindError)
	if len(errs) != 1 || errs[0].Error.Code != "invalid_action" || !strings.Contains(errs[0].Error.Message, `unknown function "calculate"`) {
		t.Fatalf("errors %+v", errs)
	}
	last := chat.Requests()[1].Messages
	if got := last[len(last)-1].Text(); strings.Contains(got, "calculate or") {
		t.Fatalf("the correction offers the calculator: %q", got)
	}
}

func TestReActNativeCalculate(t *testing.T) {
	kb := newPageKB(t)
	kb.rank["blood loss"] = []int{2}
	args := `{"expression": "pct_change(vaginal, planned)", "operands": [{"name": "vaginal", "value": "350.0", "source": {"page": 2}}, {"name": "planned", "value": "500.0", "source": {"page": 2}}]}`
	chat := &modeltest.Script{Replies: []model.Delta{
		text("<search>blood loss</search>"),
		{ToolCalls: []model.ToolCall{{ID: "call_1", Name: "calculate", Arguments: args}, {ID: "call_2", Name: "calculate", Arguments: `{"expression": "nope(`}}},
		text("<answer>42.86% higher</answer>"),
	}}
	a, _ := newTestAgent(kb, chat)
	rec := &recorder{}
	res, err := a.Run(context.Background(), "n", Config{Mode: ModeReAct, Calculator: true}, "q", rec.sink)
	if err != nil || res.Status != StatusAnswered {
		t.Fatalf("run: %v %+v", err, res)
	}
	reqs := chat.Requests()
	for i, r := range reqs {
		if len(r.Tools) != 1 || r.Tools[0].Name != "calculate" {
			t.Fatalf("call %d tools %+v", i+1, r.Tools)
		}
	}
	m := reqs[2].Messages
	asst, t1, t2 := m[len(m)-3], m[len(m)-2], m[len(m)-1]
	if asst.Role != model.RoleAssistant || len(asst.ToolCalls) != 2 {
		t.Fatalf("assistant turn %+v", asst)
	}
	if t1.Role != model.RoleTool || t1.ToolCallID != "call_1" || t1.Text() != "Calculator result: pct_change(vaginal, planned) = 42.86%" {
		t.Fatalf("first tool message %+v", t1)
	}
	if t2.Role != model.RoleTool || t2.ToolCallID != "call_2" || !strings.HasPrefix(t2.Text(), "Calculator error (malformed): ") {
		t.Fatalf("second tool message %+v", t2)
	}
	if n := len(rec.of(KindCalculation)); n != 2 {
		t.Fatalf("%d calculation events", n)
	}
}

func TestVimRAGCalculationNode(t *testing.T) {
	kb := newPageKB(t)
	kb.rank["blood loss table"] = []int{2}
	args := `{"parent_ids": ["Table 1"], "expression": "growth(vaginal, planned)", "operands": [{"name": "vaginal", "value": "350.0", "source": {"page": 2}}, {"name": "planned", "value": "500.0", "source": {"page": 2}}]}`
	chat := &modeltest.Script{Replies: []model.Delta{
		call("add_search_node", `{"id": "Table 1", "parent_ids": ["root"], "query": "blood loss table"}`),
		call("summarize_and_memorize", `{"summarize": "Table 1 gives medians.", "memorize": [{"information_id": "Picture 1", "is_useful": true, "key_timestamp": [], "priority_score": 5}]}`),
		call("calculate", args),
		call("calculate", `{"expression": "growth(vaginal, planned", "operands": []}`),
		call("add_answer_node", `{"parent_ids": ["calculation 1"], "answer": "42.86% higher."}`),
	}}
	a, _ := newTestAgent(kb, chat)
	rec := &recorder{}
	res, err := a.Run(context.Background(), "v", Config{Mode: ModeVimRAG, Calculator: true}, "q", rec.sink)
	if err != nil || res.Status != StatusAnswered {
		t.Fatalf("run: %v %+v", err, res)
	}
	reqs := chat.Requests()
	if got := reqs[3].Messages[len(reqs[3].Messages)-1].Text(); got != "<tool_response>\nCalculator result: growth(vaginal, planned) = 42.86%\n</tool_response>" {
		t.Fatalf("tool response %q", got)
	}
	if got := reqs[4].Messages[len(reqs[4].Messages)-1].Text(); !strings.HasPrefix(got, "<tool_response>\nCalculator error (unknown_identifier): ") &&
		!strings.HasPrefix(got, "<tool_response>\nCalculator error (syntax): ") {
		t.Fatalf("error tool response %q", got)
	}
	calcs := rec.of(KindCalculation)
	if len(calcs) != 2 || calcs[0].Calculation.NodeID != "calculation 1" || calcs[1].Calculation.NodeID != "" {
		t.Fatalf("calculations %+v %+v", calcs[0].Calculation, calcs[1].Calculation)
	}
	if src := calcs[0].Calculation.Operands[0].Source; src == nil || src.UnitID != "u2" {
		t.Fatalf("operand source %+v", src)
	}
	graphs := rec.of(KindGraph)
	g := graphs[len(graphs)-1].Graph
	var node *GraphNode
	for i := range g.Nodes {
		if g.Nodes[i].Type == "calculation" {
			node = &g.Nodes[i]
		}
	}
	if node == nil || node.ID != "calculation 1" || node.Result != "42.86%" || node.Expression != "growth(vaginal, planned)" || !cmp.Equal(node.Parents, []string{"Table 1"}) {
		t.Fatalf("calculation node %+v in %+v", node, g.Nodes)
	}
	if !cmp.Equal(g.Nodes[len(g.Nodes)-1].Parents, []string{"calculation 1"}) {
		t.Fatalf("answer parents %+v", g.Nodes[len(g.Nodes)-1])
	}
}
