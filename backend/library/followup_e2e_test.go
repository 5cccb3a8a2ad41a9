package library

import (
	"context"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/model/ollama"
)

// rewriteTo sends rewrite calls to another model name on the same server (to make the real server fail them).
type rewriteTo struct {
	next model.Chat
	name string
}

func (c rewriteTo) Chat(ctx context.Context, req model.Request) (model.Stream, error) {
	if isRewrite(req) {
		req.Model = c.name
	}
	return c.next.Chat(ctx, req)
}

// TestFollowUpE2EOllama asks a follow-up against the real Ollama of ../shared/tools/ollama-e2e: the rewrite call
// reaches the server (its prompt is counted there), and when the server fails it (an unknown model), the run answers
// the question as asked and says so. tiny-vision's words mean nothing: only the plumbing is asserted.
func TestFollowUpE2EOllama(t *testing.T) {
	host := modeltest.OllamaURL(t)
	c, err := ollama.New(host, ollama.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lib, _ := openWithDocs(t)
	ctx := context.Background()
	zero, seed := 0.0, 1
	// 16 tokens, as tiny-vision's Modelfile: its random weights end longer replies without a done message.
	cfg := agent.Config{Mode: agent.ModeVanilla, Model: "tiny-vision", TopK: 1, Options: model.Options{Temperature: &zero, Seed: &seed, MaxTokens: 16}}
	ask := func(chat model.Chat, conv int64, q string) (int64, agent.State) {
		t.Helper()
		conv, err := lib.BeginTurn(ctx, conv, q)
		if err != nil {
			t.Fatal(err)
		}
		var evs []agent.Event
		if _, err := lib.AnswerTurn(ctx, conv, chat, cfg, q, func(ev agent.Event) { evs = append(evs, ev) }); err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		st, err := agent.Replay(evs)
		if err != nil {
			t.Fatal(err)
		}
		return conv, st
	}
	conv, first := ask(c, 0, "What does the Factor XIII study measure?")
	if first.Done == nil || first.Done.Usage.RewriteCalls != 0 {
		t.Fatalf("first turn %+v", first.Done)
	}
	base := first.Done.Usage.PromptTokens

	_, st := ask(c, conv, "And how was it measured?")
	u := st.Done.Usage
	if st.Rewrite == nil || !st.Rewrite.Rewritten || st.Rewrite.Error != "" || u.RewriteCalls != 1 {
		t.Fatalf("rewrite %+v, usage %+v", st.Rewrite, u)
	}
	// The server counted the rewrite's prompt on top of the agent call's.
	if u.PromptTokens <= base {
		t.Errorf("prompt tokens %d with the rewrite, %d without: the rewrite call did not reach the server", u.PromptTokens, base)
	}
	t.Logf("understood as %q (random weights); %d prompt tokens with the rewrite, %d without", st.Rewrite.Question, u.PromptTokens, base)

	_, st = ask(rewriteTo{c, "no-such-model-for-rewrite"}, conv, "And why?")
	if st.Rewrite == nil || st.Rewrite.Rewritten || st.Rewrite.Error == "" || st.Rewrite.Question != "And why?" {
		t.Fatalf("a failed rewrite: %+v", st.Rewrite)
	}
	if st.Done.Status != agent.StatusAnswered {
		t.Errorf("the run did not go on with the question as asked: %+v", st.Done)
	}
	t.Logf("failed rewrite noted: %s", st.Rewrite.Error)
}
