package dashscope

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"proofglass/backend/fixture"
	"proofglass/backend/model"
	"proofglass/backend/model/transport"
)

func testdata(t *testing.T) string { return fixture.Dir(t) }

const testKey = "sk-dashscope-SECRET-42"

func fast() transport.Config {
	return transport.Config{MaxRetries: 2, BaseBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}
}

func TestEmbedRequestAndResponseShapes(t *testing.T) {
	png, err := os.ReadFile(filepath.Join(testdata(t), "images", "charts", "graphics_mosaicplot_mosaic_00_00.png"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/v1/services/embeddings/multimodal-embedding/multimodal-embedding" {
			t.Errorf("request %s %s", r.Method, r.URL.Path)
		}
		if r.Header.Get("Authorization") != "Bearer "+testKey || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("headers %v", r.Header)
		}
		var b map[string]any
		json.NewDecoder(r.Body).Decode(&b)
		mu.Lock()
		got = append(got, b)
		mu.Unlock()
		c := b["input"].(map[string]any)["contents"].([]any)[0].(map[string]any)
		typ, first := "text", 0.25
		if _, ok := c["image"]; ok {
			typ, first = "image", 0.5
		}
		// The documented answer.
		json.NewEncoder(w).Encode(map[string]any{
			"output":     map[string]any{"embeddings": []any{map[string]any{"index": 0, "embedding": []float64{first, -0.1, 0.3}, "type": typ}}},
			"usage":      map[string]any{"input_tokens": 4, "image_count": 1, "duration": 0},
			"request_id": "b5623e99-ea0c-9509-9b25-20bcc99d03e9",
		})
	}))
	defer srv.Close()
	e, err := NewEmbedder(srv.URL+"/compatible-mode/v1", "multimodal-embedding-v1", Options{APIKey: testKey, Transport: fast()})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := e.Embed(context.Background(), []model.EmbedInput{{Text: "通用多模态表征模型示例"}, {Image: &model.Image{Data: png, MIME: "image/png"}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([][]float32{{0.25, -0.1, 0.3}, {0.5, -0.1, 0.3}}, vs); d != "" {
		t.Errorf("vectors (-want +got):\n%s", d)
	}
	if e.Dim() != 3 || !e.SupportsImages() || e.ModelID() != "dashscope/multimodal-embedding-v1" {
		t.Errorf("dim %d images %v id %s", e.Dim(), e.SupportsImages(), e.ModelID())
	}
	mu.Lock()
	defer mu.Unlock()
	bodies := map[string]map[string]any{}
	for _, b := range got {
		c := b["input"].(map[string]any)["contents"].([]any)[0].(map[string]any)
		if _, ok := c["image"]; ok {
			bodies["image"] = b
		} else {
			bodies["text"] = b
		}
	}
	wantText := map[string]any{"model": "multimodal-embedding-v1", "input": map[string]any{"contents": []any{map[string]any{"text": "通用多模态表征模型示例"}}}}
	if d := cmp.Diff(wantText, bodies["text"]); d != "" {
		t.Errorf("text request body (-want +got):\n%s", d)
	}
	wantImage := map[string]any{"model": "multimodal-embedding-v1", "input": map[string]any{"contents": []any{
		map[string]any{"image": "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)}}}}
	if d := cmp.Diff(wantImage, bodies["image"]); d != "" {
		t.Error("image request body is not {model, input:{contents:[{image: data URL}]}}")
	}
}

func TestEmbedErrors(t *testing.T) {
	cases := map[string]struct {
		status int
		body   string
		want   error
		text   string
	}{
		"bad key":                        {401, `{"code":"InvalidApiKey","message":"Invalid API-key provided: ` + testKey + `","request_id":"r"}`, nil, "InvalidApiKey"},
		"unknown model":                  {400, `{"code":"InvalidParameter","message":"Model not exist.","request_id":"r"}`, model.ErrModelNotFound, "Model not exist"},
		"throttled then still throttled": {429, `{"code":"Throttling.RateQuota","message":"Requests rate limit exceeded","request_id":"r"}`, nil, "Throttling"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			e, _ := NewEmbedder(srv.URL, "nope", Options{APIKey: testKey, Transport: fast()})
			_, err := e.Embed(context.Background(), []model.EmbedInput{{Text: "x"}})
			if err == nil || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.text)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error prints the API key: %v", err)
			}
		})
	}
}

func TestNewChatUsesDashScopeThinkingSwitch(t *testing.T) {
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/compatible-mode/v1/chat/completions" {
			t.Errorf("path %s", r.URL.Path)
		}
		json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"r\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"c\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	c, err := NewChat(srv.URL+"/compatible-mode/v1", Options{APIKey: testKey, Transport: fast()})
	if err != nil {
		t.Fatal(err)
	}
	think := true
	st, err := c.Chat(context.Background(), model.Request{Model: "qwen3.5-plus",
		Messages: []model.Message{model.TextMessage(model.RoleUser, "hi")}, Options: model.Options{Think: &think}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := model.Collect(st)
	if err != nil || d.Reasoning != "r" || d.Content != "c" {
		t.Fatalf("got %+v, %v", d, err)
	}
	if body["enable_thinking"] != true {
		t.Errorf("enable_thinking = %v", body["enable_thinking"])
	}
}
