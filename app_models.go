package main

import (
	"errors"
	"fmt"

	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"proofglass/backend/agent"
	"proofglass/backend/config"
	"proofglass/backend/model/ollama"
	"proofglass/backend/model/probe"
	"proofglass/backend/model/provider"
)

// eventPull carries the progress of PullModel.
const eventPull = "models:pull"

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

// withSavedKey gives a profile from the settings screen the API key stored for it, as TestProvider does: only for
// the profile's saved URL (the screen never holds keys).
func (a *App) withSavedKey(p config.Provider) config.Provider {
	if a.lib != nil {
		return a.lib.Config.ForTest(p, "")
	}
	return p
}

// ProbeModel checks a profile's chat model for what mode needs (vision, images per request, context, tool calls),
// as `proofglass doctor --model` does. modelName "" means the profile's chat model; mode "" the agent default.
func (a *App) ProbeModel(p config.Provider, modelName, mode string) ([]probe.Result, error) {
	if err := checkProfile(p); err != nil {
		return nil, err
	}
	for what, v := range map[string]string{"model": modelName, "mode": mode} {
		if err := checkName(what, v); err != nil {
			return nil, err
		}
	}
	p = a.withSavedKey(p)
	if modelName == "" {
		modelName = p.ChatModel
	}
	if modelName == "" {
		return nil, errors.New("choose a chat model first")
	}
	var settings config.AgentDefaults
	if a.lib != nil {
		settings = a.lib.Config.Current().Agent
	}
	if mode == "" {
		mode = settings.Mode
	}
	return probe.Profile(a.ctx, p, modelName, agent.Mode(mode), settings)
}

// PullModel has an Ollama profile's server download a model; progress arrives as models:pull events and the call
// returns when the pull ends.
func (a *App) PullModel(p config.Provider, name string) error {
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
	c, ok := set.Chat.(*ollama.Client)
	if !ok {
		return fmt.Errorf("provider %s: no Ollama client", p.Name)
	}
	emit := func(e PullEvent) {
		e.Provider, e.Model = p.Name, name
		wruntime.EventsEmit(a.ctx, eventPull, e)
	}
	err = c.Pull(a.ctx, name, func(pp ollama.PullProgress) {
		emit(PullEvent{Status: pp.Status, Completed: pp.Completed, Total: pp.Total})
	})
	if err != nil {
		emit(PullEvent{Status: "failed", Done: true, Error: err.Error()})
		return err
	}
	emit(PullEvent{Status: "success", Done: true})
	return nil
}
