package agent

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/vision"
)

func TestParseJSON5AndPyJSON(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"plain":            {`{"id": "a", "n": 1}`, `{"id": "a", "n": 1}`},
		"single quotes":    {`{'id': 'it\'s', 'q': "x"}`, `{"id": "it's", "q": "x"}`},
		"unquoted keys":    {`{id: 'a', parent_ids: ['root',],}`, `{"id": "a", "parent_ids": ["root"]}`},
		"comments":         {"{/* c */ \"a\": 1, // line\n \"b\": 2}", `{"a": 1, "b": 2}`},
		"python literals":  {`{"u": True, "f": False, "n": None}`, `{"u": true, "f": false, "n": null}`},
		"floats as python": {`[1.0, 2.50, 1e3, 1e16, 0.0001, 0.00001, -0.5, .5, 5.]`, `[1.0, 2.5, 1000.0, 1e+16, 0.0001, 1e-05, -0.5, 0.5, 5.0]`},
		"ints":             {`[0x1F, +3, -0, 12345678901234567890]`, `[31, 3, 0, 12345678901234567890]`},
		"unicode kept":     {`{"q": "阿里云\u00e9"}`, `{"q": "阿里云é"}`},
		"escapes":          {`{"q": "a\"b\\c\nd\te\u0001"}`, `{"q": "a\"b\\c\nd\te\u0001"}`},
		"html not escaped": {`{"q": "<a&b>"}`, `{"q": "<a&b>"}`},
		"key order kept":   {`{"z": 1, "a": 2, "m": 3}`, `{"z": 1, "a": 2, "m": 3}`},
		"trailing text":    {`{"a": 1} and more`, `{"a": 1}`},
		"empty containers": {`{"a": {}, "b": []}`, `{"a": {}, "b": []}`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			v, err := parseJSON5(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := pyJSON(v); got != c.want {
				t.Fatalf("pyJSON(parse(%q)) = %s, want %s", c.in, got, c.want)
			}
		})
	}
	for _, bad := range []string{``, `{`, `{"a" 1}`, `[1, 2`, `{"a": }`, `'unterminated`, strings.Repeat("[", 500)} {
		if _, err := parseJSON5(bad); !errors.Is(err, errJSON5) {
			t.Fatalf("parseJSON5(%.20q) error %v", bad, err)
		}
	}
}

func TestParseToolCall(t *testing.T) {
	cases := map[string]struct {
		in, name, args string
	}{
		"reference format": {"<tool_call>\n{\"name\": \"add_search_node\", \"arguments\": {\"id\": \"a\", \"parent_ids\": [\"root\"], \"query\": \"q\"}}\n</tool_call>",
			"add_search_node", `{"id": "a", "parent_ids": ["root"], "query": "q"}`},
		"json5-ish":        {"think first <tool_call>{name: 'add_answer_node', arguments: {parent_ids: ['x',], answer: 'y',},}</tool_call>", "add_answer_node", `{"parent_ids": ["x"], "answer": "y"}`},
		"first block wins": {"<tool_call>{\"name\": \"a\"}</tool_call><tool_call>{\"name\": \"b\"}</tool_call>", "a", `{}`},
		"no closing tag":   {"<tool_call>{\"name\": \"a\", \"arguments\": {\"k\": 1}}", "a", `{"k": 1}`},
		"code fence":       {"<tool_call>\n```json\n{\"name\": \"a\", \"arguments\": {}}\n```\n</tool_call>", "a", `{}`},
		"string arguments": {"<tool_call>{\"name\": \"a\", \"arguments\": \"{\\\"k\\\": [1, 2]}\"}</tool_call>", "a", `{"k": [1, 2]}`},
		"bare json":        {"  {\"name\": \"a\", \"arguments\": {\"k\": 2}}", "a", `{"k": 2}`},
		"openai shape":     {"<tool_call>{\"type\": \"function\", \"function\": {\"name\": \"a\", \"arguments\": {\"k\": 3}}}</tool_call>", "a", `{"k": 3}`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			tc, err := parseToolCallText(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if tc.Name != c.name || pyJSON(tc.Args) != c.args {
				t.Fatalf("got %s %s", tc.Name, pyJSON(tc.Args))
			}
		})
	}
	for _, bad := range []string{"no call here", "<tool_call>{\"arguments\": {}}</tool_call>", "<tool_call>not json</tool_call>", "<tool_call>[1]</tool_call>"} {
		if _, err := parseToolCallText(bad); err == nil {
			t.Fatalf("parseToolCallText(%q) succeeded", bad)
		}
	}
	tc, err := parseNativeToolCall(model.ToolCall{Name: "add_search_node", Arguments: `{'id': 'n', query: "q",}`})
	if err != nil || tc.Name != "add_search_node" || pyJSON(tc.Args) != `{"id": "n", "query": "q"}` {
		t.Fatalf("native: %v %s", err, pyJSON(tc.Args))
	}
}

