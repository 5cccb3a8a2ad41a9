package agent

import (
	"fmt"
	"strings"

	"proofglass/backend/model"
)

// DefaultSystemLine is the system message Qwen2/2.5(-VL) chat templates add when a conversation has none. VRAG-RL's
// policy was trained with it (apply_chat_template in verl, the same template under vLLM); Proofglass sends it explicitly
// so that a server whose template leaves it out (an Ollama import, a GGUF) shows the model the same tokens.
const DefaultSystemLine = "You are a helpful assistant."

// StepRange is the range of MaxSteps a mode accepts: tool steps for vrag and react (reference 10), model calls for
// vimrag (reference 20). Vanilla makes one call and has none (0, 0).
func StepRange(m Mode) (lo, hi int) {
	switch m {
	case ModeVRAG, ModeReAct:
		return 3, 10
	case ModeVimRAG:
		return 5, 30
	}
	return 0, 0
}

// TopKRange bounds the hits asked of the knowledge base per search.
const (
	MinTopK = 1
	MaxTopK = 50
)

// DefaultThink is whether a mode thinks unless told otherwise: VimRAG's agent runs with enable_thinking=True; VRAG's
// policy writes its reasoning in <think> tags itself and runs without a thinking mode.
func DefaultThink(m Mode) bool { return m == ModeVimRAG }

// ModeOptions are a mode's reference sampling settings: VRAG (and the react and vanilla baselines) decode greedily as
// the reference's server did with no sampling parameters for the trained policy; VimRAG sends max_tokens 4096 and
// samples at temperature 0.6, top_p 0.95 with thinking on, greedily with it off.
func ModeOptions(m Mode, think bool) model.Options {
	switch m {
	case ModeVimRAG:
		o := model.Options{MaxTokens: vimragMaxTokens, Think: model.Bool(think), Temperature: model.Float(0)}
		if think {
			o.Temperature, o.TopP = model.Float(0.6), model.Float(0.95)
		}
		return o
	default:
		o := model.Options{Temperature: model.Float(0)}
		if think {
			o.Think = model.Bool(true)
		}
		return o
	}
}

// checkLimits reports a MaxSteps or TopK outside what the mode accepts.
func (c Config) checkLimits() error {
	if lo, hi := StepRange(c.Mode); hi > 0 && (c.MaxSteps < lo || c.MaxSteps > hi) {
		return fmt.Errorf("max steps %d for %s: want %d to %d", c.MaxSteps, c.Mode, lo, hi)
	}
	if c.TopK < MinTopK || c.TopK > MaxTopK {
		return fmt.Errorf("top_k %d: want %d to %d", c.TopK, MinTopK, MaxTopK)
	}
	return nil
}

// sendsSystemLine: the modes that use VRAG's prompt send Qwen's default system line, except to Qwen3 models, whose
// templates add no default system message.
func sendsSystemLine(m Mode, modelName string, l model.Limits) bool {
	if m == ModeVimRAG {
		return false // VimRAG has its own system prompt
	}
	n := strings.ToLower(modelName)
	return !strings.Contains(n, "qwen3") && !strings.HasPrefix(l.Family, "qwen3")
}

// String is the mode's name; the empty mode is VRAG, as a Config's default.
func (m Mode) String() string {
	if m == "" {
		return string(ModeVRAG)
	}
	return string(m)
}

// ImagesNeeded is the most images one request of the mode carries with maxSteps and topK (0: the mode's defaults):
// vrag and react keep every page and crop of the run (one per tool step), vimrag a search's pictures plus up to 5
// memory images, vanilla its top_k pages.
func (m Mode) ImagesNeeded(maxSteps, topK int) int {
	c, err := Config{Mode: m, MaxSteps: maxSteps, TopK: topK}.Resolved()
	if err != nil {
		return 1
	}
	switch c.Mode {
	case ModeVRAG, ModeReAct:
		return c.MaxSteps
	case ModeVimRAG:
		return c.TopK + 5
	default:
		return c.TopK
	}
}

// ContextNeeded estimates the context, in tokens, a run of the mode needs with modelName served under limits l
// (EstimateContext for the mode's defaults, maxSteps and topK).
func (m Mode) ContextNeeded(modelName string, l model.Limits, maxSteps, topK int) (int, error) {
	return EstimateContext(Config{Mode: m, Model: modelName, MaxSteps: maxSteps, TopK: topK, Think: DefaultThink(m)}, l)
}

// NativeTools is whether the mode declares its tools to the model natively (VimRAG; the others write tool calls
// as text).
func (m Mode) NativeTools() bool { return m == ModeVimRAG }

// Thinks is DefaultThink(m).
func (m Mode) Thinks() bool { return DefaultThink(m) }
