package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		in   string
		want time.Duration
		ok   bool
	}{
		"seconds":        {"3", 3 * time.Second, true},
		"zero":           {"0", 0, true},
		"http date":      {now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		"date in past":   {now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		"empty":          {"", 0, false},
		"garbage":        {"soon", 0, false},
		"negative":       {"-4", 0, false},
		"spaces trimmed": {" 2 ", 2 * time.Second, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := ParseRetryAfter(tc.in, now)
			if got != tc.want || ok != tc.ok {
				t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestRetriesStopAfterMaxAndReturnLastAnswer(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, `{"error":"still down"}`, http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	c := NewClient(Config{MaxRetries: 2, BaseBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond})
	resp, err := c.Post(srv.URL, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got := calls.Load(); got != 3 {
		t.Errorf("server saw %d requests, want 1 + 2 retries", got)
	}
	se := ReadStatusError(resp)
	if se.Code != 503 || se.Message != "still down" {
		t.Errorf("status error = %+v", se)
	}
}

func TestRetryWaitStopsOnCancel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	c := NewClient(Config{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	_, err := c.Do(req)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled while waiting out Retry-After", err)
	}
}

func TestIdleTimeoutDoesNotCountCallerTime(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("a"))
		w.(http.Flusher).Flush()
		time.Sleep(20 * time.Millisecond)
		w.Write([]byte("b"))
	}))
	defer srv.Close()
	c := NewClient(Config{IdleTimeout: 150 * time.Millisecond})
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 1)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the caller is slow, the server is not: no timeout
	rest, err := io.ReadAll(resp.Body)
	if err != nil || string(rest) != "b" {
		t.Errorf("rest = %q, err = %v", rest, err)
	}
}

func TestParseErrorBodyShapes(t *testing.T) {
	cases := map[string]struct {
		body, kind, msg string
	}{
		"openai":    {`{"error":{"message":"bad","type":"invalid_request_error"}}`, "invalid_request_error", "bad"},
		"ollama":    {`{"error":"model \"x\" not found"}`, "", `model "x" not found`},
		"dashscope": {`{"code":"InvalidApiKey","message":"Invalid API-key provided.","request_id":"r1"}`, "InvalidApiKey", "Invalid API-key provided."},
		"vllm":      {`{"object":"error","message":"m","type":"BadRequestError","code":400}`, "400", "m"},
		"text":      {`upstream connect error`, "", "upstream connect error"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			se := ParseErrorBody(400, []byte(tc.body))
			if se.Kind != tc.kind || se.Message != tc.msg {
				t.Errorf("got kind %q msg %q", se.Kind, se.Message)
			}
		})
	}
}

// Every request names the app to the model server, on retries too, whatever the client library set.
func TestUserAgentNamesProofglass(t *testing.T) {
	var agents []string
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agents = append(agents, r.UserAgent())
		if calls.Add(1) == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	c := NewClient(Config{MaxRetries: 1, BaseBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("User-Agent", "ollama/0.34.4 (amd64 linux) Go/go1.26")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(agents) != 2 || agents[0] != UserAgent() || agents[1] != UserAgent() || !strings.HasPrefix(UserAgent(), "Proofglass/") {
		t.Errorf("User-Agent seen by the server: %q, want %q twice", agents, UserAgent())
	}
	if req.Header.Get("User-Agent") != "ollama/0.34.4 (amd64 linux) Go/go1.26" {
		t.Errorf("the caller's request was changed: %q", req.Header.Get("User-Agent"))
	}
}

// A redirect to another origin — here another port of the same host, which Go's own rule would send the key to — is
// refused and said, and the other server sees no request; a redirect within the origin is followed (issue 41, row 1).
func TestRedirectsStayWithinTheOrigin(t *testing.T) {
	var sawKey atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			sawKey.Store(true)
		}
		io.WriteString(w, "other")
	}))
	defer other.Close()
	self := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/v1/models", http.StatusTemporaryRedirect)
		case "/here":
			http.Redirect(w, r, "/v1/models", http.StatusTemporaryRedirect)
		default:
			io.WriteString(w, "self")
		}
	}))
	defer self.Close()
	c := NewClient(Config{})
	get := func(path string) (string, error) {
		req, _ := http.NewRequest(http.MethodGet, self.URL+path, nil)
		req.Header.Set("Authorization", "Bearer sk-secret")
		resp, err := c.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b), nil
	}
	if _, err := get("/away"); err == nil || !strings.Contains(err.Error(), "another origin") {
		t.Errorf("a redirect to another port: %v, want refused", err)
	}
	if sawKey.Load() {
		t.Error("the other server received the key")
	}
	if body, err := get("/here"); err != nil || body != "self" {
		t.Errorf("a redirect within the origin: %q, %v", body, err)
	}
}
