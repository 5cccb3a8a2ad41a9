// Package reranktest holds a scripted rerank server for tests: a Jina/Cohere-style /rerank endpoint (as vLLM serves
// it) and DashScope's text-rerank service, scoring documents with a given function, failing on demand.
package reranktest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Request is one rerank request as the server read it, in either API's shape.
type Request struct {
	Model     string
	Query     string
	Documents []Document
	TopN      int
	Auth      string // the Authorization header
	Path      string
}

// Document is one document of a request: its text, or the image data URLs of a multimodal document.
type Document struct {
	Text   string
	Images []string
}

// Server answers POST …/rerank (Jina/Cohere/vLLM) and POST /api/v1/services/rerank/text-rerank/text-rerank
// (DashScope) with Score's relevance of each document.
type Server struct {
	*httptest.Server
	// Score is a document's relevance to the query.
	Score func(query string, d Document) float64
	// Status, when set, answers every request with this HTTP status and an error body.
	Status int
	// Body, when set, is sent as the whole 200 answer (a malformed one).
	Body string
	// Set Score, Status and Body before the first request, or with Scoring, Fail and Answer once requests are
	// being served.

	mu   sync.Mutex
	reqs []Request
}

// New starts a server scoring with score; it is closed when the test ends.
func New(t testing.TB, score func(query string, d Document) float64) *Server {
	s := &Server{Score: score}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Favouring scores a document 0.9 when its text holds marker, else 0.1: a reranker that knows which page is right.
func Favouring(marker string) func(string, Document) float64 {
	return func(_ string, d Document) float64 {
		if strings.Contains(d.Text, marker) {
			return 0.9
		}
		return 0.1
	}
}

// Fail makes every later request answer with HTTP status (0: answer normally again).
func (s *Server) Fail(status int) {
	s.mu.Lock()
	s.Status = status
	s.mu.Unlock()
}

// Answer makes every later request get body as its whole 200 answer ("": score normally again).
func (s *Server) Answer(body string) {
	s.mu.Lock()
	s.Body = body
	s.mu.Unlock()
}

// Scoring makes later requests scored by score.
func (s *Server) Scoring(score func(query string, d Document) float64) {
	s.mu.Lock()
	s.Score = score
	s.mu.Unlock()
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

type result struct {
	Index     int     `json:"index"`
	Relevance float64 `json:"relevance_score"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	dashscope := strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/text-rerank/text-rerank")
	if r.Method != http.MethodPost || (!dashscope && !strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/rerank")) {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	var raw struct {
		Model     string            `json:"model"`
		Query     string            `json:"query"`
		Documents []json.RawMessage `json:"documents"`
		TopN      int               `json:"top_n"`
		Input     struct {
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
		} `json:"input"`
		Parameters struct {
			TopN int `json:"top_n"`
		} `json:"parameters"`
	}
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
		http.Error(w, fmt.Sprintf(`{"error":{"message":%q}}`, err.Error()), http.StatusBadRequest)
		return
	}
	req := Request{Model: raw.Model, Query: raw.Query, TopN: raw.TopN, Auth: r.Header.Get("Authorization"), Path: r.URL.Path}
	if dashscope {
		req.Query, req.TopN = raw.Input.Query, raw.Parameters.TopN
		for _, d := range raw.Input.Documents {
			req.Documents = append(req.Documents, Document{Text: d})
		}
	} else {
		for _, d := range raw.Documents {
			req.Documents = append(req.Documents, decodeDocument(d))
		}
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	status, body, score := s.Status, s.Body, s.Score
	s.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	switch {
	case status != 0:
		w.WriteHeader(status)
		if dashscope {
			fmt.Fprintf(w, `{"code":"InternalError","message":"scripted failure %d","request_id":"req-1"}`, status)
		} else {
			fmt.Fprintf(w, `{"error":{"message":"scripted failure %d","type":"server_error"}}`, status)
		}
		return
	case body != "":
		fmt.Fprint(w, body)
		return
	}
	res := make([]result, len(req.Documents))
	for i, d := range req.Documents {
		res[i] = result{Index: i, Relevance: score(req.Query, d)}
	}
	// Best first, as real servers answer; the client must not rely on it.
	for i := 1; i < len(res); i++ {
		for j := i; j > 0 && res[j].Relevance > res[j-1].Relevance; j-- {
			res[j], res[j-1] = res[j-1], res[j]
		}
	}
	if req.TopN > 0 && req.TopN < len(res) {
		res = res[:req.TopN]
	}
	if dashscope {
		json.NewEncoder(w).Encode(map[string]any{"output": map[string]any{"results": res},
			"usage": map[string]any{"total_tokens": 100}, "request_id": "req-1"})
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"id": "rerank-1", "model": req.Model, "results": res,
		"usage": map[string]any{"total_tokens": 100}})
}

// decodeDocument reads a string document or a {"content": [parts]} multimodal one.
func decodeDocument(b json.RawMessage) Document {
	var s string
	if json.Unmarshal(b, &s) == nil {
		return Document{Text: s}
	}
	var c struct {
		Content []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
		} `json:"content"`
	}
	var d Document
	if json.Unmarshal(b, &c) == nil {
		for _, p := range c.Content {
			switch p.Type {
			case "text":
				d.Text += p.Text
			case "image_url":
				d.Images = append(d.Images, p.ImageURL.URL)
			}
		}
	}
	return d
}
