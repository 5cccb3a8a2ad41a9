package library

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/followup"
	"proofglass/backend/kbagent"
	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
)

// convModel is a scripted model for conversations: rewrite requests (Proofglass's own system prompt) get the next of
// rewrites, agent calls the next of turns. It records every request (Take).
type convModel struct {
	*modeltest.Script
	mu         sync.Mutex
	rewrites   []string
	rewriteErr error
	turns      []string
}

func newConvModel(rewrites, turns []string) *convModel {
	m := &convModel{rewrites: rewrites, turns: turns}
	m.Script = &modeltest.Script{Reply: m.reply}
	return m
}

func (m *convModel) reply(req model.Request) (model.Delta, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var reply string
	if isRewrite(req) {
		if m.rewriteErr != nil {
			return model.Delta{}, m.rewriteErr
		}
		reply, m.rewrites = m.rewrites[0], m.rewrites[1:]
	} else {
		reply, m.turns = m.turns[0], m.turns[1:]
	}
	return model.Delta{Content: reply}, nil
}

func isRewrite(req model.Request) bool {
	return len(req.Messages) > 0 && req.Messages[0].Role == model.RoleSystem && req.Messages[0].Text() == followup.SystemPrompt
}

// turn asks question in conversation conv (0: a new one) and returns the conversation, the run's events and the
// requests the model received.
func turn(t *testing.T, lib *Library, m *convModel, conv int64, question string) (int64, []agent.Event, []model.Request) {
	t.Helper()
	ctx := context.Background()
	conv, err := lib.BeginTurn(ctx, conv, question)
	if err != nil {
		t.Fatal(err)
	}
	var evs []agent.Event
	tr, err := lib.AnswerTurn(ctx, conv, m, agent.Config{Mode: agent.ModeVRAG, Model: "scripted"}, question,
		func(ev agent.Event) { evs = append(evs, ev) })
	if err != nil {
		t.Fatal(err)
	}
	// The stored run replays to the same rewrite.
	stored, err := kbagent.Events(ctx, lib.KB, tr.RunID)
	if err != nil {
		t.Fatal(err)
	}
	live, _ := agent.Replay(evs)
	replayed, err := agent.Replay(stored)
	if err != nil {
		t.Fatal(err)
	}
	if (live.Rewrite == nil) != (replayed.Rewrite == nil) || (live.Rewrite != nil && live.Rewrite.Question != replayed.Rewrite.Question) {
		t.Errorf("replayed rewrite %+v, live %+v", replayed.Rewrite, live.Rewrite)
	}
	return conv, evs, m.Take()
}

func eventsOf(evs []agent.Event, k agent.Kind) []agent.Event {
	var out []agent.Event
	for _, ev := range evs {
		if ev.Kind == k {
			out = append(out, ev)
		}
	}
	return out
}

