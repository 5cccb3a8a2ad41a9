package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
)

// limitedChat is a scripted chat whose server reports model limits (like Ollama's /api/show).
type limitedChat struct {
	sc     *modeltest.Script
	limits model.Limits
}

func (c limitedChat) Chat(ctx context.Context, req model.Request) (model.Stream, error) {
	return c.sc.Chat(ctx, req)
}

func (c limitedChat) Limits(context.Context, string) (model.Limits, error) { return c.limits, nil }

func vragScript() []model.Delta {
	return []model.Delta{text("<think>a</think><search>q1</search>"), text("<think>b</think><search>q2</search>"),
		text("<think>c</think><answer>x</answer>")}
}

func TestModeDefaults(t *testing.T) {
	cases := map[string]struct {
		cfg       Config
		temp      float64
		topP      float64 // 0: none
		think     *bool
		maxTokens int
		steps     int
		topK      int
	}{
		"vrag greedy":            {Config{Mode: ModeVRAG}, 0, 0, nil, 0, 10, 10},
		"react greedy":           {Config{Mode: ModeReAct, MaxSteps: 3}, 0, 0, nil, 0, 3, 10},
		"vanilla greedy":         {Config{Mode: ModeVanilla}, 0, 0, nil, 0, 0, 3},
		"vimrag thinking":        {Config{Mode: ModeVimRAG, Think: true}, 0.6, 0.95, model.Bool(true), 4096, 20, 3},
		"vimrag not thinking":    {Config{Mode: ModeVimRAG}, 0, 0, model.Bool(false), 4096, 20, 3},
		"caller's sampling wins": {Config{Mode: ModeVimRAG, Think: true, MaxSteps: 30, TopK: 7, Options: model.Options{Temperature: model.Float(0.2), MaxTokens: 1000}}, 0.2, 0.95, model.Bool(true), 1000, 30, 7},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := tc.cfg.Resolved()
			if err != nil {
				t.Fatal(err)
			}
			o := c.Options
			if o.Temperature == nil || *o.Temperature != tc.temp {
				t.Errorf("temperature %v, want %v", o.Temperature, tc.temp)
			}
			if (tc.topP == 0) != (o.TopP == nil) || o.TopP != nil && *o.TopP != tc.topP {
				t.Errorf("top_p %v, want %v", o.TopP, tc.topP)
			}
			if (tc.think == nil) != (o.Think == nil) || o.Think != nil && *o.Think != *tc.think {
				t.Errorf("think %v, want %v", o.Think, tc.think)
			}
			if o.MaxTokens != tc.maxTokens || c.MaxSteps != tc.steps || c.TopK != tc.topK {
				t.Errorf("max_tokens %d steps %d top_k %d, want %d %d %d", o.MaxTokens, c.MaxSteps, c.TopK, tc.maxTokens, tc.steps, tc.topK)
			}
		})
	}
	if DefaultThink(ModeVRAG) || !DefaultThink(ModeVimRAG) {
		t.Error("thinking defaults: vrag off, vimrag on")
	}
}

