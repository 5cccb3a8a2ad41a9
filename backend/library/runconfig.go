package library

import (
	"fmt"
	"slices"

	"proofglass/backend/agent"
	"proofglass/backend/config"
	"proofglass/backend/model"
)

// RunOptions are what the caller of one run chooses (CLI flags, /v1/ask fields, the chat screen); zero values take
// the settings, then the mode's reference defaults.
type RunOptions struct {
	Mode       string
	Provider   string // profile name or kind; "" = settings.agent.provider
	Model      string // "" = the profile's chat model
	Collection string
	Think      *bool           // nil = settings.agent.think if true, else the mode's default (VimRAG on)
	Sampling   config.Sampling // over the profile's sampling, over the mode's
	MaxSteps   int             // 0 = settings.agent.{vrag,vimrag}_max_steps, else the mode's default
	TopK       int             // 0 = settings.agent.top_k, else the mode's default
	// ContextLength is the context window (Ollama num_ctx): 0 = the profile's setting; see config.Provider.
	ContextLength int
	Calculator    bool // offer the model the calculator (agent.Config.Calculator)
}

// AgentConfig resolves a run's settings into the agent's configuration and the chat client to run it with. Every
// face (CLI, HTTP, window) goes through it, so settings and per-mode defaults mean the same everywhere. The
// returned Config is validated: step and top_k ranges, sampling values.
func (l *Library) AgentConfig(o RunOptions) (model.Chat, agent.Config, error) {
	return l.agentConfig(nil, o)
}

// AgentConfigWith resolves a run like AgentConfig but runs it with chat (tests, embedders of the library) instead of
// a client built from the profile.
func (l *Library) AgentConfigWith(chat model.Chat, o RunOptions) (agent.Config, error) {
	_, cfg, err := l.agentConfig(chat, o)
	return cfg, err
}

func (l *Library) agentConfig(chat model.Chat, o RunOptions) (model.Chat, agent.Config, error) {
	s := l.Config.Current().Agent
	mode := o.Mode
	if mode == "" {
		mode = s.Mode
	}
	if mode == "" {
		mode = string(agent.ModeVRAG)
	}
	m := agent.Mode(mode)
	if !slices.Contains(agent.Modes, m) {
		return nil, agent.Config{}, fmt.Errorf("unknown mode %q (want vrag, vimrag, vanilla or react)", mode)
	}
	p, err := l.Config.Provider(o.Provider)
	if err != nil {
		return nil, agent.Config{}, err
	}
	modelName := o.Model
	if modelName == "" {
		modelName = p.ChatModel
	}
	think := s.Think || agent.DefaultThink(m)
	if o.Think != nil {
		think = *o.Think
	}
	steps := o.MaxSteps
	if steps == 0 {
		steps = s.MaxSteps(mode)
	}
	topK := o.TopK
	if topK == 0 {
		topK = s.TopK
	}
	ctxLen := o.ContextLength
	if ctxLen == 0 {
		ctxLen = p.ContextLength
	}
	if ctxLen < -1 || ctxLen > 1<<22 {
		return nil, agent.Config{}, fmt.Errorf("context length %d: want -1 (server default), 0 (automatic) or a token count", ctxLen)
	}
	samp := p.Sampling.Merge(o.Sampling)
	if err := samp.Check(); err != nil {
		return nil, agent.Config{}, fmt.Errorf("sampling for provider %s: %w", p.Name, err)
	}
	cfg := agent.Config{Mode: m, Provider: p.Name, Model: modelName, Collection: o.Collection, Think: think,
		MaxSteps: steps, TopK: topK, ContextLength: ctxLen, Options: SamplingOptions(samp), Calculator: o.Calculator}
	if _, err := cfg.Resolved(); err != nil {
		return nil, agent.Config{}, err
	}
	if chat == nil {
		if chat, _, cfg.Model, err = l.Chat(p.Name, o.Model); err != nil {
			return nil, agent.Config{}, err
		}
	}
	return chat, cfg, nil
}

// SamplingOptions converts settings' sampling to model options.
func SamplingOptions(s config.Sampling) model.Options {
	return model.Options{Temperature: s.Temperature, TopP: s.TopP, MaxTokens: s.MaxTokens, Seed: s.Seed}
}
