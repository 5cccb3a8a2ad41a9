package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/model/transport"
)

// fakeOllama serves /api/show with the given capabilities and /api/chat with the given NDJSON lines.
func fakeOllama(t *testing.T, caps map[string][]string, chat func(w http.ResponseWriter, body map[string]any)) (*Client, *atomic.Int32) {
	t.Helper()
	var chats atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		switch r.URL.Path {
		case "/api/show":
			c, ok := caps[body["model"].(string)]
			if !ok {
				w.WriteHeader(404)
				fmt.Fprintf(w, `{"error":"model '%s' not found"}`, body["model"])
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"capabilities": c})
		case "/api/chat":
			chats.Add(1)
			chat(w, body)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, Options{Transport: transport.Config{IdleTimeout: 300 * time.Millisecond, MaxRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return c, &chats
}

func lines(w http.ResponseWriter, ls ...string) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	for _, l := range ls {
		io.WriteString(w, l+"\n")
		w.(http.Flusher).Flush()
	}
}

func TestChatChecksCapabilitiesBeforeSending(t *testing.T) {
	caps := map[string][]string{"text": {"completion"}, "embed": {"embedding"}, "vl": {"completion", "vision"}}
	c, chats := fakeOllama(t, caps, func(w http.ResponseWriter, _ map[string]any) {
		lines(w, `{"message":{"role":"assistant","content":"x"},"done":true,"done_reason":"stop"}`)
	})
	img := modeltest.ChartPNG(t)
	withImage := []model.Message{{Role: model.RoleUser, Parts: []model.Part{{Text: "what?"}, {Image: img}}}}
	cases := map[string]struct {
		model string
		msgs  []model.Message
		want  error
		sent  bool
	}{
		"image to a text model":   {"text", withImage, model.ErrNoVision, false},
		"chat to an embedder":     {"embed", []model.Message{model.TextMessage(model.RoleUser, "hi")}, model.ErrNoChat, false},
		"unknown model":           {"missing", []model.Message{model.TextMessage(model.RoleUser, "hi")}, model.ErrModelNotFound, false},
		"image to a vision model": {"vl", withImage, nil, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := chats.Load()
			st, err := c.Chat(context.Background(), model.Request{Model: tc.model, Messages: tc.msgs})
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Errorf("err = %v, want %v", err, tc.want)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if _, err := model.Collect(st); err != nil {
					t.Fatal(err)
				}
			}
			if sent := chats.Load() > before; sent != tc.sent {
				t.Errorf("chat request sent = %v, want %v", sent, tc.sent)
			}
		})
	}
}

func TestChatWireAndStreamEnd(t *testing.T) {
	caps := map[string][]string{"m": {"completion", "thinking", "tools"}}
	var got map[string]any
	cases := map[string]struct {
		lines   []string
		want    model.Delta
		wantErr error
	}{
		"thinking, content, tool call, usage": {
			lines: []string{
				`{"message":{"role":"assistant","content":"","thinking":"hmm"},"done":false}`,
				`{"message":{"role":"assistant","content":"ok"},"done":false}`,
				`{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"search","arguments":{"query":"q"}}}]},"done":false}`,
				`{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":33,"eval_count":5}`,
			},
			want: model.Delta{Reasoning: "hmm", Content: "ok", Done: true, FinishReason: "tool_calls",
				ToolCalls: []model.ToolCall{{Name: "search", Arguments: `{"query":"q"}`}}, Usage: &model.Usage{PromptTokens: 33, CompletionTokens: 5}},
		},
		"ends without done": {
			lines:   []string{`{"message":{"role":"assistant","content":"par"},"done":false}`},
			want:    model.Delta{Content: "par"},
			wantErr: model.ErrIncompleteStream,
		},
		"error line mid-stream": {
			lines:   []string{`{"message":{"role":"assistant","content":"par"},"done":false}`, `{"error":"runner crashed"}`},
			want:    model.Delta{Content: "par"},
			wantErr: model.ErrIncompleteStream,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, _ := fakeOllama(t, caps, func(w http.ResponseWriter, body map[string]any) {
				got = body
				lines(w, tc.lines...)
			})
			st, err := c.Chat(context.Background(), model.Request{Model: "m", Messages: []model.Message{model.TextMessage(model.RoleUser, "hi")},
				Options: model.Options{Temperature: ptr(0.0), Think: ptr(true), MaxTokens: 32, Seed: ptr(1), Stop: []string{"</answer>"}}})
			if err != nil {
				t.Fatal(err)
			}
			d, err := model.Collect(st)
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			if d.Content != tc.want.Content || d.Reasoning != tc.want.Reasoning || d.Done != tc.want.Done ||
				d.FinishReason != tc.want.FinishReason || fmt.Sprint(d.ToolCalls) != fmt.Sprint(tc.want.ToolCalls) ||
				fmt.Sprint(d.Usage) != fmt.Sprint(tc.want.Usage) {
				t.Errorf("got %+v\nwant %+v", d, tc.want)
			}
			opts := got["options"].(map[string]any)
			if opts["temperature"] != 0.0 || opts["num_predict"] != 32.0 || opts["seed"] != 1.0 || got["think"] != true {
				t.Errorf("wire request: %v", got)
			}
		})
	}
}

