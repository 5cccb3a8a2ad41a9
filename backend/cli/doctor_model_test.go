package cli

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// oneImageServer is a scripted vLLM started without --limit-mm-per-prompt: one image per request, 8k context.
func oneImageServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		switch {
		case strings.HasSuffix(r.URL.Path, "/models"):
			io.WriteString(w, `{"object":"list","data":[{"id":"Qwen/Qwen2.5-VL-7B-Instruct","object":"model","max_model_len":8192}]}`)
		case strings.HasSuffix(r.URL.Path, "/chat/completions"):
			n := strings.Count(string(b), "data:image")
			if n > 1 {
				w.WriteHeader(400)
				fmt.Fprintf(w, `{"error":{"message":"At most 1 image(s) may be provided in one request.","code":400}}`)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"red"},"finish_reason":"stop"}]}`+"\n\n")
			fmt.Fprintf(w, `data: {"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":1}}`+"\n\ndata: [DONE]\n\n", 20+300*n)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func TestDoctorModelNamesProblemsAndFixes(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	data := t.TempDir()
	settings := `{"version":1,"providers":[{"name":"vllm","kind":"openai","base_url":"` + oneImageServer(t) + `","chat_model":"Qwen/Qwen2.5-VL-7B-Instruct"}],"agent":{"provider":"vllm","mode":"vrag"}}`
	if err := os.WriteFile(filepath.Join(data, "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, data, "doctor", "--offline", "--model", "Qwen/Qwen2.5-VL-7B-Instruct")
	if err == nil {
		t.Fatalf("doctor passed a model that takes one image:\n%s", out)
	}
	for _, want := range []string{
		"ok   vrag vision", "FAIL vrag images", `fix: start vLLM with --limit-mm-per-prompt '{"image":10}'`,
		"FAIL vrag context", "fix: restart vLLM with --max-model-len",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := run(t, data, "doctor", "--offline", "--model", "m", "--mode", "nope"); err == nil || !strings.Contains(err.Error(), "unknown --mode") {
		t.Errorf("bad mode: %v", err)
	}
}

func TestModelsPullShowsProgress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/pull" {
			http.NotFound(w, r)
			return
		}
		for _, l := range []string{`{"status":"pulling manifest"}`, `{"status":"pulling 6a07","total":2000000,"completed":1000000}`,
			`{"status":"pulling 6a07","total":2000000,"completed":2000000}`, `{"status":"success"}`} {
			io.WriteString(w, l+"\n")
		}
	}))
	defer srv.Close()
	t.Setenv("OLLAMA_HOST", srv.URL)
	data := t.TempDir()
	out, err := run(t, data, "models", "pull", "qwen2.5vl:7b")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"pulling manifest", "pulling 6a07:  50% of 2.0 MB", "pulling 6a07: 100% of 2.0 MB", "qwen2.5vl:7b is ready on ollama"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := run(t, data, "models", "pull", "x", "--provider", "openai"); err == nil || !strings.Contains(err.Error(), "only Ollama") {
		t.Errorf("pull on an openai profile: %v", err)
	}
}
