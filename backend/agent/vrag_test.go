package agent

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/vision"
)

func TestVRAGPromptBytes(t *testing.T) {
	md, err := os.ReadFile(sharedReference(t))
	if err != nil {
		t.Fatal(err)
	}
	s := string(md)
	i := strings.Index(s, "prompt_ins = '''") + len("prompt_ins = '''")
	j := strings.Index(s[i:], "'''")
	demo := s[i : i+j]
	// The training copy is the demo's text without its trailing newline (vrag.md §2a).
	want := strings.Replace(strings.TrimSuffix(demo, "\n"), "{question}", "What is X?", 1)
	if got := VRAGPrompt("What is X?"); got != want {
		t.Fatalf("VRAG prompt differs from the reference:\n got %q\nwant %q", got, want)
	}
	if !strings.HasPrefix(want, "Answer the given question. You must conduct reasoning inside <think> and </think> first") {
		t.Fatalf("reference extraction went wrong: %q", want[:60])
	}
	// The corrective observation is the §2e user turn (between "\n<|im_start|>user\n" and "<|im_end|>").
	k := strings.Index(s, `\n<|im_start|>user\nYour previous action is invalid.`)
	end := strings.Index(s[k:], "<|im_end|>")
	obs := strings.ReplaceAll(s[k+len(`\n<|im_start|>user\n`):k+end], `\n`, "\n")
	if obs != vragInvalid {
		t.Fatalf("corrective message differs:\n got %q\nwant %q", vragInvalid, obs)
	}
}

func TestVimRAGPromptBytes(t *testing.T) {
	md, err := os.ReadFile(sharedReference(t))
	if err != nil {
		t.Fatal(err)
	}
	s := string(md)
	i := strings.Index(s, "You are an intelligent agent designed")
	j := strings.Index(s[i:], "</tool_call>\n````")
	if want := s[i : i+j+len("</tool_call>\n")]; VimRAGSystemPrompt() != want {
		t.Fatal("vimrag system prompt differs from vrag.md")
	}
	i = strings.Index(s, "Now that the search results")
	j = strings.Index(s[i:], "covered in prior nodes.")
	head := s[i : i+j+len("covered in prior nodes.")]
	sum := VimRAGSummaryPrompt()
	if !strings.HasPrefix(sum, head) || !strings.HasSuffix(sum, "Now, generate your response in the correct MCP format below:\n") {
		t.Fatal("vimrag summary prompt differs from vrag.md")
	}
	// The summary prompt's <tools> block holds the memorize and answer schemas, as lines of the system prompt's block.
	for _, name := range []string{"summarize_and_memorize", "add_answer_node"} {
		for _, line := range strings.Split(VimRAGSystemPrompt(), "\n") {
			if strings.Contains(line, `"name":"`+name+`"`) && !strings.Contains(sum, line+"\n") {
				t.Fatalf("summary prompt lacks the %s schema line", name)
			}
		}
	}
	if strings.Contains(sum, `"name":"add_search_node"`) {
		t.Fatal("summary prompt must not offer add_search_node")
	}
	got := VimRAGUserPrompt("Q {action_graph}?", `[{"id": "root"}]`)
	if want := "### Question\nQ {action_graph}?\n\n### Agent Action Graph\n[{\"id\": \"root\"}]\n"; got != want {
		t.Fatalf("user prompt %q, want %q", got, want)
	}
}

func TestParseVRAG(t *testing.T) {
	cases := map[string]struct {
		in                   string
		kind, content, think string
	}{
		"search":          {"<think>a</think>\n<search> q1 </search>", "search", "q1", "a"},
		"first tag wins":  {"<think>x</think><bbox>[1,2,3,4]</bbox><search>q</search>", "bbox", "[1,2,3,4]", "x"},
		"missing think":   {"<answer> Beijing </answer>", "answer", "Beijing", ""},
		"unclosed first":  {"<search>never closed <answer>A</answer>", "answer", "A", ""},
		"shortest body":   {"<search>a</search> and <search>b</search>", "search", "a", ""},
		"multiline":       {"<answer>line1\nline2</answer>", "answer", "line1\nline2", ""},
		"no tag":          {"I think the answer is 4.", "", "", ""},
		"mismatched tags": {"<search>q</answer>", "", "", ""},
		"tag in think":    {"<think>maybe <search>x</search></think><answer>y</answer>", "search", "x", "maybe <search>x</search>"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			a := parseVRAG(c.in)
			if a.Kind != c.kind || a.Content != c.content || a.Think != c.think {
				t.Fatalf("parseVRAG(%q) = %+v", c.in, a)
			}
		})
	}
}

