package modeltest

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"proofglass/backend/model"
)

func TestScript(t *testing.T) {
	ctx := context.Background()
	s := &Script{Replies: []model.Delta{{Reasoning: "hm", Content: "first reply"}, {Content: "second"}}, Chunk: 4,
		Prompt: func(req model.Request) int { return len(req.Messages) }}
	for i, want := range []string{"first reply", "second"} {
		st, err := s.Chat(ctx, model.Request{Model: "m", Messages: make([]model.Message, i+1)})
		if err != nil {
			t.Fatal(err)
		}
		d, err := model.Collect(st)
		if err != nil || d.Content != want || d.Usage == nil || d.Usage.PromptTokens != i+1 {
			t.Fatalf("call %d: %+v %v", i, d, err)
		}
	}
	if _, err := s.Chat(ctx, model.Request{}); err == nil {
		t.Error("a call past the script succeeded")
	}
	if n := len(s.Requests()); n != 3 {
		t.Errorf("%d requests recorded, want 3", n)
	}
	if n := len(s.Take()); n != 3 || len(s.Requests()) != 0 {
		t.Errorf("Take: %d, then %d", n, len(s.Requests()))
	}
	a := Always("yes")
	for range 3 {
		st, _ := a.Chat(ctx, model.Request{})
		if d, _ := model.Collect(st); d.Content != "yes" {
			t.Errorf("Always: %q", d.Content)
		}
	}
	boom := errors.New("boom")
	if _, err := Func(func(model.Request) (string, error) { return "", boom }).Chat(ctx, model.Request{}); !errors.Is(err, boom) {
		t.Errorf("Func's error: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	st, _ := Replay("a long reply in many pieces").Chat(cctx, model.Request{})
	cancel()
	if st.Next() || st.Err() == nil {
		t.Error("a cancelled stream went on")
	}
}

func TestServer(t *testing.T) {
	s := &Server{Turns: []string{"one", "two"}, Usage: true}
	hs := httptest.NewServer(s)
	defer hs.Close()
	for _, want := range []string{"one", "two", "one"} {
		resp, err := hs.Client().Post(hs.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m"}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), `"content":"`+want+`"`) || !strings.Contains(string(b), `"prompt_tokens"`) ||
			!strings.HasSuffix(string(b), "data: [DONE]\n\n") {
			t.Errorf("stream:\n%s", b)
		}
	}
	if s.Calls() != 3 || string(s.Bodies()[0]) != `{"model":"m"}` {
		t.Errorf("%d calls, first body %q", s.Calls(), s.Bodies()[0])
	}
}