func FuzzToolCall(f *testing.F) {
	for _, s := range []string{"<tool_call>{name: 'a', arguments: {x: [1, 'b', {c: null}]}}</tool_call>", "<tool_call>{\"name\":", "{'a", "<tool_call>\"\\u12", "[[[[", "{\"name\": \"a\", \"arguments\": \"{\\\"k\"}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tc, err := parseToolCallText(s)
		if err == nil {
			if tc.Name == "" || tc.Args == nil {
				t.Fatalf("accepted a call without name or args: %+v", tc)
			}
			_ = pyJSON(tc.Args)
		}
		if v, err := parseJSON5(s); err == nil {
			_ = pyJSON(v)
		}
	})
}

// energyGraph is the hand-worked example: root → A; A → B; root, A → C. Memory: A [p5, p3], B [p4], C [p2, p5].
func energyGraph() (*memGraph, map[string][]*memItem) {
	g := newMemGraph("q")
	g.add(&gnode{ID: "A", Type: "search", Parents: []string{"root"}, Data: newObject()})
	g.add(&gnode{ID: "B", Type: "search", Parents: []string{"A"}, Data: newObject()})
	g.add(&gnode{ID: "C", Type: "search", Parents: []string{"root", "A"}, Data: newObject()})
	item := func(node, info string, p int) *memItem {
		return &memItem{NodeID: node, InfoID: info, Priority: p, Hit: Hit{UnitID: node + info}}
	}
	mem := map[string][]*memItem{
		"A": {item("A", "Picture 1", 5), item("A", "Picture 2", 3)},
		"B": {item("B", "Picture 1", 4)},
		"C": {item("C", "Picture 1", 2), item("C", "Picture 2", 5)},
	}
	return g, mem
}

func TestEnergyAndBudget(t *testing.T) {
	g, mem := energyGraph()
	scored := score(g, mem, 2007040)
	// t_max = 3. A: index 1, age 2, out-degree 2 (B, C) → E = p/5 · 3 · e^−0.2.
	// B: index 2, age 1, out-degree 0 → E = 0.8 · e^−0.1. C: index 3, age 0 → E = p/5.
	// Ω(A) = E + 0.3 · (mean Ω(B) + mean Ω(C)) = E + 0.3 · (0.8e^−0.1 + 0.7).
	eA1, eA2, eB := 3*math.Exp(-0.2), 0.6*3*math.Exp(-0.2), 0.8*math.Exp(-0.1)
	fb := 0.3 * (eB + 0.7)
	want := []struct {
		e, omega float64
		pixels   int
	}{
		{eA1, eA1 + fb, 837713}, // int(2007040 · Ω / ΣΩ), ΣΩ = 6.908099…
		{eA2, eA2 + fb, 552269},
		{eB, eB, 210309},
		{0.4, 0.4, 116213},
		{1.0, 1.0, 290534},
	}
	if len(scored) != len(want) {
		t.Fatalf("%d items", len(scored))
	}
	if math.Abs(eA1-2.4561922592339456) > 1e-12 || math.Abs(eA1+fb-2.8833532395625756) > 1e-12 {
		t.Fatalf("hand values drifted: %v %v", eA1, eA1+fb)
	}
	total := 0
	for i, w := range want {
		s := scored[i]
		if math.Abs(s.E-w.e) > 1e-12 || math.Abs(s.Omega-w.omega) > 1e-12 || s.Pixels != w.pixels || !s.Selected {
			t.Fatalf("item %d (%s %s): E %v Ω %v px %d, want %v %v %d", i, s.NodeID, s.InfoID, s.E, s.Omega, s.Pixels, w.e, w.omega, w.pixels)
		}
		total += s.Pixels
	}
	if total > 2007040 {
		t.Fatalf("allocated %d px over the budget", total)
	}
	// A sixth item: only the top 5 by Ω get pixels; ties keep graph order.
	mem["C"] = append(mem["C"], &memItem{NodeID: "C", InfoID: "Picture 3", Priority: 1})
	scored = score(g, mem, 2007040)
	var dropped []string
	for _, s := range scored {
		if !s.Selected {
			dropped = append(dropped, s.NodeID+"/"+s.InfoID)
			if s.Pixels != 0 {
				t.Fatal("unselected item got pixels")
			}
		}
	}
	if !cmp.Equal(dropped, []string{"C/Picture 3"}) {
		t.Fatalf("dropped %v", dropped)
	}
	// A video's share is split between its frames (integer division, as the reference's //).
	mem["C"] = mem["C"][:2]
	mem["B"][0].Video = true
	mem["B"][0].Frames = make([]Frame, 3)
	for _, s := range score(g, mem, 2007040) {
		if s.NodeID == "B" && s.Pixels != 210309/3 {
			t.Fatalf("video per-frame pixels %d, want %d", s.Pixels, 210309/3)
		}
	}
}

