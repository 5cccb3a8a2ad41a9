package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"proofglass/backend/model"
)

// Server is a scripted OpenAI-compatible /v1/chat/completions endpoint: call n (0-based, over all runs) streams
// Turns[n%len(Turns)], or Reply's answer when Reply is set, in pieces of Chunk bytes (0: 16); with Usage, a usage
// chunk of 1000+n prompt tokens follows. OnCall, when set and returning true, has answered call n itself. Every
// request body is kept. Other paths are not found.
type Server struct {
	Turns  []string
	Reply  func(n int, body []byte) (string, error)
	OnCall func(n int, w http.ResponseWriter, r *http.Request) bool
	Chunk  int
	Usage  bool

	mu     sync.Mutex
	bodies [][]byte
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, body)
	s.mu.Unlock()
	if s.OnCall != nil && s.OnCall(n, w, r) {
		return
	}
	var turn string
	if s.Reply != nil {
		var err error
		if turn, err = s.Reply(n, body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	} else {
		turn = s.Turns[n%len(s.Turns)]
	}
	var u *model.Usage
	if s.Usage {
		u = &model.Usage{PromptTokens: 1000 + n, CompletionTokens: 20}
	}
	WriteStream(w, turn, s.Chunk, u)
}

// Bodies are the request bodies received so far.
func (s *Server) Bodies() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

// Calls is the number of requests received so far.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

// WriteStream writes content as an OpenAI chat-completion event stream in pieces of chunk bytes (0: 16), then the
// stop chunk, usage's chunk when usage is set, and [DONE].
func WriteStream(w http.ResponseWriter, content string, chunk int, usage *model.Usage) {
	if chunk <= 0 {
		chunk = 16
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(delta map[string]any, finish any) {
		m := map[string]any{"id": "c1", "object": "chat.completion.chunk", "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		b, _ := json.Marshal(m)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	for i := 0; i < len(content); i += chunk {
		send(map[string]any{"content": content[i:min(len(content), i+chunk)]}, nil)
	}
	send(map[string]any{}, "stop")
	if usage != nil {
		b, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "model": "scripted", "choices": []any{},
			"usage": map[string]int{"prompt_tokens": usage.PromptTokens, "completion_tokens": usage.CompletionTokens,
				"total_tokens": usage.PromptTokens + usage.CompletionTokens}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}