func TestChatStallCancelAndRetry(t *testing.T) {
	caps := map[string][]string{"m": {"completion"}}
	hi := []model.Message{model.TextMessage(model.RoleUser, "hi")}
	first := `{"message":{"role":"assistant","content":"a"},"done":false}`

	t.Run("server stalls mid-stream", func(t *testing.T) {
		release := make(chan struct{})
		c, _ := fakeOllama(t, caps, func(w http.ResponseWriter, _ map[string]any) {
			lines(w, first)
			<-release
		})
		defer close(release)
		st, err := c.Chat(context.Background(), model.Request{Model: "m", Messages: hi})
		if err != nil {
			t.Fatal(err)
		}
		d, err := model.Collect(st)
		if d.Content != "a" || !errors.Is(err, model.ErrIncompleteStream) || !errors.Is(err, transport.ErrIdleTimeout) {
			t.Errorf("content %q err %v, want ErrIncompleteStream and ErrIdleTimeout", d.Content, err)
		}
	})

	t.Run("caller cancels", func(t *testing.T) {
		release := make(chan struct{})
		c, _ := fakeOllama(t, caps, func(w http.ResponseWriter, _ map[string]any) {
			lines(w, first)
			<-release
		})
		defer close(release)
		ctx, cancel := context.WithCancel(context.Background())
		st, err := c.Chat(ctx, model.Request{Model: "m", Messages: hi})
		if err != nil {
			t.Fatal(err)
		}
		if !st.Next() {
			t.Fatal("want the first delta")
		}
		cancel()
		if st.Next() {
			t.Fatal("stream must stop")
		}
		if !errors.Is(st.Err(), context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", st.Err())
		}
		st.Close()
	})

	t.Run("503 then success", func(t *testing.T) {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			if r.URL.Path == "/api/show" {
				io.WriteString(w, `{"capabilities":["completion"]}`)
				return
			}
			if n.Add(1) == 1 {
				w.WriteHeader(503)
				io.WriteString(w, `{"error":"server busy, please try again"}`)
				return
			}
			lines(w, `{"message":{"role":"assistant","content":"ok"},"done":true,"done_reason":"stop"}`)
		}))
		defer srv.Close()
		c, err := New(srv.URL, Options{Transport: transport.Config{BaseBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.Chat(context.Background(), model.Request{Model: "m", Messages: hi})
		if err != nil {
			t.Fatal(err)
		}
		d, err := model.Collect(st)
		if err != nil || d.Content != "ok" || n.Load() != 2 {
			t.Errorf("content %q err %v chat requests %d", d.Content, err, n.Load())
		}
	})
}