func TestGraphValidation(t *testing.T) {
	g, _ := energyGraph()
	cases := map[string]struct {
		id      string
		parents []string
	}{
		"empty id":       {"", []string{"root"}},
		"duplicate id":   {"B", []string{"root"}},
		"root id":        {"root", []string{"A"}},
		"answer id":      {"answer", []string{"A"}},
		"unknown parent": {"D", []string{"A", "nope"}},
		"self parent":    {"D", []string{"D"}},
		"no parents":     {"D", nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if err := g.checkNew(c.id, c.parents); !errors.Is(err, errGraph) {
				t.Fatalf("checkNew(%q, %v) = %v", c.id, c.parents, err)
			}
		})
	}
	if err := g.checkNew("D", []string{"B", "C"}); err != nil {
		t.Fatalf("valid node rejected: %v", err)
	}
}

func call(name string, args string) model.Delta {
	return text("<think>plan</think>\n<tool_call>\n{\"name\": \"" + name + "\", \"arguments\": " + args + "}\n</tool_call>")
}

func TestVimRAGRun(t *testing.T) {
	kb := newPageKB(t)
	kb.rank["blood loss volume"] = []int{1, 2, 3}
	kb.rank["transfusion"] = []int{4, 1}
	chat := &modeltest.Script{Replies: []model.Delta{
		// 1: lenient syntax: single quotes, trailing comma.
		text("<tool_call>{'name': 'add_search_node', 'arguments': {'id': 'Blood loss', 'parent_ids': ['root'], 'query': 'blood loss volume',},}</tool_call>"),
		// 2: keep Picture 1 (p5) and Picture 2 (p3); Picture 3 is not useful.
		call("summarize_and_memorize", `{"summarize": "Page 1 gives the volume.", "memorize": [
			{"information_id": "Picture 1", "is_useful": true, "key_timestamp": [], "priority_score": 5},
			{"information_id": "Picture 2", "is_useful": true, "key_timestamp": [], "priority_score": 3},
			{"information_id": "Picture 3", "is_useful": false, "key_timestamp": [], "priority_score": 1}]}`),
		// 3: unknown parent → corrective message, nothing searched.
		call("add_search_node", `{"id": "Transfusion", "parent_ids": ["Nope"], "query": "transfusion"}`),
		// 4: a native tool call (no <tool_call> text).
		{Content: "", ToolCalls: []model.ToolCall{{ID: "c1", Name: "add_search_node", Arguments: `{"id": "Transfusion", "parent_ids": ["Blood loss"], "query": "transfusion"}`}}},
		// 5: a second search before summarising → corrective.
		call("add_search_node", `{"id": "Other", "parent_ids": ["root"], "query": "other"}`),
		// 6: close the node, keeping Picture 1 (page 4).
		call("summarize_and_memorize", `{"summarize": "Page 4 covers transfusion.", "memorize": [{"information_id": "picture 1", "is_useful": "true", "key_timestamp": [], "priority_score": 4}, {"information_id": "Picture 2", "is_useful": false, "key_timestamp": [], "priority_score": 1}]}`),
		// 7: answer.
		call("add_answer_node", `{"parent_ids": ["Blood loss", "Transfusion"], "answer": "About 500 ml."}`),
	}}
	a, _ := newTestAgent(kb, chat)
	rec := &recorder{}
	res, err := a.Run(context.Background(), "v1", Config{Mode: ModeVimRAG, Model: "qwen3.5-plus", Think: true}, "How much blood was lost?", rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusAnswered || res.Answer.Text != "About 500 ml." {
		t.Fatalf("result %+v", res)
	}
	reqs := chat.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d calls", len(reqs))
	}
	// Sampling as the reference: thinking → T 0.6, top_p 0.95, 4096 tokens.
	o := reqs[0].Options
	if o.Think == nil || !*o.Think || *o.Temperature != 0.6 || *o.TopP != 0.95 || o.MaxTokens != 4096 {
		t.Fatalf("options %+v", o)
	}
	// Call 1: system prompt + user prompt with the root-only graph.
	rootJSON := `[{"id": "root", "name": "Initial Node", "content": "Initial query from user: How much blood was lost?"}]`
	want1 := []model.Message{
		model.TextMessage(model.RoleSystem, VimRAGSystemPrompt()),
		model.TextMessage(model.RoleUser, VimRAGUserPrompt("How much blood was lost?", rootJSON)),
	}
	if d := cmp.Diff(want1, reqs[0].Messages); d != "" {
		t.Fatalf("first context (-want +got):\n%s", d)
	}
	// Call 2: + assistant, tool response (3 pictures), summary prompt.
	m := reqs[1].Messages
	if len(m) != 5 || m[2].Role != model.RoleAssistant || m[4].Text() != VimRAGSummaryPrompt() {
		t.Fatalf("second request structure: %d messages", len(m))
	}
	tr := m[3]
	if tr.Parts[0].Text != "<tool_response>\nHere are the retrieved information:" || tr.Parts[len(tr.Parts)-1].Text != "\n</tool_response>" {
		t.Fatalf("tool response frame: %q … %q", tr.Parts[0].Text, tr.Parts[len(tr.Parts)-1].Text)
	}
	if tr.Parts[1].Text != "Picture 1:" || tr.Parts[3].Text != "Picture 2:" || tr.Parts[5].Text != "Picture 3:" {
		t.Fatalf("labels: %q %q %q", tr.Parts[1].Text, tr.Parts[3].Text, tr.Parts[5].Text)
	}
	for _, b := range imageSizes(t, tr) {
		if b.Pixels() > vimragImagePixels {
			t.Fatalf("result image %v over 1,003,520 px", b)
		}
	}
	for _, p := range tr.Parts {
		if p.Image != nil && len(p.Image.Data) > vision.MemoryJPEGBytes {
			t.Fatalf("result image %d bytes over the 38 KB cap", len(p.Image.Data))
		}
	}
	// Call 3: context rebuilt: graph JSON with the node as emitted plus its summary, then the memory images.
	node1 := `{"id": "Blood loss", "parent_ids": ["root"], "query": "blood loss volume", "summary": "Page 1 gives the volume."}`
	m = reqs[2].Messages
	if len(m) != 2 {
		t.Fatalf("context after a node must be rebuilt to 2 messages, got %d", len(m))
	}
	u := m[1]
	if u.Parts[0].Text != VimRAGUserPrompt("How much blood was lost?", "["+rootJSON[1:len(rootJSON)-1]+", "+node1+"]") {
		t.Fatalf("graph prompt:\n%s", u.Parts[0].Text)
	}
	if u.Parts[1].Text != memoryHeader || u.Parts[2].Text != "Node: Blood loss" || u.Parts[3].Image == nil || u.Parts[4].Image == nil || len(u.Parts) != 5 {
		t.Fatalf("memory parts: %+v", u.Parts[1:3])
	}
	// Two items on the newest node: E = p/5 (age 0, no children); pixels ∝ Ω: 5/8 and 3/8 of 2,007,040. The 38 KB
	// cap may shrink a dense page further.
	sizes := imageSizes(t, u)
	if sizes[0].Pixels() > 1254400 || sizes[1].Pixels() > 752640 {
		t.Fatalf("memory image sizes %v over their allowance", sizes)
	}
	for _, p := range u.Parts[3:] {
		if len(p.Image.Data) > vision.MemoryJPEGBytes {
			t.Fatalf("memory image of %d bytes", len(p.Image.Data))
		}
	}
	g1 := rec.of(KindGraph)[1].Graph // after the first memorize
	if len(g1.Budgets) != 2 || g1.Budgets[0].Pixels != 1254400 || g1.Budgets[1].Pixels != 752640 || g1.Budgets[0].Energy != 1.0 {
		t.Fatalf("first budgets %+v", g1.Budgets)
	}
	// Call 4: the unknown parent got a corrective message appended to the same context.
	last := reqs[3].Messages[len(reqs[3].Messages)-1]
	if !strings.Contains(last.Text(), `parent "Nope" of node "Transfusion" does not exist`) || len(reqs[3].Messages) != 4 {
		t.Fatalf("corrective message %q", last.Text())
	}
	// Call 6: after the second search, a premature search was refused.
	last = reqs[5].Messages[len(reqs[5].Messages)-1]
	if !strings.Contains(last.Text(), `summarize_and_memorize for node "Transfusion"`) {
		t.Fatalf("second corrective %q", last.Text())
	}
	// Call 7: three items in memory; budgets in the graph event.
	graphs := rec.of(KindGraph)
	final := graphs[len(graphs)-1].Graph
	if len(final.Nodes) != 4 || final.Nodes[3].ID != "answer" || len(final.Edges) != 4 {
		t.Fatalf("final graph %+v", final)
	}
	if len(final.Budgets) != 3 || final.TotalPixels != 2007040 {
		t.Fatalf("budgets %+v", final.Budgets)
	}
	// Blood loss (index 1, age 1 at answer time, out-degree 1): E = p/5·2·e^−0.1, plus 0.3·Ω(Transfusion item).
	eT := 0.8
	wantOmega := 1.0*2*math.Exp(-0.1) + 0.3*eT
	if b := final.Budgets[0]; b.NodeID != "Blood loss" || math.Abs(b.Omega-wantOmega) > 1e-12 || !b.Selected {
		t.Fatalf("budget 0 %+v, want Ω %v", b, wantOmega)
	}
	cites := res.Answer.Citations
	if len(cites) != 3 || cites[0].UnitID != "u1" {
		t.Fatalf("citations %+v", cites)
	}
	mems := rec.of(KindMemorize)
	if len(mems) != 2 || !mems[1].Memorize.Items[0].Kept || mems[1].Memorize.Items[0].UnitID != "u4" || mems[0].Memorize.Items[2].Kept {
		t.Fatalf("memorize events %+v", mems)
	}
	errs := rec.of(KindError)
	if len(errs) != 2 || errs[0].Error.Code != "graph" || !errs[0].Error.Recoverable {
		t.Fatalf("errors %+v", errs)
	}
	checkEventStream(t, rec.evs, "v1")
}

