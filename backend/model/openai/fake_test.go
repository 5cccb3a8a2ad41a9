package openai

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/model/transport"
)

// fastTransport keeps scripted failures quick: short timeouts and backoff.
func fastTransport() transport.Config {
	return transport.Config{ConnectTimeout: 2 * time.Second, HeaderTimeout: 2 * time.Second, IdleTimeout: 300 * time.Millisecond,
		MaxRetries: 2, BaseBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, MaxRetryAfter: 5 * time.Second}
}

// sse writes events one by one, flushing each, as a streaming server does.
func sse(w http.ResponseWriter, lines ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	f := w.(http.Flusher)
	for _, l := range lines {
		fmt.Fprintf(w, "%s\n\n", l)
		f.Flush()
	}
}

func newClient(t *testing.T, url string, o Options) *Client {
	t.Helper()
	if o.Transport == (transport.Config{}) {
		o.Transport = fastTransport()
	}
	c, err := New(url+"/v1", o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func userText(s string) []model.Message { return []model.Message{model.TextMessage(model.RoleUser, s)} }

func TestChatStreamsReasoningInBothFieldNamesAndSendsOptions(t *testing.T) {
	img := modeltest.ChartPNG(t)
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("decode body: %v", err)
		}
		sse(w,
			`data: {"choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"think "}}]}`,
			`data: {"choices":[{"index":0,"delta":{"reasoning":"more"}}]}`,
			`: keep-alive comment`,
			`data: {"choices":[{"index":0,"delta":{"content":"<answer>"}}]}`,
			`data: {"choices":[{"index":0,"delta":{"content":"42</answer>"},"finish_reason":"stop"}]}`,
			`data: {"choices":[],"usage":{"prompt_tokens":57,"completion_tokens":9,"total_tokens":66}}`,
			`data: [DONE]`)
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, Options{})
	msgs := []model.Message{
		model.TextMessage(model.RoleSystem, "You are a helpful assistant."),
		{Role: model.RoleUser, Parts: []model.Part{{Text: "Picture 1:"}, {Image: img}, {Text: "What is shown?"}}},
	}
	st, err := c.Chat(context.Background(), model.Request{Model: "qwen3-vl", Messages: msgs,
		Options: model.Options{Temperature: ptr(0.0), Think: ptr(true), MaxTokens: 128, Seed: ptr(7)}})
	if err != nil {
		t.Fatal(err)
	}
	var deltas []model.Delta
	for st.Next() {
		deltas = append(deltas, st.Current())
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	want := []model.Delta{{Reasoning: "think "}, {Reasoning: "more"}, {Content: "<answer>"}, {Content: "42</answer>"},
		{Done: true, FinishReason: "stop", Usage: &model.Usage{PromptTokens: 57, CompletionTokens: 9}}}
	if d := cmp.Diff(want, deltas); d != "" {
		t.Errorf("deltas (-want +got):\n%s", d)
	}
	// The wire body: explicit temperature 0, vLLM's thinking switch, usage requested, parts in order, data URL.
	if v, ok := body["temperature"]; !ok || v.(float64) != 0 {
		t.Errorf("temperature 0 must be sent explicitly, body has %v (present %v)", v, ok)
	}
	if d := cmp.Diff(map[string]any{"enable_thinking": true}, body["chat_template_kwargs"]); d != "" {
		t.Errorf("chat_template_kwargs: %s", d)
	}
	if _, ok := body["enable_thinking"]; ok {
		t.Error("generic dialect must not send DashScope's top-level enable_thinking")
	}
	if d := cmp.Diff(map[string]any{"include_usage": true}, body["stream_options"]); d != "" {
		t.Errorf("stream_options: %s", d)
	}
	parts := body["messages"].([]any)[1].(map[string]any)["content"].([]any)
	var kinds []string
	for _, p := range parts {
		kinds = append(kinds, p.(map[string]any)["type"].(string))
	}
	if d := cmp.Diff([]string{"text", "image_url", "text"}, kinds); d != "" {
		t.Errorf("part order: %s", d)
	}
	url := parts[1].(map[string]any)["image_url"].(map[string]any)["url"].(string)
	if want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(img.Data); url != want {
		t.Errorf("image URL is not the PNG's data URL (got %d chars, want %d)", len(url), len(want))
	}
	if body["messages"].([]any)[0].(map[string]any)["content"] != "You are a helpful assistant." {
		t.Errorf("a text-only message must be a plain string: %v", body["messages"].([]any)[0])
	}
}

func TestChatDashScopeThinkingSwitch(t *testing.T) {
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&body)
		sse(w, `data: {"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}`, `data: [DONE]`)
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, Options{Dialect: DialectDashScope})
	st, err := c.Chat(context.Background(), model.Request{Model: "qwen3.5-plus", Messages: userText("hi"),
		Options: model.Options{Think: ptr(false)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := model.Collect(st); err != nil {
		t.Fatal(err)
	}
	if body["enable_thinking"] != false {
		t.Errorf("DashScope wants top-level enable_thinking=false, body has %v", body["enable_thinking"])
	}
	if _, ok := body["chat_template_kwargs"]; ok {
		t.Error("DashScope dialect must not send chat_template_kwargs")
	}
}

func TestChatAssemblesNativeToolCallDeltasByIndex(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sse(w,
			`data: {"choices":[{"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"add_search_node","arguments":""}}]}}]}`,
			`data: {"choices":[{"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"add_answer_node","arguments":"{\"ans"}}]}}]}`,
			`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"query\": "}}]}}]}`,
			`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"revenue 2023\"}"}}]}}]}`,
			`data: {"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"wer\": \"42\"}"}}]}}]}`,
			`data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`,
			`data: [DONE]`)
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, Options{})
	st, err := c.Chat(context.Background(), model.Request{Model: "m", Messages: userText("q"),
		Tools: []model.Tool{{Name: "add_search_node", Parameters: json.RawMessage(`{"type":"object"}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := model.Collect(st)
	if err != nil {
		t.Fatal(err)
	}
	want := []model.ToolCall{
		{ID: "call_a", Name: "add_search_node", Arguments: `{"query": "revenue 2023"}`},
		{ID: "call_b", Name: "add_answer_node", Arguments: `{"answer": "42"}`},
	}
	if d := cmp.Diff(want, got.ToolCalls); d != "" {
		t.Errorf("tool calls (-want +got):\n%s", d)
	}
	if got.FinishReason != "tool_calls" || !got.Done {
		t.Errorf("finish = %q done=%v", got.FinishReason, got.Done)
	}
}

func TestChatStreamFailures(t *testing.T) {
	cases := map[string]struct {
		handler     http.HandlerFunc
		wantContent string
		wantErr     []error // all must match with errors.Is; empty = success
	}{
		"malformed line is skipped": {
			handler: func(w http.ResponseWriter, r *http.Request) {
				sse(w, `data: {"choices":[{"delta":{"content":"a"}}]}`, `data: {"choices":[{"delta":`,
					`data: {"choices":[{"delta":{"content":"b"},"finish_reason":"stop"}]}`, `data: [DONE]`)
			},
			wantContent: "ab",
		},
		"finish without [DONE] is complete": {
			handler: func(w http.ResponseWriter, r *http.Request) {
				sse(w, `data: {"choices":[{"delta":{"content":"a"},"finish_reason":"length"}]}`)
			},
			wantContent: "a",
		},
		"stream closed before finishing": {
			handler: func(w http.ResponseWriter, r *http.Request) {
				sse(w, `data: {"choices":[{"delta":{"content":"a"}}]}`)
			},
			wantContent: "a",
			wantErr:     []error{model.ErrIncompleteStream},
		},
		"connection reset mid-stream": {
			handler: func(w http.ResponseWriter, r *http.Request) {
				sse(w, `data: {"choices":[{"delta":{"content":"a"}}]}`)
				conn, _, err := http.NewResponseController(w).Hijack()
				if err != nil {
					t.Errorf("hijack: %v", err)
					return
				}
				if tc, ok := conn.(interface{ SetLinger(int) error }); ok {
					tc.SetLinger(0) // RST instead of FIN
				}
				conn.Close()
			},
			wantContent: "a",
			wantErr:     []error{model.ErrIncompleteStream},
		},
		"server stalls between chunks": {
			handler: func(w http.ResponseWriter, r *http.Request) {
				sse(w, `data: {"choices":[{"delta":{"content":"a"}}]}`)
				select {
				case <-r.Context().Done():
				case <-time.After(10 * time.Second):
				}
			},
			wantContent: "a",
			wantErr:     []error{model.ErrIncompleteStream, transport.ErrIdleTimeout},
		},
		"error event mid-stream": {
			handler: func(w http.ResponseWriter, r *http.Request) {
				sse(w, `data: {"choices":[{"delta":{"content":"a"}}]}`, `data: {"error":{"message":"CUDA out of memory","type":"InternalServerError"}}`)
			},
			wantContent: "a",
			wantErr:     []error{model.ErrIncompleteStream},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			c := newClient(t, srv.URL, Options{})
			st, err := c.Chat(context.Background(), model.Request{Model: "m", Messages: userText("q")})
			if err != nil {
				t.Fatal(err)
			}
			got, err := model.Collect(st)
			if got.Content != tc.wantContent {
				t.Errorf("content = %q, want %q", got.Content, tc.wantContent)
			}
			if len(tc.wantErr) == 0 {
				if err != nil || !got.Done {
					t.Errorf("want a complete stream, got err=%v done=%v", err, got.Done)
				}
				return
			}
			for _, w := range tc.wantErr {
				if !errors.Is(err, w) {
					t.Errorf("err = %v, want it to match %v", err, w)
				}
			}
			if got.Done {
				t.Error("an incomplete stream must not report Done")
			}
		})
	}
}

func TestChatRetries(t *testing.T) {
	cases := map[string]struct {
		first      func(w http.ResponseWriter)
		wantCalls  int
		wantStatus int // 0: success expected
		minGap     time.Duration
	}{
		"500 then success": {
			first:     func(w http.ResponseWriter) { http.Error(w, `{"error":{"message":"busy"}}`, 500) },
			wantCalls: 2,
		},
		"429 honours Retry-After": {
			first: func(w http.ResponseWriter) {
				w.Header().Set("Retry-After", "1")
				http.Error(w, `{"error":{"message":"rate limited"}}`, 429)
			},
			wantCalls: 2,
			minGap:    900 * time.Millisecond,
		},
		"429 with a Retry-After beyond the limit is returned": {
			first: func(w http.ResponseWriter) {
				w.Header().Set("Retry-After", "3600")
				http.Error(w, `{"error":{"message":"quota exhausted"}}`, 429)
			},
			wantCalls:  1,
			wantStatus: 429,
		},
		"400 is not retried": {
			first:      func(w http.ResponseWriter) { http.Error(w, `{"error":{"message":"bad request"}}`, 400) },
			wantCalls:  1,
			wantStatus: 400,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var times []time.Time
			var bodies []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				times = append(times, time.Now())
				bodies = append(bodies, string(b))
				n := len(times)
				mu.Unlock()
				if n == 1 {
					tc.first(w)
					return
				}
				sse(w, `data: {"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}`, `data: [DONE]`)
			}))
			defer srv.Close()
			c := newClient(t, srv.URL, Options{})
			st, err := c.Chat(context.Background(), model.Request{Model: "m", Messages: userText("q")})
			if len(times) != tc.wantCalls {
				t.Errorf("server saw %d requests, want %d", len(times), tc.wantCalls)
			}
			if tc.wantStatus != 0 {
				var se *transport.StatusError
				if !errors.As(err, &se) || se.Code != tc.wantStatus {
					t.Fatalf("err = %v, want HTTP %d", err, tc.wantStatus)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := model.Collect(st)
			if err != nil || got.Content != "ok" {
				t.Fatalf("content %q err %v", got.Content, err)
			}
			if bodies[0] != bodies[1] || bodies[0] == "" {
				t.Error("the retried request must carry the same body")
			}
			if gap := times[1].Sub(times[0]); gap < tc.minGap {
				t.Errorf("retry came %v after the 429, Retry-After asked for 1s", gap)
			}
		})
	}
}

func TestChatErrorsMapToModelErrors(t *testing.T) {
	cases := map[string]struct {
		status int
		body   string
		images bool
		want   error
	}{
		"ollama unknown model":    {404, `{"error":{"message":"model \"nope\" not found, try pulling it first","type":"api_error"}}`, false, model.ErrModelNotFound},
		"vllm unknown model":      {404, `{"object":"error","message":"The model ` + "`nope`" + ` does not exist.","type":"NotFoundError","code":404}`, false, model.ErrModelNotFound},
		"dashscope unknown model": {400, `{"error":{"message":"Model not exist.","type":"invalid_request_error","code":"model_not_found"}}`, false, model.ErrModelNotFound},
		"vllm text model given images": {400, `{"object":"error","message":"Qwen/Qwen3-8B is not a multimodal model","type":"BadRequestError","code":400}`,
			true, model.ErrNoVision},
		"embedding model asked to chat": {400, `{"error":{"message":"\"glove-embed\" does not support chat","type":"invalid_request_error"}}`, false, model.ErrNoChat},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			c := newClient(t, srv.URL, Options{})
			msgs := userText("q")
			if tc.images {
				msgs[0].Parts = append(msgs[0].Parts, model.Part{Image: modeltest.ChartPNG(t)})
			}
			_, err := c.Chat(context.Background(), model.Request{Model: "nope", Messages: msgs})
			if !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestChatCancellation(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sse(w, `data: {"choices":[{"delta":{"content":"a"}}]}`)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	c := newClient(t, srv.URL, Options{Transport: transport.Config{IdleTimeout: time.Minute}})
	ctx, cancel := context.WithCancel(context.Background())
	st, err := c.Chat(ctx, model.Request{Model: "m", Messages: userText("q")})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Next() || st.Current().Content != "a" {
		t.Fatal("want the first delta")
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	if st.Next() {
		t.Fatal("want the stream to stop on cancel")
	}
	if !errors.Is(st.Err(), context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", st.Err())
	}
}

func TestChatHeaderTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release) // runs first: frees the handler so Close does not wait
	tc := fastTransport()
	tc.HeaderTimeout = 200 * time.Millisecond
	c := newClient(t, srv.URL, Options{Transport: tc})
	_, err := c.Chat(context.Background(), model.Request{Model: "m", Messages: userText("q")})
	if err == nil || !strings.Contains(err.Error(), "timeout awaiting response headers") {
		t.Errorf("err = %v, want a response-header timeout", err)
	}
}

func TestAPIKeyNeverPrinted(t *testing.T) {
	const key = "sk-test-SECRET-0123456789"
	var logs bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(prev)
	var auth atomic.Value
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		calls++
		if calls == 1 { // one retry, so the retry path logs
			http.Error(w, "overloaded", 503)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error","code":"invalid_api_key"}}`, key)
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, Options{APIKey: key})
	_, chatErr := c.Chat(context.Background(), model.Request{Model: "m", Messages: userText("q")})
	_, listErr := c.Models(context.Background())
	_, embedErr := c.Embedder("e", false).Embed(context.Background(), []model.EmbedInput{{Text: "x"}})
	if got := auth.Load(); got != "Bearer "+key {
		t.Errorf("Authorization header = %q", got)
	}
	for name, err := range map[string]error{"chat": chatErr, "models": listErr, "embed": embedErr} {
		if err == nil {
			t.Errorf("%s: want the 401 as an error", name)
			continue
		}
		if strings.Contains(err.Error(), key) {
			t.Errorf("%s error prints the key: %v", name, err)
		}
	}
	if strings.Contains(logs.String(), key) {
		t.Errorf("logs print the key:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "retrying") {
		t.Error("expected the retry to be logged (so this test checks a real log line)")
	}
}

func TestEmbedTextAndImages(t *testing.T) {
	img := modeltest.ChartPNG(t)
	var mu sync.Mutex
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b map[string]any
		json.NewDecoder(r.Body).Decode(&b)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if in, ok := b["input"].([]any); ok { // text form: one vector per input, returned out of order
			var data []string
			for i := len(in) - 1; i >= 0; i-- {
				data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":[%d,1,0]}`, i, len(in[i].(string))))
			}
			fmt.Fprintf(w, `{"object":"list","data":[%s],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}`, strings.Join(data, ","))
			return
		}
		// vLLM chat-style form: one vector for the whole message; first component flags an image part.
		parts := b["messages"].([]any)[0].(map[string]any)["content"].([]any)
		first := parts[0].(map[string]any)["type"]
		v := 0
		if first == "image_url" {
			v = 1
		}
		fmt.Fprintf(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[%d,2,0]}]}`, v)
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, Options{})

	text := c.Embedder("bge-m3", false)
	vs, err := text.Embed(context.Background(), []model.EmbedInput{{Text: "a"}, {Text: "bbb"}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([][]float32{{1, 1, 0}, {3, 1, 0}}, vs); d != "" {
		t.Errorf("vectors must follow input order: %s", d)
	}
	if text.Dim() != 3 || text.SupportsImages() || text.ModelID() != "openai/bge-m3" {
		t.Errorf("dim %d images %v id %q", text.Dim(), text.SupportsImages(), text.ModelID())
	}
	if _, err := text.Embed(context.Background(), []model.EmbedInput{{Image: img}}); !errors.Is(err, model.ErrNoVision) {
		t.Errorf("image to a text embedder: err = %v, want ErrNoVision", err)
	}

	mm := c.Embedder("Alibaba-NLP/GVE-3B", true)
	vs, err = mm.Embed(context.Background(), []model.EmbedInput{{Text: "query"}, {Image: img}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([][]float32{{0, 2, 0}, {1, 2, 0}}, vs); d != "" {
		t.Errorf("multimodal vectors: %s", d)
	}
	mu.Lock()
	defer mu.Unlock()
	if bodies[0]["encoding_format"] != "float" {
		t.Errorf("text body: %v", bodies[0])
	}
}