func TestFollowUpsAreRewrittenFromTheConversation(t *testing.T) {
	lib, docs := openWithDocs(t)
	pdfName := docs["pdf"].Name
	m := newConvModel(
		[]string{
			"Standalone question: How was postpartum blood loss measured in the Factor XIII study?",
			"What was the Factor XIII activity of women with severe postpartum haemorrhage in the Factor XIII study?",
		},
		[]string{
			"<search>Factor XIII activity postpartum blood loss</search>", "<answer>Prepartum Factor XIII activity.</answer>",
			"<search>blood loss measurement</search>", "<answer>By weighing.</answer>",
			"<search>Factor XIII severe haemorrhage</search>", "<answer>Lower.</answer>",
			"<search>bkf plot</search>", "<answer>A plot.</answer>",
		},
	)

	// Turn 1: the first question of a conversation is sent as asked, with no rewrite call and no event.
	conv, evs, reqs := turn(t, lib, m, 0, "What does the Factor XIII study measure?")
	if len(eventsOf(evs, agent.KindRewrite)) != 0 || len(reqs) != 2 || isRewrite(reqs[0]) {
		t.Fatalf("first turn: %d rewrite events, %d requests", len(eventsOf(evs, agent.KindRewrite)), len(reqs))
	}
	ans := eventsOf(evs, agent.KindAnswer)[0].Answer
	if len(ans.Citations) == 0 || ans.Citations[0].DocumentName != pdfName {
		t.Fatalf("first answer cites %+v", ans.Citations)
	}
	page1 := ans.Citations[0].Page

	// Turn 2: an elliptic follow-up is rewritten from turn 1 before the agent runs.
	_, evs, reqs = turn(t, lib, m, conv, "And how was it measured?")
	if len(reqs) != 3 || !isRewrite(reqs[0]) {
		t.Fatalf("second turn: %d requests, first is rewrite=%v", len(reqs), len(reqs) > 0 && isRewrite(reqs[0]))
	}
	rw := reqs[0].Messages[1].Text()
	for _, want := range []string{"User: What does the Factor XIII study measure?", "Assistant: Prepartum Factor XIII activity.",
		"(cited: " + pdfName + " p. ", "Last question: And how was it measured?"} {
		if !strings.Contains(rw, want) {
			t.Errorf("rewrite request lacks %q:\n%s", want, rw)
		}
	}
	if !strings.Contains(rw, pdfName+" p. "+itoa(page1)) {
		t.Errorf("rewrite request does not name the cited page %d:\n%s", page1, rw)
	}
	standalone := "How was postpartum blood loss measured in the Factor XIII study?"
	agentPrompt := reqs[1].Messages[len(reqs[1].Messages)-1].Text()
	if agentPrompt != agent.VRAGPrompt(standalone) {
		t.Errorf("the agent was not asked the rewritten question byte for byte:\n%s", agentPrompt)
	}
	rev := eventsOf(evs, agent.KindRewrite)
	if len(rev) != 1 || !rev[0].Rewrite.Rewritten || rev[0].Rewrite.Question != standalone || rev[0].Rewrite.Asked != "And how was it measured?" {
		t.Fatalf("rewrite event %+v", rev)
	}
	if rev[0].Step != 0 || evs[0].Kind != agent.KindRunStarted || evs[0].Run.Question != "And how was it measured?" {
		t.Errorf("rewrite event must follow run_started (which keeps the asked question): %+v", evs[0].Run)
	}
	// The documents the first answer cited are the soft scope hint, visible in the search events.
	wantPrefer := []agent.DocRef{{ID: itoa64(docs["pdf"].ID), Name: pdfName}}
	if !sameDocs(rev[0].Rewrite.Prefer, wantPrefer) {
		t.Errorf("rewrite prefers %+v, want %+v", rev[0].Rewrite.Prefer, wantPrefer)
	}
	for _, s := range eventsOf(evs, agent.KindSearch) {
		if !sameDocs(s.Search.Prefer, wantPrefer) {
			t.Errorf("search event prefers %+v", s.Search.Prefer)
		}
	}
	// One extra call, counted in the run's usage.
	u := eventsOf(evs, agent.KindDone)[0].Done.Usage
	if u.RewriteCalls != 1 || u.Steps != 2 || u.PromptTokens != 300 || u.CompletionTokens != 30 {
		t.Errorf("usage %+v, want 1 rewrite call + 2 steps, 300 + 30 tokens", u)
	}

	// Turn 3: the rewrite sees both earlier turns, turn 2 in its standalone form.
	_, evs, reqs = turn(t, lib, m, conv, "What about women with severe haemorrhage?")
	if len(reqs) != 3 || !isRewrite(reqs[0]) {
		t.Fatalf("third turn: %d requests", len(reqs))
	}
	rw = reqs[0].Messages[1].Text()
	for _, want := range []string{"User: What does the Factor XIII study measure?", "User: " + standalone, "Assistant: By weighing.",
		"Last question: What about women with severe haemorrhage?"} {
		if !strings.Contains(rw, want) {
			t.Errorf("third rewrite request lacks %q:\n%s", want, rw)
		}
	}
	if got := eventsOf(evs, agent.KindRewrite)[0].Rewrite.Question; !strings.HasPrefix(got, "What was the Factor XIII activity") {
		t.Errorf("third turn understood as %q", got)
	}

	// Turn 4: a question that stands alone is not rewritten, but still searches the cited documents first.
	_, evs, reqs = turn(t, lib, m, conv, "Which chart in the library plots the BKF data of the sample?")
	if len(reqs) != 2 || isRewrite(reqs[0]) {
		t.Fatalf("standalone question: %d requests", len(reqs))
	}
	rev = eventsOf(evs, agent.KindRewrite)
	if len(rev) != 1 || rev[0].Rewrite.Rewritten || rev[0].Rewrite.Reason != "standalone" || len(rev[0].Rewrite.Prefer) == 0 {
		t.Errorf("standalone rewrite event %+v", rev)
	}
}

func TestFollowUpRewriteFailureFallsBackToTheQuestion(t *testing.T) {
	lib, _ := openWithDocs(t)
	m := newConvModel(nil, []string{"<search>Factor XIII</search>", "<answer>Factor XIII.</answer>",
		"<search>and then</search>", "<answer>Still Factor XIII.</answer>",
		"<search>more</search>", "<answer>Asked as is.</answer>"})
	conv, _, _ := turn(t, lib, m, 0, "What does the Factor XIII study measure?")
	m.rewriteErr = errors.New("connection refused")
	_, evs, reqs := turn(t, lib, m, conv, "And then?")
	rev := eventsOf(evs, agent.KindRewrite)
	if len(rev) != 1 || rev[0].Rewrite.Rewritten || !strings.Contains(rev[0].Rewrite.Error, "connection refused") || rev[0].Rewrite.Question != "And then?" {
		t.Fatalf("rewrite event %+v", rev)
	}
	// Messages[0] is Qwen's default system line; the prompt with the question follows.
	if last := reqs[len(reqs)-1]; isRewrite(last) || !strings.Contains(last.Messages[1].Text(), "And then?") {
		t.Errorf("the agent did not get the question as asked")
	}
	if a := eventsOf(evs, agent.KindAnswer); len(a) != 1 || a[0].Answer.Text != "Still Factor XIII." {
		t.Errorf("answer %+v", a)
	}

	// Turned off in settings: no rewrite call, the event says so.
	m.rewriteErr = nil
	lib.Config.Settings.Agent.FollowUps = "off"
	_, evs, reqs = turn(t, lib, m, conv, "And more?")
	if rev := eventsOf(evs, agent.KindRewrite); len(rev) != 1 || rev[0].Rewrite.Reason != "off" || len(reqs) != 2 || isRewrite(reqs[0]) {
		t.Errorf("off: %+v, %d requests", rev, len(reqs))
	}
}

func TestBeginTurnRefusesAnUnknownConversation(t *testing.T) {
	lib, _ := openWithDocs(t)
	if _, err := lib.BeginTurn(context.Background(), 4242, "And then?"); err == nil || !strings.Contains(err.Error(), "4242") {
		t.Errorf("unknown conversation: %v", err)
	}
}

func sameDocs(a, b []agent.DocRef) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func itoa(n int) string     { return strconv.Itoa(n) }
func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
