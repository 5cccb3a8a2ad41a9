package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/model"
	"proofglass/backend/model/ollama"
	"proofglass/backend/model/openai"
)

// server is a scripted OpenAI-compatible server (vLLM-like): how many images it takes, whether it counts them,
// and the max_model_len it reports.
type server struct {
	maxImages   int  // 0: no vision
	countImages bool // images cost prompt tokens
	maxModelLen int
	tools       bool
}

func (s server) start(t *testing.T) *openai.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprintf(w, `{"object":"list","data":[{"id":"m","object":"model","max_model_len":%d}]}`, s.maxModelLen)
		case "/v1/chat/completions":
			var body struct {
				Messages []struct {
					Content json.RawMessage `json:"content"`
				} `json:"messages"`
				Tools []any `json:"tools"`
			}
			b, _ := io.ReadAll(r.Body)
			json.Unmarshal(b, &body)
			images := strings.Count(string(b), "data:image")
			switch {
			case images > 0 && s.maxImages == 0:
				w.WriteHeader(400)
				io.WriteString(w, `{"error":{"message":"Qwen2ForCausalLM is not a multimodal model","type":"BadRequestError","code":400}}`)
				return
			case images > s.maxImages:
				w.WriteHeader(400)
				fmt.Fprintf(w, `{"error":{"message":"At most %d image(s) may be provided in one request.","type":"BadRequestError","code":400}}`, s.maxImages)
				return
			case len(body.Tools) > 0 && !s.tools:
				w.WriteHeader(400)
				io.WriteString(w, `{"error":{"message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","code":400}}`)
				return
			}
			prompt := 20
			if s.countImages {
				prompt += 64 * images
			}
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"red"},"finish_reason":null}]}`+"\n\n")
			fmt.Fprintf(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
			fmt.Fprintf(w, `data: {"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":1}}`+"\n\n", prompt)
			io.WriteString(w, "data: [DONE]\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := openai.New(srv.URL+"/v1", openai.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func byName(rs []Result) map[string]Result {
	m := map[string]Result{}
	for _, r := range rs {
		m[r.Name] = r
	}
	return m
}

func TestProbesAgainstScriptedServers(t *testing.T) {
	cases := map[string]struct {
		srv      server
		mode     agent.Mode
		failing  string // the probe that must fail ("" = none)
		fixHas   string
		skipped  string
		detailOK string
	}{
		"a good VRAG server":     {srv: server{maxImages: 10, countImages: true, maxModelLen: 32768}, mode: agent.ModeVRAG},
		"no vision":              {srv: server{maxModelLen: 32768}, mode: agent.ModeVRAG, failing: "vision", fixHas: "vllm serve", skipped: "images"},
		"ignores images":         {srv: server{maxImages: 10, maxModelLen: 32768}, mode: agent.ModeVRAG, failing: "vision", fixHas: "vision-language", skipped: "images"},
		"one image only":         {srv: server{maxImages: 1, countImages: true, maxModelLen: 32768}, mode: agent.ModeVRAG, failing: "images", fixHas: `--limit-mm-per-prompt '{"image":10}'`},
		"short context":          {srv: server{maxImages: 10, countImages: true, maxModelLen: 4096}, mode: agent.ModeVRAG, failing: "context", fixHas: "--max-model-len"},
		"vimrag without tools":   {srv: server{maxImages: 8, countImages: true, maxModelLen: 32768}, mode: agent.ModeVimRAG, failing: "tools", fixHas: "--enable-auto-tool-choice"},
		"vimrag needs 8 images":  {srv: server{maxImages: 5, countImages: true, maxModelLen: 32768, tools: true}, mode: agent.ModeVimRAG, failing: "images", fixHas: `{"image":8}`},
		"vimrag, all it needs":   {srv: server{maxImages: 8, countImages: true, maxModelLen: 32768, tools: true}, mode: agent.ModeVimRAG},
		"vanilla needs 3 images": {srv: server{maxImages: 2, countImages: true, maxModelLen: 32768}, mode: agent.ModeVanilla, failing: "images", fixHas: `{"image":3}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := tc.srv.start(t)
			rs := Run(context.Background(), c, "m", Options{Mode: tc.mode, Kind: "openai"})
			for _, r := range rs {
				t.Logf("%-8s ok=%v skipped=%v %s | fix: %s", r.Name, r.OK, r.Skipped, r.Detail, r.Fix)
				switch {
				case r.Name == tc.failing:
					if r.OK || !strings.Contains(r.Fix, tc.fixHas) {
						t.Errorf("%s: ok=%v fix %q, want a failure whose fix has %q", r.Name, r.OK, r.Fix, tc.fixHas)
					}
				case r.Name == tc.skipped:
					if !r.Skipped {
						t.Errorf("%s should be skipped", r.Name)
					}
				case !r.OK:
					t.Errorf("%s failed: %s", r.Name, r.Detail)
				}
			}
			if tc.failing != "" {
				if _, ok := byName(rs)[tc.failing]; !ok {
					t.Fatalf("no %s probe", tc.failing)
				}
			}
		})
	}
}

// TestOllamaShortContext: an Ollama model whose trained context is 4,096 tokens cannot hold a vrag run.
func TestOllamaShortContext(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/show":
			io.WriteString(w, `{"capabilities":["completion","vision"],"model_info":{"general.architecture":"llava","llava.context_length":4096}}`)
		case "/api/chat":
			b, _ := io.ReadAll(r.Body)
			n := 20 + 100*strings.Count(string(b), `"images"`)
			fmt.Fprintf(w, `{"message":{"role":"assistant","content":"red"},"done":true,"done_reason":"stop","prompt_eval_count":%d,"eval_count":1}`+"\n", n+strings.Count(string(b), `","`)*50)
		}
	}))
	defer srv.Close()
	c, err := ollama.New(srv.URL, ollama.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := byName(Run(context.Background(), c, "llava", Options{Mode: agent.ModeVRAG, Kind: "ollama"}))["context"]
	if r.OK || !strings.Contains(r.Detail, "supports 4096") || !strings.Contains(r.Fix, "--max-steps") {
		t.Fatalf("context probe %+v", r)
	}
	var _ model.LimitsReporter = c
}
