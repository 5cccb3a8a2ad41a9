package library

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/kb"
	"proofglass/backend/model/modeltest"
)

// Prepare resolves every face's scope one way and refuses, before anything is stored or any model called, what
// cannot run: the refusal is a RequestError naming what was wrong.
func TestPrepareScopeAndRefusals(t *testing.T) {
	ctx := context.Background()
	lib, docs := openWithDocs(t)
	pdfID, imgID := docs["pdf"].ID, docs["image"].ID
	ok := map[string]struct {
		scope Scope
		want  []int64
	}{
		"no scope":                   {Scope{}, nil},
		"by id":                      {Scope{Documents: []int64{pdfID}}, []int64{pdfID}},
		"by file name":               {Scope{DocumentNames: []string{docs["pdf"].Name}}, []int64{pdfID}},
		"ids and names, one of each": {Scope{Documents: []int64{imgID}, DocumentNames: []string{docs["pdf"].Name}}, []int64{imgID, pdfID}},
		"within the collection":      {Scope{Collection: "docs", Documents: []int64{pdfID}}, []int64{pdfID}},
	}
	for name, c := range ok {
		t.Run(name, func(t *testing.T) {
			chat := modeltest.Always("<answer>x</answer>")
			q, err := lib.Prepare(ctx, AskRequest{Question: "What is measured?", Scope: c.scope, Chat: chat})
			if err != nil {
				t.Fatal(err)
			}
			if got := q.Config().Documents; !slices.Equal(got, c.want) {
				t.Errorf("documents %v, want %v", got, c.want)
			}
			if n := len(chat.Requests()); n != 0 {
				t.Errorf("Prepare called the model %d times", n)
			}
		})
	}
	refused := map[string]struct {
		req  AskRequest
		want string
		is   error
	}{
		"unknown file name":      {AskRequest{Scope: Scope{DocumentNames: []string{"nope.pdf"}}}, "nope.pdf", kb.ErrNotFound},
		"unknown id":             {AskRequest{Scope: Scope{Documents: []int64{999999}}}, "999999", kb.ErrNotFound},
		"unknown collection":     {AskRequest{Scope: Scope{Collection: "elsewhere"}}, "elsewhere", ErrNoCollection},
		"outside the collection": {AskRequest{Scope: Scope{Collection: "other", Documents: []int64{pdfID}}}, "not found", kb.ErrNotFound},
		"filter passes nothing":  {AskRequest{Scope: Scope{Where: "org=nobody at all"}}, "no document passes", nil},
		"filter unreadable":      {AskRequest{Scope: Scope{Where: "year=soon"}}, "want a year", nil},
		"unknown mode":           {AskRequest{Options: RunOptions{Mode: "oracle"}}, "unknown mode", nil},
		"steps over the limit":   {AskRequest{Options: RunOptions{MaxSteps: 1000}}, "1000", nil},
		"empty question":         {AskRequest{Question: "-"}, "empty", nil},
	}
	if _, err := lib.KB.Docs.CreateCollection(ctx, kb.Collection{Name: "other"}); err != nil {
		t.Fatal(err)
	}
	for name, c := range refused {
		t.Run(name, func(t *testing.T) {
			chat := modeltest.Always("<answer>x</answer>")
			c.req.Chat = chat
			switch c.req.Question {
			case "":
				c.req.Question = "What is measured?"
			case "-":
				c.req.Question = ""
			}
			_, err := lib.Prepare(ctx, c.req)
			wantRefusal(t, err, c.want, c.is)
			if n := len(chat.Requests()); n != 0 {
				t.Errorf("a refused question called the model %d times", n)
			}
		})
	}
	runs, err := lib.KB.History.Runs(ctx, 0)
	if err != nil || len(runs) != 0 {
		t.Errorf("Prepare stored runs: %d %v", len(runs), err)
	}
}

// Ask records the question and the answer in a conversation (or, run-only, just the run), and takes the settings'
// defaults: a face that gives no step bound runs with the settings' own.
func TestAskStoresTheTurnWithTheSettingsDefaults(t *testing.T) {
	ctx := context.Background()
	lib, docs := openWithDocs(t)
	s := lib.Config.Current()
	s.Agent.VRAGMaxSteps = 4
	if err := lib.Config.Update(s); err != nil {
		t.Fatal(err)
	}
	chat := modeltest.Always("<answer>Factor XIII</answer>")
	var kinds []agent.Kind
	turn, err := lib.Ask(ctx, AskRequest{Question: "What is measured?", Chat: chat,
		Scope: Scope{Documents: []int64{docs["pdf"].ID}}, Options: RunOptions{Mode: "vrag"}},
		func(ev agent.Event) { kinds = append(kinds, ev.Kind) })
	if err != nil {
		t.Fatal(err)
	}
	if turn.ConversationID == 0 || turn.RunID == 0 || turn.Result.Answer == nil || turn.Result.Answer.Text != "Factor XIII" {
		t.Fatalf("turn %+v", turn)
	}
	msgs, _ := lib.KB.History.Messages(ctx, turn.ConversationID)
	if len(msgs) != 2 || msgs[0].Content != "What is measured?" || msgs[1].RunID != turn.RunID {
		t.Fatalf("messages %+v", msgs)
	}
	if kinds[0] != agent.KindRunStarted || kinds[len(kinds)-1] != agent.KindDone {
		t.Errorf("events %v", kinds)
	}
	q, err := lib.Prepare(ctx, AskRequest{Question: "q", Chat: chat, Options: RunOptions{Mode: "vrag"}})
	if err != nil {
		t.Fatal(err)
	}
	if q.Config().MaxSteps != 4 {
		t.Errorf("max steps %d, want the settings' 4", q.Config().MaxSteps)
	}

	convs, _ := lib.KB.History.Conversations(ctx)
	only, err := lib.Ask(ctx, AskRequest{Question: "Run only?", RunOnly: true, Chat: chat}, func(agent.Event) {})
	if err != nil || only.RunID == 0 || only.ConversationID != 0 {
		t.Fatalf("run-only: %+v %v", only, err)
	}
	if after, _ := lib.KB.History.Conversations(ctx); len(after) != len(convs) {
		t.Errorf("a run-only question made a conversation: %d → %d", len(convs), len(after))
	}

	_, err = lib.Ask(ctx, AskRequest{Question: "And then?", ConversationID: 4242, Chat: chat}, func(agent.Event) {
		t.Error("an event for an unknown conversation")
	})
	if !errors.Is(err, kb.ErrNotFound) || !strings.Contains(err.Error(), "4242") {
		t.Errorf("unknown conversation: %v", err)
	}
}

// wantRefusal fails the test unless err is a RequestError saying want (and, with is, wrapping it).
func wantRefusal(t *testing.T, err error, want string, is error) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v, want one saying %q", err, want)
	}
	if !IsRequestError(err) {
		t.Errorf("%v is not a RequestError", err)
	}
	if is != nil && !errors.Is(err, is) {
		t.Errorf("%v is not %v", err, is)
	}
}
