package library

import "proofglass/backend/config"

// AskOptions are a run's choices as the window's Ask and POST /v1/ask receive them, under the same JSON names;
// both requests embed it, so a field added here reaches both faces (and the window's TypeScript model) at once.
type AskOptions struct {
	Mode          string   `json:"mode"`
	Think         *bool    `json:"think,omitempty"` // nil = settings, else the mode's default (VimRAG on)
	Collection    string   `json:"collection"`
	Provider      string   `json:"provider,omitempty"` // "" = the agent default
	Model         string   `json:"model,omitempty"`    // "" = the provider's chat model
	Temperature   *float64 `json:"temperature,omitempty"`
	TopP          *float64 `json:"top_p,omitempty"`
	MaxTokens     int      `json:"max_tokens,omitempty"`
	Seed          *int     `json:"seed,omitempty"`
	MaxSteps      int      `json:"max_steps,omitempty"`
	TopK          int      `json:"top_k,omitempty"`
	ContextLength int      `json:"context_length,omitempty"`
	// Calculator offers the model the calculator (agent.Config.Calculator); off, the prompts are the reference's.
	Calculator bool `json:"calculator,omitempty"`
}

// RunOptions resolves nothing yet: it only carries the choices over to AgentConfig.
func (o AskOptions) RunOptions() RunOptions {
	return RunOptions{Mode: o.Mode, Provider: o.Provider, Model: o.Model, Collection: o.Collection, Think: o.Think,
		MaxSteps: o.MaxSteps, TopK: o.TopK, ContextLength: o.ContextLength, Calculator: o.Calculator,
		Sampling: config.Sampling{Temperature: o.Temperature, TopP: o.TopP, MaxTokens: o.MaxTokens, Seed: o.Seed}}
}
