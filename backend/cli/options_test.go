package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// recorder is a scripted chat server of one provider kind: it records each chat request body and answers at once.
type recorder struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (rc *recorder) last(t *testing.T) map[string]any {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.bodies) == 0 {
		t.Fatal("no chat request")
	}
	return rc.bodies[len(rc.bodies)-1]
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	b, _ := io.ReadAll(r.Body)
	json.Unmarshal(b, &body)
	switch {
	case r.URL.Path == "/api/show":
		io.WriteString(w, `{"capabilities":["completion","vision","thinking"],"model_info":{"general.architecture":"qwen25vl","qwen25vl.context_length":128000,"qwen25vl.vision.patch_size":14,"qwen25vl.vision.spatial_merge_size":2}}`)
	case r.URL.Path == "/api/chat":
		rc.mu.Lock()
		rc.bodies = append(rc.bodies, body)
		rc.mu.Unlock()
		fmt.Fprintln(w, `{"message":{"role":"assistant","content":"<think>t</think><answer>42</answer>"},"done":true,"done_reason":"stop","prompt_eval_count":400,"eval_count":9}`)
	case strings.HasSuffix(r.URL.Path, "/models"):
		io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model","max_model_len":32768}]}`)
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		rc.mu.Lock()
		rc.bodies = append(rc.bodies, body)
		rc.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"<think>t</think><answer>42</answer>"},"finish_reason":"stop"}]}`+"\n\n")
		io.WriteString(w, `data: {"choices":[],"usage":{"prompt_tokens":400,"completion_tokens":9}}`+"\n\ndata: [DONE]\n\n")
	default:
		http.NotFound(w, r)
	}
}

// TestAskOptionsReachTheWire: settings (profile sampling and context length, agent step limits) and `proofglass ask`
// flags end up in each provider's request body, over the mode's defaults.
func TestAskOptionsReachTheWire(t *testing.T) {
	for _, v := range []string{"OLLAMA_HOST", "OPENAI_BASE_URL", "DASHSCOPE_BASE_URL", "PROOFGLASS_PROVIDER", "PROOFGLASS_MODEL", "OPENAI_API_KEY", "DASHSCOPE_API_KEY"} {
		t.Setenv(v, "")
	}
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	cases := map[string]struct {
		kind, url string
		args      []string
		want      map[string]any // dotted paths into the body
		absent    []string
	}{
		"ollama: mode defaults (vrag greedy) and num_ctx sized for the run": {
			kind: "ollama", url: srv.URL, args: []string{"--mode", "vrag"},
			want:   map[string]any{"options.temperature": 0.0, "options.num_ctx": 12288.0},
			absent: []string{"options.top_p", "options.num_predict", "think"}},
		"ollama: profile sampling, then flags": {
			kind: "ollama", url: srv.URL, args: []string{"--mode", "vrag", "--top-p", "0.8", "--seed", "5", "--max-tokens", "300", "--context-length", "9000"},
			want: map[string]any{"options.temperature": 0.3, "options.top_p": 0.8, "options.seed": 5.0, "options.num_predict": 300.0, "options.num_ctx": 9000.0}},
		"ollama: vimrag thinks by default at 0.6 / 0.95": {
			kind: "ollama", url: srv.URL, args: []string{"--mode", "vimrag", "--temperature", "0.6"},
			want: map[string]any{"options.temperature": 0.6, "options.top_p": 0.95, "options.num_predict": 4096.0, "think": true}},
		"ollama: --think=false turns vimrag greedy": {
			kind: "ollama", url: srv.URL, args: []string{"--mode", "vimrag", "--think=false", "--temperature", "0"},
			want: map[string]any{"options.temperature": 0.0, "think": false}, absent: []string{"options.top_p"}},
		"ollama: react --calculator offers the native calculate function": {
			kind: "ollama", url: srv.URL, args: []string{"--mode", "react", "--calculator"},
			want: map[string]any{"options.temperature": 0.3}},
		"openai (vLLM): sampling and thinking flags": {
			kind: "openai", url: srv.URL + "/v1", args: []string{"--mode", "vimrag", "--seed", "9"},
			want:   map[string]any{"temperature": 0.3, "top_p": 0.95, "max_tokens": 4096.0, "seed": 9.0, "chat_template_kwargs.enable_thinking": true},
			absent: []string{"num_ctx", "options"}},
		"dashscope: enable_thinking at the top level": {
			kind: "dashscope", url: srv.URL + "/compatible-mode/v1", args: []string{"--mode", "vimrag", "--max-tokens", "2000"},
			want:   map[string]any{"temperature": 0.3, "top_p": 0.95, "max_tokens": 2000.0, "enable_thinking": true},
			absent: []string{"chat_template_kwargs"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			data := t.TempDir()
			settings := fmt.Sprintf(`{"version":1,"providers":[{"name":"p","kind":%q,"base_url":%q,"chat_model":"m","sampling":{"temperature":0.3}}],`+
				`"agent":{"provider":"p","mode":"vrag","vimrag_max_steps":6}}`, tc.kind, tc.url)
			if strings.Contains(name, "mode defaults") {
				settings = strings.Replace(settings, `,"sampling":{"temperature":0.3}`, "", 1)
			}
			if err := os.WriteFile(filepath.Join(data, "settings.json"), []byte(settings), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := run(t, data, append([]string{"ask", "--json", "What?"}, tc.args...)...)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			body := rc.last(t)
			for path, want := range tc.want {
				if got, ok := lookup(body, path); !ok || got != want {
					t.Errorf("%s = %v (present %v), want %v\nbody options: %v", path, got, ok, want, body["options"])
				}
			}
			for _, path := range tc.absent {
				if got, ok := lookup(body, path); ok {
					t.Errorf("%s = %v, want absent", path, got)
				}
			}
			tools, _ := body["tools"].([]any)
			if strings.Contains(name, "--calculator") {
				fn, _ := lookup(map[string]any{"t": firstOf(tools)}, "t.function.name")
				if len(tools) != 1 || fn != "calculate" || !strings.Contains(out, `"calculator":true`) {
					t.Errorf("tools %v, run_started with the calculator: %v", body["tools"], strings.Contains(out, `"calculator":true`))
				}
			} else if len(tools) != 0 {
				t.Errorf("tools %v without --calculator", tools)
			}
			if strings.Contains(name, "vimrag") && !strings.Contains(out, `"max_steps":6`) {
				t.Errorf("settings' vimrag_max_steps not honoured:\n%s", out[:min(len(out), 600)])
			}
		})
	}
	if _, err := run(t, t.TempDir(), "ask", "--mode", "vrag", "--max-steps", "11", "Q"); err == nil || !strings.Contains(err.Error(), "3 to 10") {
		t.Errorf("--max-steps 11 for vrag: %v", err)
	}
}

func firstOf(l []any) any {
	if len(l) == 0 {
		return nil
	}
	return l[0]
}

func lookup(m map[string]any, path string) (any, bool) {
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}
