package cli

import (
	"github.com/spf13/pflag"

	"proofglass/backend/library"
)

// runFlags are the flags of one agent run that override settings: sampling, thinking, limits, context window.
type runFlags struct {
	think       bool
	temperature float64
	topP        float64
	maxTokens   int
	seed        int
	maxSteps    int
	topK        int
	contextLen  int
	calculator  bool
}

func (r *runFlags) register(f *pflag.FlagSet) {
	f.BoolVar(&r.think, "think", false, "thinking on or off (default: settings, else the mode's: on for vimrag, off for the others)")
	f.Float64Var(&r.temperature, "temperature", 0, "sampling temperature (default: the profile's, else the mode's: 0 for vrag, 0.6 for vimrag with thinking)")
	f.Float64Var(&r.topP, "top-p", 0, "nucleus sampling top_p (default: the profile's, else the mode's: 0.95 for vimrag with thinking)")
	f.IntVar(&r.maxTokens, "max-tokens", 0, "longest reply per model call (default: the profile's, else the mode's: 4096 for vimrag)")
	f.IntVar(&r.seed, "seed", 0, "sampling seed, for repeatable runs")
	f.IntVar(&r.maxSteps, "max-steps", 0, "step limit: vrag/react tool steps 3-10 (default 10), vimrag model calls 5-30 (default 20)")
	f.IntVar(&r.topK, "top-k", 0, "hits per search (default: settings agent.top_k, else vrag/react 10, vimrag/vanilla 3)")
	f.BoolVar(&r.calculator, "calculator", false, "offer the model a calculator for arithmetic over the figures it reads (vrag: a <calculate> action, react: a native function, vimrag: a tool); off, the prompts are the reference's")
	f.IntVar(&r.contextLen, "context-length", 0, "context window sent as Ollama num_ctx: 0 = sized for the run, -1 = the server's default, N = N tokens (default: the profile's)")
}

// apply copies the flags the user set onto o.
func (r *runFlags) apply(f *pflag.FlagSet, o *library.RunOptions) {
	if f.Changed("think") {
		o.Think = &r.think
	}
	if f.Changed("temperature") {
		o.Sampling.Temperature = &r.temperature
	}
	if f.Changed("top-p") {
		o.Sampling.TopP = &r.topP
	}
	if f.Changed("seed") {
		o.Sampling.Seed = &r.seed
	}
	o.Sampling.MaxTokens = r.maxTokens
	o.MaxSteps = r.maxSteps
	o.TopK = r.topK
	o.ContextLength = r.contextLen
	o.Calculator = r.calculator
}