func FuzzParseVRAG(f *testing.F) {
	for _, s := range []string{"<search>q</search>", "<think><answer>", "<bbox>[1,2,3,4]</bbox>", "<<search>>", "</search><search>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a := parseVRAG(s)
		if a.Kind != "" && !strings.Contains(s, a.Raw) {
			t.Fatalf("raw tag %q not in input", a.Raw)
		}
		var sp thinkSplitter
		th, ct := sp.feed(s)
		th2, ct2 := sp.flush()
		if len(th)+len(ct)+len(th2)+len(ct2) > len(s) {
			t.Fatal("splitter produced more text than it was fed")
		}
	})
}

func TestThinkSplitter(t *testing.T) {
	in := "<think>reason about <b>it</b></think>\n<search>q</search>"
	for _, chunk := range []int{1, 2, 3, 5, 7, 100} {
		var sp thinkSplitter
		var th, ct string
		for s := in; s != ""; {
			k := min(chunk, len(s))
			a, b := sp.feed(s[:k])
			th, ct = th+a, ct+b
			s = s[k:]
		}
		a, b := sp.flush()
		th, ct = th+a, ct+b
		if th != "reason about <b>it</b>" || ct != "\n<search>q</search>" {
			t.Fatalf("chunk %d: thinking %q content %q", chunk, th, ct)
		}
	}
}

// newTestAgent wires a scripted model to a page KB.
func newTestAgent(kb *pageKB, chat *modeltest.Script) (*Agent, *MemBlobs) {
	blobs := &MemBlobs{}
	return &Agent{Chat: chat, Retriever: kb, Renderer: kb, Blobs: blobs}, blobs
}

