package cli

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/fixture"
	"proofglass/backend/model"
)

// A failed model call reaches the window with the reason it translates (agent.ErrorInfo.Reason), beside the
// English message: a server that is not there, one that refuses the key, and a model the real Ollama lacks.
func TestAskSaysWhyTheModelFailed(t *testing.T) {
	data := t.TempDir()
	askKB(t, data, "pdf/real/blood_loss_report.pdf")
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusedURL := "http://" + closed.Addr().String()
	closed.Close()
	unauthorized := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`))
	}))
	defer unauthorized.Close()

	lastError := func(t *testing.T, args ...string) *agent.ErrorInfo {
		t.Helper()
		out, _ := cli(context.Background(), data, append([]string{"ask", "What was the blood loss?", "--mode", "vanilla", "--json"}, args...)...)
		var last *agent.ErrorInfo
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var ev agent.Event
			if json.Unmarshal([]byte(l), &ev) == nil && ev.Kind == agent.KindError {
				last = ev.Error
			}
		}
		if last == nil {
			t.Fatalf("no error event in\n%s", out)
		}
		return last
	}
	t.Run("unreachable", func(t *testing.T) {
		openAIEnv(t, refusedURL)
		if e := lastError(t, "--provider", "openai", "--model", "m"); e.Code != "model" || e.Reason != model.FailureUnreachable {
			t.Errorf("error %+v, want code model, reason %s", e, model.FailureUnreachable)
		}
	})
	t.Run("unauthorized", func(t *testing.T) {
		openAIEnv(t, unauthorized.URL)
		e := lastError(t, "--provider", "openai", "--model", "m")
		if e.Code != "model" || e.Reason != model.FailureUnauthorized || !strings.Contains(e.Message, "Incorrect API key") {
			t.Errorf("error %+v, want code model, reason %s and the server's message", e, model.FailureUnauthorized)
		}
	})
	t.Run("model missing on the real Ollama", func(t *testing.T) {
		fixture.OllamaHost(t)
		t.Setenv("PROOFGLASS_PROVIDER", "")
		t.Setenv("PROOFGLASS_MODEL", "")
		if e := lastError(t, "--provider", "ollama", "--model", "no-such-model:1b"); e.Code != "model" || e.Reason != model.FailureNotFound {
			t.Errorf("error %+v, want code model, reason %s", e, model.FailureNotFound)
		}
	})
}
