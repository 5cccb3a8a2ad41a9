package kbagent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"proofglass/backend/agent"
	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/model/ollama"
	"proofglass/backend/pdf"
	"proofglass/backend/search"
)

// replayOverOllama replays scripted model turns while the real Ollama server receives and counts every prompt: each
// request goes to the server as Proofglass built it (num_ctx included; one token of reply), and the server's prompt count
// comes back with the scripted turn. The tiny test models cannot follow the VRAG protocol; the prompt they are sent
// and count is the subject here.
type replayOverOllama struct {
	real    *ollama.Client
	replies []string
	calls   int
	counts  []int
}

func (c *replayOverOllama) Limits(ctx context.Context, name string) (model.Limits, error) {
	return c.real.Limits(ctx, name)
}

func (c *replayOverOllama) Chat(ctx context.Context, req model.Request) (model.Stream, error) {
	if c.calls >= len(c.replies) {
		return nil, fmt.Errorf("script exhausted at call %d", c.calls+1)
	}
	req.Options.MaxTokens = 1
	st, err := c.real.Chat(ctx, req)
	if err != nil {
		return nil, err
	}
	d, err := model.Collect(st)
	if err != nil {
		return nil, err
	}
	if d.Usage == nil {
		return nil, fmt.Errorf("the server reported no usage")
	}
	c.counts = append(c.counts, d.Usage.PromptTokens)
	reply := c.replies[c.calls]
	c.calls++
	return &oneDelta{d: model.Delta{Content: reply, Done: true, FinishReason: "stop", Usage: d.Usage}}, nil
}

type oneDelta struct {
	d    model.Delta
	done bool
}

func (s *oneDelta) Next() bool {
	if s.done {
		return false
	}
	s.done = true
	return true
}
func (s *oneDelta) Current() model.Delta { return s.d }
func (s *oneDelta) Err() error           { return nil }
func (s *oneDelta) Close() error         { return nil }