func TestVRAGRun(t *testing.T) {
	kb := newPageKB(t)
	kb.vector = true // crops are re-rendered from the PDF
	kb.rank["blood loss"] = []int{1, 2, 3}
	chat := &modeltest.Script{Replies: []model.Delta{
		text("<think>I need the report.</think>\n<search>blood loss</search>"),
		text("<think>Zoom on the table.</think>\n<bbox>[100, 200, 300, 400]</bbox>"),
		text("The table is small."),                               // no tag: the short corrective message
		text("<think>again</think><bbox>[0, 0, 100, 100]</bbox>"), // crop of the crop
		text("<bbox>[1, 2, 3]</bbox>"),                            // malformed box: the long corrective message
		text("<search>blood loss</search>"),                       // page 1 was shown: page 2 comes instead
		text("<think>done</think>\n<answer> 42 ml </answer>"),
	}}
	a, blobs := newTestAgent(kb, chat)
	rec := &recorder{}
	res, err := a.Run(context.Background(), "run1", Config{Mode: ModeVRAG, Model: "m"}, "How much blood?", rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusAnswered || res.Answer == nil || res.Answer.Text != "42 ml" {
		t.Fatalf("result %+v", res)
	}
	reqs := chat.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d model calls, want 7", len(reqs))
	}
	// Call 1: Qwen's default system line (what the chat template adds to VRAG's prompt), then exactly the prompt.
	if d := cmp.Diff([]model.Message{model.TextMessage(model.RoleSystem, DefaultSystemLine), model.TextMessage(model.RoleUser, VRAGPrompt("How much blood?"))}, reqs[0].Messages); d != "" {
		t.Fatalf("first request (-want +got):\n%s", d)
	}
	if reqs[0].Model != "m" {
		t.Fatalf("model %q", reqs[0].Model)
	}
	// Call 2: the assistant turn verbatim, then a user turn holding only the page image at VRAG's size.
	m := reqs[1].Messages[1:] // after the system line
	if len(m) != 3 || m[1].Role != model.RoleAssistant || m[1].Text() != chat.Replies[0].Content || m[2].Role != model.RoleUser {
		t.Fatalf("second request structure: %+v", m)
	}
	if len(m[2].Parts) != 1 || m[2].Parts[0].Image == nil {
		t.Fatalf("search observation must be one image, got %+v", m[2].Parts)
	}
	// 827x1170 raw → √(401408/967590)=0.64409: 532x753; the encoder sees 532x756.
	if got := imageSizes(t, m[2]); !cmp.Equal(got, []vision.Size{{W: 532, H: 753}}) {
		t.Fatalf("page sent at %v, want 532x753", got)
	}
	// Call 3: the crop of [100,200,300,400] in the 532x756 frame, padded 56 raw px: 423x421 raw px → sent 449x446.
	if got := imageSizes(t, reqs[2].Messages[5]); !cmp.Equal(got, []vision.Size{{W: 449, H: 446}}) {
		t.Fatalf("crop sent at %v, want 449x446", got)
	}
	crops := rec.of(KindCrop)
	if len(crops) != 2 {
		t.Fatalf("%d crop events, want 2", len(crops))
	}
	c := crops[0].Crop
	wantRaw := [4]float64{100*827.0/532 - 56, 200*1170.0/756 - 56, 300*827.0/532 + 56, 400*1170.0/756 + 56}
	if !near4(c.BBoxRaw, wantRaw) || c.FrameW != 532 || c.FrameH != 756 || c.BBoxSent != [4]float64{100, 200, 300, 400} {
		t.Fatalf("crop event %+v, want raw %v", c, wantRaw)
	}
	if !c.TrueZoom || c.OfCrop || c.Page != 1 || c.Image.Image.Width != 449 || c.Image.EncoderW != 448 || c.Image.VisualTokens != 256 {
		t.Fatalf("crop event details %+v", c)
	}
	if _, ok := blobs.Get(c.Image.Image.Blob); !ok {
		t.Fatal("crop image not stored as a blob")
	}
	// The renderer was asked for the padded page region at the crop's send size (the true zoom).
	if rc := kb.calls[1]; rc.Region.Array() != wantRaw && !near4(rc.Region.Array(), wantRaw) || rc.Out != (vision.Size{W: 449, H: 446}) {
		t.Fatalf("render call %+v", kb.calls[1])
	}
	// Call 4: no tag → the short corrective message as the user turn.
	if got := reqs[3].Messages[len(reqs[3].Messages)-1]; got.Text() != vragNoTag || len(got.Parts) != 1 {
		t.Fatalf("no-tag observation %q", got.Text())
	}
	// Crop of the crop maps through the first crop's region (448x448 frame).
	c2 := crops[1].Crop
	want2 := [4]float64{wantRaw[0], wantRaw[1], wantRaw[0] + 100*(wantRaw[2]-wantRaw[0])/448 + 56, wantRaw[1] + 100*(wantRaw[3]-wantRaw[1])/448 + 56}
	if !c2.OfCrop || !near4(c2.BBoxRaw, want2) {
		t.Fatalf("crop of crop %v, want %v", c2.BBoxRaw, want2)
	}
	// Call 6: malformed bbox → the long corrective message.
	if got := reqs[5].Messages[len(reqs[5].Messages)-1].Text(); got != vragInvalid {
		t.Fatalf("bad-bbox observation %q", got)
	}
	// The second search skips page 1 and shows page 2.
	results := rec.of(KindResults)
	if len(results) != 2 {
		t.Fatalf("%d results events", len(results))
	}
	r2 := results[1].Results
	if r2.Hits[0].Skipped != "already_shown" || r2.Hits[0].Shown || !r2.Hits[1].Shown || r2.Sent[0].UnitID != "u2" {
		t.Fatalf("second results %+v", r2)
	}
	// Citations: most recently viewed first; page 1 with its last crop's region.
	cites := res.Answer.Citations
	if len(cites) != 2 || cites[0].UnitID != "u2" || cites[1].UnitID != "u1" || cites[1].Region == nil || cites[0].Region != nil {
		t.Fatalf("citations %+v", cites)
	}
	wantKinds := []Kind{KindRunStarted,
		KindThinking, KindContent, KindSearch, KindResults,
		KindThinking, KindContent, KindCrop,
		KindContent, KindError,
		KindThinking, KindContent, KindCrop,
		KindContent, KindError,
		KindContent, KindSearch, KindResults,
		KindThinking, KindContent, KindAnswer, KindDone}
	if d := cmp.Diff(wantKinds, rec.kinds()); d != "" {
		t.Fatalf("event kinds (-want +got):\n%s", d)
	}
	done := rec.evs[len(rec.evs)-1].Done
	// Images are counted per call that carries them: calls 2..7 carry 1,2,2,3,3,4 images.
	if done.Usage.Steps != 7 || done.Usage.ToolSteps != 5 || done.Usage.Images != 15 || done.Usage.PromptTokens != 700 {
		t.Fatalf("usage %+v", done.Usage)
	}
	// Pages cost 513 tokens (532x756 frame), both crops 256 (448x448).
	if done.Usage.VisualTokens != 513*1+769*2+1025*2+1538 {
		t.Fatalf("visual tokens %d", done.Usage.VisualTokens)
	}
	checkEventStream(t, rec.evs, "run1")
}

