package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"proofglass/backend/config"
	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
)

func ollamaHost(t *testing.T) string {
	t.Helper()
	return modeltest.OllamaURL(t)
}

// closedPort returns a local URL nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestE2ETestBothKindsAgainstOllama(t *testing.T) {
	h := ollamaHost(t)
	cases := map[string]config.Provider{
		"native": {Name: "local", Kind: config.KindOllama, BaseURL: h, ChatModel: "tiny-vision", EmbedModel: "glove-embed"},
		"openai": {Name: "compat", Kind: config.KindOpenAI, BaseURL: h + "/v1", ChatModel: "tiny-vision:latest", EmbedModel: "glove-embed:latest"},
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			r := Test(context.Background(), p)
			if !r.OK() || r.Models < 3 || r.Error != "" {
				t.Fatalf("result %+v", r)
			}
			if p.Kind == config.KindOllama && r.Version == "" {
				t.Error("ollama should report its version")
			}
			s, err := New(p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			vs, err := s.Embedder.Embed(context.Background(), []model.EmbedInput{{Text: "cat"}})
			if err != nil || len(vs[0]) != 100 {
				t.Fatalf("embed through the factory: %v", err)
			}
		})
	}
	missing := Test(context.Background(), config.Provider{Name: "x", Kind: config.KindOllama, BaseURL: h, ChatModel: "no-such-model"})
	if missing.OK() || missing.ChatModelFound == nil || *missing.ChatModelFound || !missing.Reachable {
		t.Errorf("a configured model the server lacks must be reported: %+v", missing)
	}
}

func TestUnreachableEndpointsAreReportedNotFatal(t *testing.T) {
	dir := t.TempDir()
	cfg := &config.Config{DataDir: dir, Settings: config.Settings{Providers: []config.Provider{
		{Name: "down-ollama", Kind: config.KindOllama, BaseURL: closedPort(t)},
		{Name: "down-vllm", Kind: config.KindOpenAI, BaseURL: closedPort(t) + "/v1"},
		{Name: "bad-kind", Kind: "telepathy"},
	}}}
	rs := TestAll(context.Background(), cfg, 5*time.Second)
	if len(rs) != 3 {
		t.Fatalf("%d results", len(rs))
	}
	for _, r := range rs {
		if r.Reachable || r.Error == "" || r.OK() {
			t.Errorf("%s: %+v", r.Name, r)
		}
	}
	if !strings.Contains(rs[0].Error, "connection refused") || !strings.Contains(rs[2].Error, "unknown kind") {
		t.Errorf("errors should say why: %q / %q", rs[0].Error, rs[2].Error)
	}
	// The reason the window translates: nothing answers at the first two; the third is a configuration error.
	if rs[0].Reason != model.FailureUnreachable || rs[1].Reason != model.FailureUnreachable || rs[2].Reason != "" {
		t.Errorf("reasons %q %q %q", rs[0].Reason, rs[1].Reason, rs[2].Reason)
	}
}

func TestResultNeverCarriesTheKey(t *testing.T) {
	const key = "sk-provider-SECRET-77"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error"}}`, key)
	}))
	defer srv.Close()
	for _, kind := range []string{config.KindOpenAI, config.KindDashScope} {
		r := Test(context.Background(), config.Provider{Name: kind, Kind: kind, BaseURL: srv.URL + "/v1", APIKey: key, ChatModel: "m"})
		b, _ := json.Marshal(r)
		if strings.Contains(string(b), key) || strings.Contains(fmt.Sprintf("%+v", r), key) {
			t.Errorf("%s result prints the key: %s", kind, b)
		}
		if !r.Reachable || r.Error == "" {
			t.Errorf("%s: a 401 means reachable with an error: %+v", kind, r)
		}
		if r.Reason != model.FailureUnauthorized {
			t.Errorf("%s: reason %q, want %q", kind, r.Reason, model.FailureUnauthorized)
		}
	}
}

func TestBuiltin(t *testing.T) {
	cases := map[string]struct {
		embedModel string
		ok         bool
	}{
		"default":  {"", true},
		"short id": {"glove-100d", true},
		"full id":  {"builtin/glove-100d", true},
		"unknown":  {"word2vec", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := config.Provider{Name: "offline", Kind: config.KindBuiltin, EmbedModel: tc.embedModel}
			s, err := New(p, Options{})
			if !tc.ok {
				if err == nil || Test(context.Background(), p).OK() {
					t.Fatalf("want an error for %q", tc.embedModel)
				}
				return
			}
			if err != nil || s.Chat != nil || s.Embedder.ModelID() != "builtin/glove-100d" || s.Embedder.Dim() != 100 {
				t.Fatalf("set %+v err %v", s, err)
			}
			if r := Test(context.Background(), p); !r.OK() || r.Models != 1 {
				t.Errorf("builtin test: %+v", r)
			}
		})
	}
}

func TestMultimodalEmbedName(t *testing.T) {
	cases := map[string]bool{"Alibaba-NLP/GVE-3B": true, "Qwen/Qwen3-VL-Embedding-2B": true, "BAAI/bge-m3": false,
		"nomic-embed-text": false, "TIGER-Lab/VLM2Vec-Full": true}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			if got := MultimodalEmbedName(name); got != want {
				t.Errorf("got %v", got)
			}
		})
	}
}

func TestGatewayWithoutModelList(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	r := Test(context.Background(), config.Provider{Name: "gw", Kind: config.KindOpenAI, BaseURL: srv.URL + "/v1", ChatModel: "m"})
	if !r.Reachable || r.Error != "" || r.Note == "" || r.ChatModelFound != nil || !r.OK() {
		t.Errorf("a 404 on /models is a note, not a failure: %+v", r)
	}
}
