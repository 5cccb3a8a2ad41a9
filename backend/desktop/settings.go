package desktop

import (
	"errors"
	"fmt"
	"time"

	"proofglass/backend/agent"
	"proofglass/backend/config"
	"proofglass/backend/model"
	"proofglass/backend/model/ollama"
	"proofglass/backend/model/probe"
	"proofglass/backend/model/provider"
	"proofglass/backend/rerank"
)

// SettingsService is the settings screen: the settings in effect and saving them, API keys (stored, never read
// back), testing a provider profile, its models, probing a model for a mode, and pulling a model into Ollama
// (progress as models:pull events).
type SettingsService struct{ c *core }

// Settings returns the settings in effect (environment overrides applied; API keys are never included).
func (s *SettingsService) Settings() (config.Settings, error) {
	if err := s.c.ready(); err != nil {
		return config.Settings{}, err
	}
	return s.c.lib.Config.Current(), nil
}

// SaveSettings saves the values the window changed: environment overrides and API keys are kept out of the file,
// and what the window did not touch stays as it was (config.Update). Every value is checked as untrusted input.
func (s *SettingsService) SaveSettings(st config.Settings) error {
	if err := s.c.ready(); err != nil {
		return err
	}
	return s.c.lib.Config.Update(st)
}

// SetAPIKey stores a provider's API key in the OS keyring (or the 0600 fallback file); "" removes it. The key is
// never read back by the window.
func (s *SettingsService) SetAPIKey(profile, key string) error {
	if err := s.c.ready(); err != nil {
		return err
	}
	if err := checkName("profile", profile); err != nil {
		return err
	}
	if err := checkAPIKey(key); err != nil {
		return err
	}
	return s.c.lib.Config.SetAPIKey(profile, key)
}

// TestProvider checks a provider profile as given (unsaved edits included): reachability, version, models found.
// apiKey is a key the user typed and has not saved ("" = none); otherwise the stored key is used only when the
// profile still points at its saved URL, so no page script can send a stored key to a host of its choosing.
func (s *SettingsService) TestProvider(p config.Provider, apiKey string) provider.Result {
	if err := checkProfile(p); err != nil {
		return provider.Result{Name: p.Name, Kind: p.Kind, Error: err.Error()}
	}
	if err := checkAPIKey(apiKey); err != nil {
		return provider.Result{Name: p.Name, Kind: p.Kind, Error: err.Error()}
	}
	if s.c.lib != nil {
		p = s.c.lib.Config.ForTest(p, apiKey)
	} else {
		p.APIKey = apiKey
	}
	return provider.Test(s.c.ctx, p)
}

// ListModels lists the models a provider profile serves, with their capabilities (the key as TestProvider uses it).
func (s *SettingsService) ListModels(p config.Provider, apiKey string) ([]model.Info, error) {
	r := s.TestProvider(p, apiKey)
	if r.Error != "" && len(r.Infos) == 0 {
		return nil, errors.New(r.Error)
	}
	return r.Infos, nil
}

// withSavedKey gives a profile from the settings screen the API key stored for it, as TestProvider does: only for
// the profile's saved URL (the screen never holds keys).
func (s *SettingsService) withSavedKey(p config.Provider) config.Provider {
	if s.c.lib != nil {
		return s.c.lib.Config.ForTest(p, "")
	}
	return p
}

// ProbeModel checks a profile's chat model for what mode needs (vision, images per request, context, tool calls),
// as `proofglass doctor --model` does. modelName "" means the profile's chat model; mode "" the agent default.
func (s *SettingsService) ProbeModel(p config.Provider, modelName, mode string) ([]probe.Result, error) {
	if err := checkProfile(p); err != nil {
		return nil, err
	}
	for what, v := range map[string]string{"model": modelName, "mode": mode} {
		if err := checkName(what, v); err != nil {
			return nil, err
		}
	}
	p = s.withSavedKey(p)
	if modelName == "" {
		modelName = p.ChatModel
	}
	if modelName == "" {
		return nil, errors.New("choose a chat model first")
	}
	var settings config.AgentDefaults
	if s.c.lib != nil {
		settings = s.c.lib.Config.Current().Agent
	}
	if mode == "" {
		mode = settings.Mode
	}
	return probe.Profile(s.c.ctx, p, modelName, agent.Mode(mode), settings)
}

// PullEvent is one progress report of a pull, as the settings screen shows it.
type PullEvent struct {
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	Status    string `json:"status"`
	Completed int64  `json:"completed,omitempty"`
	Total     int64  `json:"total,omitempty"`
	Done      bool   `json:"done,omitempty"`
	Error     string `json:"error,omitempty"`
}

// PullModel has an Ollama profile's server download a model; progress arrives as models:pull events and the call
// returns when the pull ends.
func (s *SettingsService) PullModel(p config.Provider, name string) error {
	if err := checkProfile(p); err != nil {
		return err
	}
	if err := checkName("model", name); err != nil {
		return err
	}
	if p.Kind != config.KindOllama {
		return fmt.Errorf("%s is a %s profile: only Ollama servers pull models", p.Name, p.Kind)
	}
	set, err := provider.New(p, provider.Options{})
	if err != nil {
		return err
	}
	cl, ok := set.Chat.(*ollama.Client)
	if !ok {
		return fmt.Errorf("provider %s: no Ollama client", p.Name)
	}
	emit := func(e PullEvent) {
		e.Provider, e.Model = p.Name, name
		s.c.emit(eventPull, e)
	}
	err = cl.Pull(s.c.ctx, name, func(pp ollama.PullProgress) {
		emit(PullEvent{Status: pp.Status, Completed: pp.Completed, Total: pp.Total})
	})
	if err != nil {
		emit(PullEvent{Status: "failed", Done: true, Error: err.Error()})
		return err
	}
	emit(PullEvent{Status: "success", Done: true})
	return nil
}

// RerankTest is what testing a reranker found.
type RerankTest struct {
	Reranker string `json:"reranker"`        // which reranker: kind, model and server
	OK       bool   `json:"ok"`              // it answered with scores
	Sensible bool   `json:"sensible"`        // it put the sample that answers the sample question first
	Error    string `json:"error,omitempty"` // why it failed
	MS       int64  `json:"ms"`
}

// TestReranker runs reranker r (unsaved edits included) once over two sample texts. It is served by its saved
// profile, with that profile's stored key and URL, so the window cannot send a key anywhere else.
func (s *SettingsService) TestReranker(r config.Rerank) RerankTest {
	if err := s.c.ready(); err != nil {
		return RerankTest{Error: err.Error()}
	}
	if !r.Enabled() {
		return RerankTest{Error: "choose a reranker first"}
	}
	cfg := s.c.lib.Config
	st := cfg.Current()
	st.Rerank = r
	if err := config.Validate(st); err != nil {
		return RerankTest{Error: err.Error()}
	}
	p, err := cfg.RerankProfile(r)
	if err != nil {
		return RerankTest{Error: err.Error()}
	}
	rr, err := rerank.New(r, p)
	if err != nil {
		return RerankTest{Error: err.Error()}
	}
	res := RerankTest{Reranker: rr.Name()}
	start := time.Now()
	sensible, err := rerank.Check(s.c.ctx, rr)
	res.MS = time.Since(start).Milliseconds()
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.OK, res.Sensible = true, sensible
	return res
}