func near4(a, b [4]float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9 {
			return false
		}
	}
	return true
}

// checkEventStream asserts the invariants every run's events keep, and that they replay through JSON.
func checkEventStream(t *testing.T, evs []Event, runID string) {
	t.Helper()
	for i, e := range evs {
		if e.Seq != i+1 || e.RunID != runID || e.Time.IsZero() {
			t.Fatalf("event %d: seq %d run %q time %v", i, e.Seq, e.RunID, e.Time)
		}
	}
	if evs[0].Kind != KindRunStarted || evs[len(evs)-1].Kind != KindDone {
		t.Fatalf("stream must open with run_started and close with done: %s … %s", evs[0].Kind, evs[len(evs)-1].Kind)
	}
	live, err := Replay(evs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(evs)
	if err != nil {
		t.Fatal(err)
	}
	var back []Event
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	stored, err := Replay(back)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(live, stored); d != "" {
		t.Fatalf("stored run replays differently (-live +stored):\n%s", d)
	}
	if strings.Contains(string(b), "\"data\"") {
		t.Fatal("events must not inline image bytes")
	}
}

func TestVRAGStepLimit(t *testing.T) {
	kb := newPageKB(t)
	kb.rank["q"] = []int{1, 2, 3, 4}
	var replies []model.Delta
	for i := 0; i < 4; i++ {
		replies = append(replies, text("<search>q</search>"))
	}
	chat := &modeltest.Script{Replies: replies}
	a, _ := newTestAgent(kb, chat)
	rec := &recorder{}
	res, err := a.Run(context.Background(), "r", Config{Mode: ModeVRAG, MaxSteps: 3}, "Q", rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	reqs := chat.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d calls, want 3 tool steps + the answer turn", len(reqs))
	}
	last := reqs[3].Messages[len(reqs[3].Messages)-1]
	if len(last.Parts) != 2 || last.Parts[0].Image == nil || last.Parts[1].Text != vragAnswerNow {
		t.Fatalf("final observation must be the image then the answer-now text: %+v", last.Parts)
	}
	if res.Status != StatusNoAnswer || res.Answer == nil || !res.Answer.Forced || res.Answer.Text != vragSorry {
		t.Fatalf("result %+v %+v", res, res.Answer)
	}
	// Three different pages were shown, one per search.
	var units []string
	for _, e := range rec.of(KindResults) {
		units = append(units, e.Results.Sent[0].UnitID)
	}
	if !cmp.Equal(units, []string{"u1", "u2", "u3"}) {
		t.Fatalf("pages shown %v", units)
	}
}

func TestVRAGNoNewResults(t *testing.T) {
	kb := newPageKB(t)
	kb.rank["q"] = []int{1}
	chat := &modeltest.Script{Replies: []model.Delta{text("<search>q</search>"), text("<search>q</search>"), text("<search>nothing</search>"), text("<answer>x</answer>")}}
	a, _ := newTestAgent(kb, chat)
	if _, err := a.Run(context.Background(), "r", Config{Mode: ModeVRAG}, "Q", nil); err != nil {
		t.Fatal(err)
	}
	reqs := chat.Requests()
	if got := reqs[2].Messages[len(reqs[2].Messages)-1].Text(); got != noNewResults {
		t.Fatalf("repeat search observation %q", got)
	}
	if got := reqs[3].Messages[len(reqs[3].Messages)-1].Text(); got != noResults {
		t.Fatalf("empty search observation %q", got)
	}
}

func TestReActHasNoCrop(t *testing.T) {
	kb := newPageKB(t)
	kb.rank["q"] = []int{2}
	chat := &modeltest.Script{Replies: []model.Delta{
		text("<search>q</search>"), text("<bbox>[1, 2, 30, 40]</bbox>"), text("<answer>a</answer>"),
	}}
	a, _ := newTestAgent(kb, chat)
	rec := &recorder{}
	res, err := a.Run(context.Background(), "r", Config{Mode: ModeReAct}, "Q", rec.sink)
	if err != nil || res.Status != StatusAnswered {
		t.Fatal(err, res.Status)
	}
	reqs := chat.Requests()
	if reqs[0].Messages[1].Text() != ReActPrompt("Q") || strings.Contains(ReActPrompt("Q"), "bbox") {
		t.Fatal("react prompt must be VRAG's without the crop action")
	}
	if got := reqs[2].Messages[len(reqs[2].Messages)-1].Text(); got != vragNoTag {
		t.Fatalf("a bbox in react must be an invalid action, got %q", got)
	}
	if len(rec.of(KindCrop)) != 0 {
		t.Fatal("react cropped")
	}
}

func TestVanilla(t *testing.T) {
	kb := newPageKB(t)
	kb.rank["What is on page 3?"] = []int{3, 1, 2, 4}
	chat := &modeltest.Script{Replies: []model.Delta{text("<think>look</think> <answer>a table</answer>")}}
	a, _ := newTestAgent(kb, chat)
	rec := &recorder{}
	res, err := a.Run(context.Background(), "r", Config{Mode: ModeVanilla, TopK: 2}, "What is on page 3?", rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	reqs := chat.Requests()
	if len(reqs) != 1 || len(reqs[0].Messages) != 2 || reqs[0].Messages[0].Text() != DefaultSystemLine {
		t.Fatalf("vanilla must make one call with the system line and one message, got %d calls", len(reqs))
	}
	m := reqs[0].Messages[1]
	if got := imageSizes(t, m); len(got) != 2 || got[0] != (vision.Size{W: 532, H: 753}) {
		t.Fatalf("images %v", got)
	}
	if m.Parts[2].Text != VanillaPrompt("What is on page 3?") {
		t.Fatal("the prompt must follow the images")
	}
	if res.Answer.Text != "a table" || len(res.Answer.Citations) != 2 || res.Answer.Citations[0].Page != 3 {
		t.Fatalf("answer %+v", res.Answer)
	}
	checkEventStream(t, rec.evs, "r")
}

func TestCancelledRun(t *testing.T) {
	kb := newPageKB(t)
	kb.rank["q"] = []int{1}
	ctx, cancel := context.WithCancel(context.Background())
	kb.searchHook = func(context.Context, string) { cancel() }
	chat := &modeltest.Script{Replies: []model.Delta{text("<search>q</search>"), text("<answer>x</answer>")}}
	a, _ := newTestAgent(kb, chat)
	rec := &recorder{}
	res, err := a.Run(ctx, "r", Config{Mode: ModeVRAG}, "Q", rec.sink)
	if !errors.Is(err, context.Canceled) || res.Status != StatusCancelled {
		t.Fatalf("err %v status %s", err, res.Status)
	}
	last := rec.evs[len(rec.evs)-1]
	if last.Kind != KindDone || last.Done.Status != StatusCancelled {
		t.Fatalf("last event %+v", last)
	}
	if errs := rec.of(KindError); len(errs) != 1 || errs[0].Error.Code != "cancelled" {
		t.Fatalf("errors %+v", errs)
	}
	checkEventStream(t, rec.evs, "r")
}

func TestModelFailure(t *testing.T) {
	kb := newPageKB(t)
	chat := &modeltest.Script{} // no Replies: the first call fails
	a, _ := newTestAgent(kb, chat)
	rec := &recorder{}
	res, err := a.Run(context.Background(), "r", Config{Mode: ModeVRAG}, "Q", rec.sink)
	if err == nil || res.Status != StatusFailed {
		t.Fatalf("err %v status %s", err, res.Status)
	}
	if errs := rec.of(KindError); len(errs) != 1 || errs[0].Error.Code != "model" || errs[0].Error.Recoverable {
		t.Fatalf("errors %+v", errs)
	}
}

func TestUnknownMode(t *testing.T) {
	a := &Agent{}
	if _, err := a.Run(context.Background(), "", Config{Mode: "nope"}, "Q", nil); err == nil {
		t.Fatal("unknown mode accepted")
	}
}
