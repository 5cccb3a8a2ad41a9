// Package provider builds model clients from configured provider profiles and tests their connections.
package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"proofglass/backend/config"
	"proofglass/backend/model"
	"proofglass/backend/model/builtin"
	"proofglass/backend/model/dashscope"
	"proofglass/backend/model/ollama"
	"proofglass/backend/model/openai"
	"proofglass/backend/model/transport"
)

// Set is what one profile provides. Chat is nil for a profile without chat (builtin); Embedder is nil when the profile
// names no embedding model.
type Set struct {
	Profile  config.Provider
	Chat     model.Chat
	Embedder model.Embedder
	Lister   model.Lister
	// Version reports the server version where the API has one (Ollama); nil otherwise.
	Version func(ctx context.Context) (string, error)
}

// Options tune the clients built by New.
type Options struct {
	Transport transport.Config
	KeepAlive *time.Duration // Ollama keep_alive
}

// BuiltinFactory makes the offline embedder for a model name ("" = its default).
type BuiltinFactory func(modelName string) (model.Embedder, error)

var (
	builtinMu      sync.RWMutex
	builtinFactory BuiltinFactory = defaultBuiltin
)

// defaultBuiltin is the GloVe embedder; it loads its word table lazily, on the first Embed.
func defaultBuiltin(name string) (model.Embedder, error) {
	e := builtin.New()
	if name != "" && name != e.ModelID() && "builtin/"+name != e.ModelID() {
		return nil, fmt.Errorf("unknown built-in embedding model %q (have %s)", name, e.ModelID())
	}
	return e, nil
}

// RegisterBuiltin replaces the factory of the built-in (offline) embedder; nil restores the GloVe default.
func RegisterBuiltin(f BuiltinFactory) {
	if f == nil {
		f = defaultBuiltin
	}
	builtinMu.Lock()
	builtinFactory = f
	builtinMu.Unlock()
}

// New builds the clients of profile p.
func New(p config.Provider, o Options) (*Set, error) {
	s := &Set{Profile: p}
	switch p.Kind {
	case config.KindOllama:
		c, err := ollama.New(p.BaseURL, ollama.Options{Provider: p.Name, KeepAlive: o.KeepAlive, Transport: o.Transport})
		if err != nil {
			return nil, fmt.Errorf("provider %s: %w", p.Name, err)
		}
		s.Chat, s.Lister, s.Version = c, c, c.Version
		if p.EmbedModel != "" {
			s.Embedder = c.Embedder(p.EmbedModel)
		}
	case config.KindOpenAI:
		c, err := openai.New(p.BaseURL, openai.Options{APIKey: p.APIKey, Provider: p.Name, Transport: o.Transport})
		if err != nil {
			return nil, fmt.Errorf("provider %s: %w", p.Name, err)
		}
		s.Chat, s.Lister = c, c
		if p.EmbedModel != "" {
			s.Embedder = c.Embedder(p.EmbedModel, MultimodalEmbedName(p.EmbedModel))
		}
	case config.KindDashScope:
		do := dashscope.Options{APIKey: p.APIKey, Provider: p.Name, Transport: o.Transport}
		c, err := dashscope.NewChat(p.BaseURL, do)
		if err != nil {
			return nil, fmt.Errorf("provider %s: %w", p.Name, err)
		}
		s.Chat, s.Lister = c, c
		if p.EmbedModel != "" {
			e, err := dashscope.NewEmbedder(p.BaseURL, p.EmbedModel, do)
			if err != nil {
				return nil, fmt.Errorf("provider %s: %w", p.Name, err)
			}
			s.Embedder = e
		}
	case config.KindBuiltin:
		builtinMu.RLock()
		f := builtinFactory
		builtinMu.RUnlock()
		e, err := f(p.EmbedModel)
		if err != nil {
			return nil, fmt.Errorf("provider %s: %w", p.Name, err)
		}
		s.Embedder = e
		s.Lister = staticLister{model.Info{Name: e.ModelID(), Provider: p.Name, Embedding: true}}
	default:
		return nil, fmt.Errorf("provider %s: unknown kind %q (want ollama, openai, dashscope or builtin)", p.Name, p.Kind)
	}
	return s, nil
}

type staticLister []model.Info

func (l staticLister) Models(context.Context) ([]model.Info, error) { return l, nil }

// MultimodalEmbedName guesses from its name whether an OpenAI-compatible embedding model takes images (the profile has
// no field for it): GVE, Qwen3-VL-Embedding, VLM2Vec, jina-clip, colqwen and similar.
func MultimodalEmbedName(name string) bool {
	n := strings.ToLower(name)
	for _, k := range []string{"gve", "-vl", "vl-", "vlm2vec", "clip", "colqwen", "colpali", "siglip", "multimodal", "vision"} {
		if strings.Contains(n, k) {
			return true
		}
	}
	return false
}

