package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"proofglass/backend/model"
)

// showServer answers /api/show with show and records the body of /api/chat.
func showServer(t *testing.T, show map[string]any, got *map[string]any) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/show":
			json.NewEncoder(w).Encode(show)
		case "/api/chat":
			json.NewDecoder(r.Body).Decode(got)
			lines(w, `{"message":{"role":"assistant","content":"ok"},"done":true,"done_reason":"stop","prompt_eval_count":7,"eval_count":1}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestChatSendsEveryOption(t *testing.T) {
	var got map[string]any
	c := showServer(t, map[string]any{"capabilities": []string{"completion", "vision"}}, &got)
	opts := model.Options{Temperature: model.Float(0.6), TopP: model.Float(0.95), MaxTokens: 512, Seed: model.Int(7), NumCtx: 12288}
	st, err := c.Chat(context.Background(), model.Request{Model: "m", Messages: []model.Message{model.TextMessage(model.RoleUser, "hi")}, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := model.Collect(st); err != nil {
		t.Fatal(err)
	}
	o := got["options"].(map[string]any)
	want := map[string]float64{"temperature": 0.6, "top_p": 0.95, "num_predict": 512, "seed": 7, "num_ctx": 12288}
	for k, v := range want {
		if o[k] != v {
			t.Errorf("options[%s] = %v, want %v (all: %v)", k, o[k], v, o)
		}
	}
	// Unset options are left to the server.
	got = nil
	st, _ = c.Chat(context.Background(), model.Request{Model: "m", Messages: []model.Message{model.TextMessage(model.RoleUser, "hi")}})
	model.Collect(st)
	if o, _ := got["options"].(map[string]any); len(o) != 0 {
		t.Errorf("options without settings = %v, want none", o)
	}
}

func TestLimitsFromShow(t *testing.T) {
	cases := map[string]struct {
		show map[string]any
		want model.Limits
	}{
		"qwen2.5-vl import with projector and Modelfile num_ctx": {
			show: map[string]any{"parameters": "num_ctx                        8192\nstop                           \"<|im_end|>\"",
				"template":       "{{ .Prompt }}",
				"model_info":     map[string]any{"general.architecture": "qwen25vl", "qwen25vl.context_length": 128000, "qwen25vl.vision.patch_size": 14, "qwen25vl.vision.spatial_merge_size": 2},
				"projector_info": map[string]any{"clip.has_vision_encoder": true}},
			want: model.Limits{Adjustable: true, ContextLength: 128000, DefaultContext: 8192, PatchFactor: 28, ServerImageTokens: 768, Family: "qwen25vl", Template: "{{ .Prompt }}"},
		},
		"gemma3 with fixed image cost": {
			show: map[string]any{"model_info": map[string]any{"general.architecture": "gemma3", "gemma3.context_length": 131072, "gemma3.mm_tokens_per_image": 256}},
			want: model.Limits{Adjustable: true, ContextLength: 131072, ImageTokens: 256, Family: "gemma3"},
		},
		"qwen3-vl with a renderer": {
			show: map[string]any{"renderer": "qwen3-vl-instruct", "model_info": map[string]any{"general.architecture": "qwen3vl", "qwen3vl.context_length": 262144, "qwen3vl.vision.patch_size": 16, "qwen3vl.vision.spatial_merge_size": 2}},
			want: model.Limits{Adjustable: true, ContextLength: 262144, PatchFactor: 32, Renderer: "qwen3-vl-instruct", Family: "qwen3vl"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got map[string]any
			c := showServer(t, tc.show, &got)
			l, err := c.Limits(context.Background(), "m")
			if err != nil {
				t.Fatal(err)
			}
			if l != tc.want {
				t.Errorf("limits = %+v\nwant     %+v", l, tc.want)
			}
		})
	}
}

// TestInterleavedMessages: Ollama puts a message's images before its text; labelled images keep their order.
func TestInterleavedMessages(t *testing.T) {
	a, b := &model.Image{Data: []byte("A")}, &model.Image{Data: []byte("B")}
	labelled := model.Message{Role: model.RoleUser, Parts: []model.Part{{Text: "Here:"}, {Text: "Picture 1:"}, {Image: a},
		{Text: "Picture 2 [img]:"}, {Image: b}, {Text: "end"}}}
	imagesFirst := model.Message{Role: model.RoleUser, Parts: []model.Part{{Image: a}, {Image: b}, {Text: "question"}}}
	type wire struct {
		content string
		images  string
	}
	render := func(ms []api.Message) []wire {
		var out []wire
		for _, m := range ms {
			var im []string
			for _, i := range m.Images {
				im = append(im, string(i))
			}
			out = append(out, wire{m.Role + ":" + m.Content, strings.Join(im, ",")})
		}
		return out
	}
	cases := map[string]struct {
		msg      model.Message
		rendered bool
		want     []wire
	}{
		"template: placeholders at each image": {labelled, false,
			[]wire{{"user:Here:Picture 1:[img]Picture 2 [img ]:[img]end", "A,B"}}},
		"renderer: one message per image, image first": {labelled, true,
			[]wire{{"user:Here:Picture 1:", ""}, {"user:Picture 2 [img ]:", "A"}, {"user:end", "B"}}},
		"images already first: unchanged (template)": {imagesFirst, false, []wire{{"user:question", "A,B"}}},
		"images already first: unchanged (renderer)": {imagesFirst, true, []wire{{"user:question", "A,B"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ms, err := nativeMessages(tc.msg, tc.rendered)
			if err != nil {
				t.Fatal(err)
			}
			if got := render(ms); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestPullStreamsProgress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		if r.URL.Path != "/api/pull" {
			http.NotFound(w, r)
			return
		}
		if body["model"] == "nope" {
			w.WriteHeader(500)
			io.WriteString(w, `{"error":"pull model manifest: file does not exist"}`)
			return
		}
		lines(w, `{"status":"pulling manifest"}`, `{"status":"pulling 6a0746a1ec1a","digest":"sha256:6a07","total":1000,"completed":250}`,
			`{"status":"pulling 6a0746a1ec1a","digest":"sha256:6a07","total":1000,"completed":1000}`, `{"status":"verifying sha256 digest"}`, `{"status":"success"}`)
	}))
	defer srv.Close()
	c, _ := New(srv.URL, Options{})
	var got []string
	err := c.Pull(context.Background(), "qwen2.5vl:7b", func(p PullProgress) { got = append(got, fmt.Sprintf("%s %d/%d", p.Status, p.Completed, p.Total)) })
	if err != nil {
		t.Fatal(err)
	}
	want := "pulling manifest 0/0|pulling 6a0746a1ec1a 250/1000|pulling 6a0746a1ec1a 1000/1000|verifying sha256 digest 0/0|success 0/0"
	if strings.Join(got, "|") != want {
		t.Fatalf("progress %q", got)
	}
	if err := c.Pull(context.Background(), "nope", nil); err == nil || !strings.Contains(err.Error(), "file does not exist") || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("failed pull: %v", err)
	}
}

func TestThinkOmittedForModelsWithoutThinking(t *testing.T) {
	var got map[string]any
	c := showServer(t, map[string]any{"capabilities": []string{"completion", "vision"}}, &got)
	st, err := c.Chat(context.Background(), model.Request{Model: "m", Messages: []model.Message{model.TextMessage(model.RoleUser, "hi")}, Options: model.Options{Think: model.Bool(true)}})
	if err != nil {
		t.Fatal(err)
	}
	model.Collect(st)
	if _, sent := got["think"]; sent {
		t.Fatalf("think sent to a model without thinking: %v", got)
	}
}