func e2eOllama(t *testing.T) (*ollama.Client, string) {
	t.Helper()
	h := modeltest.OllamaURL(t)
	c, err := ollama.New(h, ollama.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c, h
}

// TestE2EVRAGContextWindow: a vrag run over a 13-page PDF whose last prompt is over 4,096 tokens, against the real
// Ollama with tiny-vision (trained context 32,768, loaded with num_ctx 2048 by its Modelfile). With the context
// sized by Proofglass the server counts every prompt token Proofglass estimates; with no num_ctx (context length -1) the
// server cuts the prompt to 2,048 tokens and the run reports it.
func TestE2EVRAGContextWindow(t *testing.T) {
	real, host := e2eOllama(t)
	k := openKB(t)
	c := pdfClient(t)
	_, ids := addPDF(t, k, c, "book", testdata(t, "pdf/real/hsaur3-Ch_analysis_of_variance.pdf"))
	if len(ids) < 12 {
		t.Fatalf("%d pages, want at least 12", len(ids))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// One search per page, by words of its own text, so each search shows a new page.
	var replies []string
	reasoning := strings.Repeat("The page shows part of the analysis; I compare the group means, the residual sum of squares and the F statistic before I decide. ", 12)
	for i := range 10 {
		u, err := k.Content.Unit(ctx, ids[i])
		if err != nil {
			t.Fatal(err)
		}
		words := strings.Fields(u.Text)
		q := strings.Join(words[:min(8, len(words))], " ")
		replies = append(replies, fmt.Sprintf("<think>%s</think>\n<search>%s</search>", reasoning, q))
	}
	replies = append(replies, "<think>done</think><answer>analysis of variance</answer>")
	run := func(name string, contextLength int) (agent.Result, []agent.Event, *replayOverOllama) {
		chat := &replayOverOllama{real: real, replies: replies}
		a := &agent.Agent{Chat: chat, Retriever: &Retriever{Searcher: search.New(k, search.Options{}), Base: search.Query{Mode: search.BM25}},
			Renderer: &Renderer{KB: k, PDF: pdf.NewRenderer(c, nil, 2)}}
		var evs []agent.Event
		res, err := a.Run(ctx, name, agent.Config{Mode: agent.ModeVRAG, Model: "tiny-vision", ContextLength: contextLength}, "What does the chapter test?",
			func(e agent.Event) { evs = append(evs, e) })
		if err != nil {
			t.Fatal(err)
		}
		return res, evs, chat
	}
	contextErrors := func(evs []agent.Event) []*agent.ErrorInfo {
		var out []*agent.ErrorInfo
		for _, e := range evs {
			if e.Kind == agent.KindError && strings.HasPrefix(e.Error.Code, "context_") {
				out = append(out, e.Error)
			}
		}
		return out
	}

	// Without num_ctx: the server's 2,048-token default cuts the prompts, and the run says so.
	res, evs, chat := run("no-num-ctx", -1)
	if res.Options.NumCtx != 0 {
		t.Fatalf("num_ctx %d sent with context length -1", res.Options.NumCtx)
	}
	cut := contextErrors(evs)
	var truncated []*agent.ErrorInfo
	for _, e := range cut {
		if e.Code == "context_truncated" {
			truncated = append(truncated, e)
		}
	}
	if len(truncated) == 0 {
		t.Fatalf("no truncation reported; server counts %v", chat.counts)
	}
	last := truncated[len(truncated)-1].Context
	if last.ServerCounted > 2048 || last.ServerCounted >= last.Estimated {
		t.Fatalf("truncation event %+v", last)
	}
	t.Logf("without num_ctx: server counts %v; %d truncation events, the last: server %d < Proofglass's estimate %d (window %d)",
		chat.counts, len(truncated), last.ServerCounted, last.Estimated, last.Window)

	// Sized by Proofglass: every prompt is counted in full.
	res, evs, chat = run("sized", 0)
	if n := res.Options.NumCtx; n <= 4096 || n > 32768 {
		t.Fatalf("num_ctx %d, want above 4096 and within the model's 32768", n)
	}
	var grown []int
	for _, e := range contextErrors(evs) {
		if e.Code != "context_grown" {
			t.Fatalf("context problem with num_ctx %d: %+v %+v (server counts %v)", res.Options.NumCtx, e, e.Context, chat.counts)
		}
		grown = append(grown, e.Context.NumCtx)
	}
	// A vrag chat only grows: every count above the one before, none cut.
	for i := 1; i < len(chat.counts); i++ {
		if chat.counts[i] <= chat.counts[i-1] {
			t.Fatalf("server counts fell at call %d: %v (num_ctx %d, grown to %v)", i+1, chat.counts, res.Options.NumCtx, grown)
		}
	}
	lastCount := chat.counts[len(chat.counts)-1]
	if lastCount <= 4096 || res.Usage.PromptTokens < res.Usage.PromptTokensSent || len(chat.counts) != 11 {
		t.Fatalf("server counts %v (total %d, Proofglass's estimate %d)", chat.counts, res.Usage.PromptTokens, res.Usage.PromptTokensSent)
	}
	t.Logf("num_ctx %d (first %d, grown to %v as the counts showed this tokenizer's density): server counts %v; total %d >= Proofglass's estimate %d; last prompt %d tokens",
		res.Options.NumCtx, evs[0].Run.Options.NumCtx, grown, chat.counts, res.Usage.PromptTokens, res.Usage.PromptTokensSent, lastCount)

	// /api/ps: the model is loaded with the context Proofglass asked for.
	resp, err := http.Get(host + "/api/ps")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ps); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range ps.Models {
		if strings.HasPrefix(m.Name, "tiny-vision") {
			found = true
			t.Logf("/api/ps: %s loaded with context_length %d", m.Name, m.ContextLength)
			if m.ContextLength != res.Options.NumCtx {
				t.Errorf("/api/ps context_length %d, want the num_ctx sent (%d)", m.ContextLength, res.Options.NumCtx)
			}
		}
	}
	if !found {
		t.Errorf("/api/ps does not list tiny-vision: %+v", ps.Models)
	}
}