func TestStepAndTopKLimits(t *testing.T) {
	cases := map[string]Config{
		"vrag 2 steps":    {Mode: ModeVRAG, MaxSteps: 2},
		"vrag 11 steps":   {Mode: ModeVRAG, MaxSteps: 11},
		"vimrag 4 steps":  {Mode: ModeVimRAG, MaxSteps: 4},
		"vimrag 31 steps": {Mode: ModeVimRAG, MaxSteps: 31},
		"top_k 51":        {Mode: ModeVRAG, TopK: 51},
	}
	for name, cfg := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := cfg.Resolved(); err == nil {
				t.Fatal("accepted")
			}
			a, _ := newTestAgent(newPageKB(t), &modeltest.Script{})
			if _, err := a.Run(context.Background(), "r", cfg, "Q", nil); err == nil {
				t.Fatal("run accepted")
			}
		})
	}
	for _, ok := range []Config{{Mode: ModeVRAG, MaxSteps: 3}, {Mode: ModeVRAG, MaxSteps: 10}, {Mode: ModeVimRAG, MaxSteps: 5}, {Mode: ModeVimRAG, MaxSteps: 30}} {
		if _, err := ok.Resolved(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}

func TestContextWindow(t *testing.T) {
	qwen := model.Limits{ContextLength: 128000, DefaultContext: 4096, PatchFactor: 28, Family: "qwen25vl", Adjustable: true}
	cases := map[string]struct {
		limits   model.Limits
		cfg      Config
		reporter bool
		counted  func(model.Request) int // nil: the full estimate and more
		numCtx   int                     // 0: none sent
		codes    []string
	}{
		"ollama: sized for 10 vrag steps": {limits: qwen, cfg: Config{Mode: ModeVRAG}, reporter: true, numCtx: 12288},
		"ollama: sized for 3 vrag steps":  {limits: qwen, cfg: Config{Mode: ModeVRAG, MaxSteps: 3}, reporter: true, numCtx: 6144},
		"ollama: vimrag":                  {limits: qwen, cfg: Config{Mode: ModeVimRAG}, reporter: true, numCtx: 18432},
		"ollama: capped by the model": {limits: model.Limits{ContextLength: 8192, PatchFactor: 28, Adjustable: true}, cfg: Config{Mode: ModeVRAG},
			reporter: true, numCtx: 8192, codes: []string{"context_capped/model_too_short"}},
		"ollama: projector images cost 768 in Ollama's count": {limits: model.Limits{ContextLength: 128000, PatchFactor: 28, ServerImageTokens: 768, Adjustable: true},
			cfg: Config{Mode: ModeVRAG}, reporter: true, numCtx: 16384},
		"fixed by the profile":              {limits: qwen, cfg: Config{Mode: ModeVRAG, MaxSteps: 3, ContextLength: 32768}, reporter: true, numCtx: 32768},
		"fixed too small for the run":       {limits: qwen, cfg: Config{Mode: ModeVRAG, ContextLength: 6000}, reporter: true, numCtx: 6000, codes: []string{"context_capped/set_too_small"}},
		"off: server default, cut reported": {limits: qwen, cfg: Config{Mode: ModeVRAG, ContextLength: -1}, reporter: true, counted: func(model.Request) int { return 50 }, codes: []string{"context_truncated/truncated_default", "context_truncated/truncated_default", "context_truncated/truncated_default"}},
		"no limits reported":                {cfg: Config{Mode: ModeVRAG}, counted: func(model.Request) int { return 1 }},
		"vLLM: fixed window, too short": {limits: model.Limits{ContextLength: 8192, DefaultContext: 8192}, cfg: Config{Mode: ModeVRAG},
			reporter: true, counted: func(model.Request) int { return 1 }, codes: []string{"context_capped/server_too_short"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kb := newPageKB(t)
			kb.rank["q1"], kb.rank["q2"] = []int{1}, []int{2}
			script := vragScript()
			if tc.cfg.Mode == ModeVimRAG {
				script = []model.Delta{call("add_answer_node", `{"answer": "x"}`)}
			}
			sc := &modeltest.Script{Replies: script, Prompt: tc.counted}
			if sc.Prompt == nil {
				sc.Prompt = plausible(1.0 / 3)
			}
			a, _ := newTestAgent(kb, sc)
			if tc.reporter {
				a.Chat = limitedChat{sc, tc.limits}
			}
			rec := &recorder{}
			res, err := a.Run(context.Background(), "r", tc.cfg, "How much blood?", rec.sink)
			if err != nil {
				t.Fatal(err)
			}
			for i, req := range sc.Requests() {
				if req.Options.NumCtx != tc.numCtx {
					t.Fatalf("call %d num_ctx %d, want %d", i+1, req.Options.NumCtx, tc.numCtx)
				}
			}
			if res.Options.NumCtx != tc.numCtx || rec.evs[0].Run.Options.NumCtx != tc.numCtx || rec.evs[0].Run.Context.NumCtx != tc.numCtx {
				t.Fatalf("result and run_started must carry num_ctx %d: %+v", tc.numCtx, rec.evs[0].Run)
			}
			var codes []string
			for _, e := range rec.of(KindError) {
				codes = append(codes, e.Error.Code+"/"+e.Error.Reason)
				if e.Error.Context == nil || !e.Error.Recoverable {
					t.Errorf("context error without details: %+v", e.Error)
					continue
				}
				// The numbers the window states for the reason are there (it words the warning from them).
				if c := e.Error.Context; !statesNumbers(e.Error.Reason, c) {
					t.Errorf("%s: context %+v lacks the numbers its warning states", e.Error.Reason, c)
				}
			}
			if strings.Join(codes, ",") != strings.Join(tc.codes, ",") {
				t.Fatalf("error codes %v, want %v", codes, tc.codes)
			}
			if len(codes) > 0 && strings.HasPrefix(codes[0], "context_truncated") {
				e := rec.of(KindError)[0].Error
				if e.Context.ServerCounted != 50 || e.Context.Estimated <= 50 || !strings.Contains(e.Message, "context length to 0") {
					t.Fatalf("truncation event %+v %+v", e, e.Context)
				}
			}
		})
	}
}

// statesNumbers reports whether c holds what the window's wording of a context warning's reason names.
func statesNumbers(reason string, c *ContextInfo) bool {
	switch reason {
	case ContextSetTooSmall:
		return c.Needed > c.NumCtx && c.NumCtx > 0
	case ContextModelTooShort:
		return c.Needed > c.ModelMax && c.ModelMax > 0
	case ContextServerTooShort:
		return c.Needed > c.Window && c.Window > 0
	case ContextOverTrained:
		return c.NumCtx > c.ModelMax && c.ModelMax > 0
	case ContextGrown:
		return c.NumCtx > 0
	case ContextNearLimit:
		return c.Window > 0
	case ContextTruncated:
		return c.ServerCounted > 0 && c.Estimated > c.ServerCounted && c.Window > 0
	case ContextTruncatedDefault:
		return c.ServerCounted > 0 && c.Estimated > c.ServerCounted && c.Needed > 0
	}
	return false
}

// plausible counts a request's prompt as a server with perByte tokens per byte of text and 600 tokens per image would.
func plausible(perByte float64) func(model.Request) int {
	return func(req model.Request) int {
		n := 0
		for _, m := range req.Messages {
			for _, p := range m.Parts {
				n += int(perByte * float64(len(p.Text)))
				if p.Image != nil {
					n += 600
				}
			}
		}
		return n
	}
}

// TestContextGrowsWithTheModelsTokenizer: a model whose tokenizer makes a token of every byte needs far more than
// the estimate; the run learns the ratio from the first count and raises num_ctx before a prompt would not fit.
func TestContextGrowsWithTheModelsTokenizer(t *testing.T) {
	kb := newPageKB(t)
	long := strings.Repeat("I compare the figures of the page with the question before I decide what to search. ", 30)
	var script []model.Delta
	for i := 1; i <= 4; i++ {
		kb.rank[fmt.Sprintf("q%d", i)] = []int{i}
		script = append(script, text(fmt.Sprintf("<think>%s</think><search>q%d</search>", long, i)))
	}
	script = append(script, text("<answer>x</answer>"))
	sc := &modeltest.Script{Replies: script, Prompt: plausible(1.1)}
	a, _ := newTestAgent(kb, sc)
	a.Chat = limitedChat{sc, model.Limits{ContextLength: 32768, PatchFactor: 28, Adjustable: true}}
	rec := &recorder{}
	res, err := a.Run(context.Background(), "r", Config{Mode: ModeVRAG, MaxSteps: 4}, "Q", rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	var ctxs []int
	for _, req := range sc.Requests() {
		ctxs = append(ctxs, req.Options.NumCtx)
		if n := plausible(1.1)(req); n+1024 > req.Options.NumCtx {
			t.Errorf("a %d-token prompt sent with num_ctx %d", n, req.Options.NumCtx)
		}
	}
	var codes []string
	for _, e := range rec.of(KindError) {
		codes = append(codes, e.Error.Code)
		if e.Error.Code == "context_grown" && (e.Error.Reason != ContextGrown || !statesNumbers(ContextGrown, e.Error.Context)) {
			t.Errorf("context_grown without its reason and numbers: %+v", e.Error)
		}
	}
	if ctxs[0] != 6144 || ctxs[len(ctxs)-1] <= ctxs[0] || res.Options.NumCtx != ctxs[len(ctxs)-1] || !strings.Contains(strings.Join(codes, ","), "context_grown") ||
		strings.Contains(strings.Join(codes, ","), "truncated") {
		t.Fatalf("num_ctx per call %v, events %v", ctxs, codes)
	}
}

// TestTruncationSeenInFallingCounts: a vrag chat only grows, so a count below the previous call's is a cut, even
// when the lower bound cannot tell (a dense tokenizer).
func TestTruncationSeenInFallingCounts(t *testing.T) {
	kb := newPageKB(t)
	kb.rank["q1"], kb.rank["q2"] = []int{1}, []int{2}
	counts := []int{3000, 4000, 2100}
	i := 0
	sc := &modeltest.Script{Replies: vragScript(), Prompt: func(model.Request) int { i++; return counts[i-1] }}
	a, _ := newTestAgent(kb, sc)
	a.Chat = limitedChat{sc, model.Limits{ContextLength: 32768, Adjustable: true}}
	rec := &recorder{}
	if _, err := a.Run(context.Background(), "r", Config{Mode: ModeVRAG, ContextLength: 16384}, "Q", rec.sink); err != nil {
		t.Fatal(err)
	}
	errs := rec.of(KindError)
	if len(errs) != 1 || errs[0].Error.Code != "context_truncated" || errs[0].Error.Reason != ContextTruncated || !statesNumbers(ContextTruncated, errs[0].Error.Context) || errs[0].Error.Context.ServerCounted != 2100 || errs[0].Error.Context.Estimated < 4000 {
		t.Fatalf("errors %+v", errs)
	}
}

func TestContextNearLimit(t *testing.T) {
	kb := newPageKB(t)
	kb.rank["q1"], kb.rank["q2"] = []int{1}, []int{2}
	sc := &modeltest.Script{Replies: vragScript(), Prompt: func(model.Request) int { return 1 << 20 }}
	a, _ := newTestAgent(kb, sc)
	// The server loads the model with 1024 tokens and Proofglass is told to send none: the third call's two pages do not fit.
	a.Chat = limitedChat{sc, model.Limits{DefaultContext: 1024, PatchFactor: 28, Adjustable: true}}
	rec := &recorder{}
	if _, err := a.Run(context.Background(), "r", Config{Mode: ModeVRAG, ContextLength: -1}, "Q", rec.sink); err != nil {
		t.Fatal(err)
	}
	errs := rec.of(KindError)
	if len(errs) != 1 || errs[0].Error.Code != "context_near_limit" || !statesNumbers(errs[0].Error.Reason, errs[0].Error.Context) || errs[0].Error.Context.Window != 1024 {
		t.Fatalf("errors %+v", errs)
	}
}

func TestSystemLine(t *testing.T) {
	cases := map[string]struct {
		mode   Mode
		model  string
		limits model.Limits
		want   bool
	}{
		"vrag, Qwen2.5-VL":                 {ModeVRAG, "autumncc/Qwen2.5-VL-7B-VRAG", model.Limits{}, true},
		"vrag, an Ollama qwen2.5vl import": {ModeVRAG, "vrag:7b", model.Limits{Family: "qwen25vl"}, true},
		"vrag, Qwen3-VL by name":           {ModeVRAG, "Qwen/Qwen3-VL-8B-Instruct", model.Limits{}, false},
		"vrag, Qwen3-VL by family":         {ModeVRAG, "my-model", model.Limits{Family: "qwen3vl"}, false},
		"vanilla, gemma3":                  {ModeVanilla, "gemma3:4b", model.Limits{Family: "gemma3"}, true},
		"vimrag has its own":               {ModeVimRAG, "qwen2.5vl:7b", model.Limits{}, false},
	}
	for name, tc := range cases {
		if got := sendsSystemLine(tc.mode, tc.model, tc.limits); got != tc.want {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}

func TestTextTokenBounds(t *testing.T) {
	for _, s := range []string{"", "Answer the given question.", "阿里云上数据中心和安全云服务分别说的什么?", strings.Repeat("word ", 100)} {
		lo, hi := textTokens(s)
		if lo > hi || lo < 0 || (s != "" && hi == 0) {
			t.Errorf("%q: %d..%d", s, lo, hi)
		}
		if n := len([]rune(s)); lo > n {
			t.Errorf("%q: lower bound %d above its %d characters", s, lo, n)
		}
	}
}