// Result is the outcome of a connection test, shown by `proofglass doctor` and the settings screen.
type Result struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	BaseURL   string `json:"base_url"`
	Reachable bool   `json:"reachable"`
	Version   string `json:"version,omitempty"`
	Models    int    `json:"models"`
	// ChatModel and EmbedModel echo the profile; the *Found fields say whether the server lists them (nil: not checked).
	ChatModel      string `json:"chat_model,omitempty"`
	ChatModelFound *bool  `json:"chat_model_found,omitempty"`
	EmbedModel     string `json:"embed_model,omitempty"`
	EmbedFound     *bool  `json:"embed_model_found,omitempty"`
	LatencyMS      int64  `json:"latency_ms"`
	Error          string `json:"error,omitempty"`
	// Reason names why the test failed (model.Failure*), for the window's language; "" when not known.
	Reason string `json:"reason,omitempty"`
	Note   string `json:"note,omitempty"` // something worth knowing that is not a failure
	// Infos are the models listed, for callers that show them (`proofglass models`).
	Infos []model.Info `json:"-"`
}

// OK reports whether the endpoint answered and the configured models exist.
func (r Result) OK() bool {
	return r.Reachable && r.Error == "" && (r.ChatModelFound == nil || *r.ChatModelFound) && (r.EmbedFound == nil || *r.EmbedFound)
}

// TestTransport is the transport of connection tests: short timeouts and no retries, so a dead endpoint answers fast.
func TestTransport() transport.Config {
	return transport.Config{ConnectTimeout: 3 * time.Second, HeaderTimeout: 15 * time.Second, IdleTimeout: 15 * time.Second, MaxRetries: -1}
}

// Test checks one profile: it connects, asks the version where there is one, lists the models and looks for the
// configured chat and embedding models. It never returns the API key, in any field.
func Test(ctx context.Context, p config.Provider) Result {
	return test(ctx, p, Options{Transport: TestTransport()})
}

func test(ctx context.Context, p config.Provider, o Options) (r Result) {
	// r is the named result so that the deferred redaction applies to what is returned.
	r = Result{Name: p.Name, Kind: p.Kind, BaseURL: p.BaseURL, ChatModel: p.ChatModel, EmbedModel: p.EmbedModel}
	start := time.Now()
	var failed error
	defer func() {
		r.Error = transport.Redact(r.Error, p.APIKey)
		r.Reason = model.FailureCode(failed)
	}()
	s, err := New(p, o)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	if p.Kind == config.KindDashScope && p.APIKey == "" {
		r.Note = "no API key: set DASHSCOPE_API_KEY or store one in settings"
	}
	if s.Version != nil {
		v, err := s.Version(ctx)
		if err != nil {
			r.LatencyMS = time.Since(start).Milliseconds()
			r.Error, failed = err.Error(), err
			return r
		}
		r.Version = v
	}
	infos, err := s.Lister.Models(ctx)
	r.LatencyMS = time.Since(start).Milliseconds()
	if err != nil {
		var se *transport.StatusError
		if errors.As(err, &se) && se.Code == 404 && p.Kind != config.KindOllama {
			// Some OpenAI-compatible gateways do not implement GET /models: the server answered, so it is reachable,
			// but nothing can be said about its models.
			r.Reachable = true
			r.Note = "the server does not list its models (GET /models answered 404)"
			return r
		}
		r.Error, failed = err.Error(), err
		// An HTTP answer, even an error, proves the server is there.
		r.Reachable = s.Version != nil || errors.As(err, &se) || errors.Is(err, model.ErrModelNotFound)
		return r
	}
	r.Reachable = true
	r.Models = len(infos)
	r.Infos = infos
	if p.Kind == config.KindBuiltin {
		return r
	}
	if p.ChatModel != "" {
		f := listed(infos, p.ChatModel)
		r.ChatModelFound = &f
	}
	if p.EmbedModel != "" && p.Kind != config.KindDashScope { // DashScope's /models does not list embedding models
		f := listed(infos, p.EmbedModel)
		r.EmbedFound = &f
	}
	return r
}

// listed matches a configured name against the server's list; Ollama's "name" means "name:latest".
func listed(infos []model.Info, name string) bool {
	for _, i := range infos {
		if i.Name == name || i.Name == name+":latest" || strings.TrimSuffix(i.Name, ":latest") == name {
			return true
		}
	}
	return false
}

// TestAll tests every configured profile concurrently, each bounded by perEndpoint (0 = 20 s), in profile order.
// This is what `proofglass doctor` calls.
func TestAll(ctx context.Context, cfg *config.Config, perEndpoint time.Duration) []Result {
	if perEndpoint == 0 {
		perEndpoint = 20 * time.Second
	}
	ps := cfg.Current().Providers
	out := make([]Result, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tctx, cancel := context.WithTimeout(ctx, perEndpoint)
			defer cancel()
			if keyed, err := cfg.Provider(p.Name); err == nil && keyed.BaseURL == p.BaseURL {
				p = keyed // the key is joined in here, at use
			}
			out[i] = Test(tctx, p)
		}()
	}
	wg.Wait()
	return out
}

// NewTranscriber returns the speech transcriber of an OpenAI-compatible profile (Whisper on vLLM, LocalAI,
// OpenAI): the endpoint /audio/transcriptions under the profile's base URL.
func NewTranscriber(p config.Provider, modelName string) (*openai.Transcriber, error) {
	if p.Kind != config.KindOpenAI {
		return nil, fmt.Errorf("transcription needs an OpenAI-compatible profile; %s is %s", p.Name, p.Kind)
	}
	if modelName == "" {
		return nil, fmt.Errorf("transcription with profile %s: no model named", p.Name)
	}
	c, err := openai.New(p.BaseURL, openai.Options{APIKey: p.APIKey, Provider: p.Name})
	if err != nil {
		return nil, err
	}
	return c.Transcriber(modelName), nil
}