func TestVimRAGStepLimit(t *testing.T) {
	kb := newPageKB(t)
	chat := &modeltest.Script{Replies: []model.Delta{text("hmm"), text("<tool_call>{broken"), call("teleport", `{}`), call("add_answer_node", `{"answer": ""}`), text("still nothing")}}
	a, _ := newTestAgent(kb, chat)
	rec := &recorder{}
	res, err := a.Run(context.Background(), "v", Config{Mode: ModeVimRAG, MaxSteps: 5}, "Q", rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	if len(chat.Requests()) != 5 || res.Status != StatusNoAnswer || res.Answer != nil {
		t.Fatalf("calls %d status %s", len(chat.Requests()), res.Status)
	}
	var codes []string
	for _, e := range rec.of(KindError) {
		codes = append(codes, e.Error.Code)
	}
	if !cmp.Equal(codes, []string{"parse", "parse", "invalid_action", "invalid_action", "parse", "max_steps"}) {
		t.Fatalf("error codes %v", codes)
	}
	// Not thinking: greedy.
	if o := chat.Requests()[0].Options; *o.Temperature != 0 || o.TopP != nil || *o.Think {
		t.Fatalf("options %+v", o)
	}
	checkEventStream(t, rec.evs, "v")
}

func TestReplayRejectsBrokenStreams(t *testing.T) {
	evs := []Event{{Seq: 1, Kind: KindRunStarted, Run: &RunInfo{Mode: "vrag"}}, {Seq: 3, Kind: KindDone, Done: &DoneInfo{}}}
	if _, err := Replay(evs); err == nil {
		t.Fatal("a gap in sequence numbers was accepted")
	}
	if _, err := Replay([]Event{{Seq: 1, Kind: KindSearch}}); err == nil {
		t.Fatal("an event without its payload was accepted")
	}
	s, err := Replay([]Event{{Seq: 1, Kind: "future_kind"}})
	if err != nil || s.LastSeq != 1 {
		t.Fatalf("unknown kinds must be skipped: %v", err)
	}
}
