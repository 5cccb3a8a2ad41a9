// Package probe checks what an agent mode needs from a chat model — vision, several images in one request, a long
// enough context, tool calls — and names each problem with its fix.
package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"

	"proofglass/backend/model"
)

// Result is one probe's outcome.
type Result struct {
	Name     string `json:"name"` // vision | images | context | tools | thinking
	OK       bool   `json:"ok"`
	Skipped  bool   `json:"skipped,omitempty"`  // could not be checked (the server does not say)
	Optional bool   `json:"optional,omitempty"` // a failure the mode can live with
	Detail   string `json:"detail"`
	Fix      string `json:"fix,omitempty"`
}

// Mode is an agent mode as the probe sees it: its name and what a run of it asks of a model. agent.Mode implements
// it, so the model layer does not depend on the agent.
type Mode interface {
	String() string
	// ImagesNeeded is the most images one request carries with maxSteps and topK (0: the mode's defaults).
	ImagesNeeded(maxSteps, topK int) int
	// ContextNeeded is the context, in tokens, a run needs with modelName served under limits l.
	ContextNeeded(modelName string, l model.Limits, maxSteps, topK int) (int, error)
	// NativeTools is whether the mode declares tools natively; Thinks whether it thinks unless told otherwise.
	NativeTools() bool
	Thinks() bool
}

// Options say what the model is probed for.
type Options struct {
	Mode Mode // required
	// Kind is the profile's provider kind ("ollama", "openai", "dashscope"): fixes are worded for its server.
	Kind string
	// ContextLength is the profile's setting (0 automatic, -1 the server's default, N fixed).
	ContextLength int
	// MaxSteps and TopK as the runs will use them (0: the mode's defaults).
	MaxSteps, TopK int
}

// capabilities is implemented by adapters whose server lists a model's capabilities (Ollama).
type capabilities interface {
	Capabilities(ctx context.Context, name string) ([]string, error)
}

// Run probes modelName through chat. It makes a few short requests (one reply token to at most 64).
func Run(ctx context.Context, chat model.Chat, modelName string, o Options) []Result {
	if o.Mode == nil {
		return []Result{{Name: "mode", Detail: "no agent mode to probe for"}}
	}
	var out []Result
	vision, oneCount := probeVision(ctx, chat, modelName, o)
	out = append(out, vision)
	if vision.OK {
		out = append(out, probeImages(ctx, chat, modelName, o, o.Mode.ImagesNeeded(o.MaxSteps, o.TopK), oneCount))
	} else {
		out = append(out, Result{Name: "images", Skipped: true, Detail: "not tried: the model takes no image"})
	}
	out = append(out, probeContext(ctx, chat, modelName, o))
	if o.Mode.NativeTools() {
		out = append(out, probeTools(ctx, chat, modelName))
	}
	if o.Mode.Thinks() {
		if c, ok := chat.(capabilities); ok {
			if caps, err := c.Capabilities(ctx, modelName); err == nil && len(caps) > 0 && !contains(caps, "thinking") {
				out = append(out, Result{Name: "thinking", Optional: true, Detail: fmt.Sprintf("%s has no thinking mode "+
					"(capabilities %v): VimRAG runs without it", modelName, caps),
					Fix: "for VimRAG's reference behaviour use a model with thinking (e.g. qwen3-vl)"})
			}
		}
	}
	return out
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// testImage is a small solid picture; each index gets its own colour, so a server caching by content sees n images.
func testImage(i int) *model.Image {
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	c := color.RGBA{uint8(200 - 15*i), uint8(40 + 20*i), uint8(90 + 9*i), 255}
	for p := 0; p < len(img.Pix); p += 4 {
		img.Pix[p], img.Pix[p+1], img.Pix[p+2], img.Pix[p+3] = c.R, c.G, c.B, c.A
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return &model.Image{Data: b.Bytes(), MIME: "image/png"}
}

// ask sends one short request and returns the server's prompt token count (0 when not reported).
func ask(ctx context.Context, chat model.Chat, modelName string, parts []model.Part, tools []model.Tool, maxTokens int) (model.Delta, error) {
	st, err := chat.Chat(ctx, model.Request{Model: modelName, Tools: tools,
		Messages: []model.Message{{Role: model.RoleUser, Parts: parts}},
		Options:  model.Options{Temperature: model.Float(0), MaxTokens: maxTokens}})
	if err != nil {
		return model.Delta{}, err
	}
	return model.Collect(st)
}

func promptTokens(d model.Delta) int {
	if d.Usage == nil {
		return 0
	}
	return d.Usage.PromptTokens
}

func visionFix(kind string) string {
	switch kind {
	case "ollama":
		return "choose a vision model: `proofglass models pull qwen2.5vl:7b` (or import the paper's VRAG model, see README \"Models\")"
	case "openai":
		return "serve a vision-language model, e.g. `vllm serve autumncc/Qwen2.5-VL-7B-VRAG …` (see README \"Models\")"
	case "dashscope":
		return "choose a VL model, e.g. qwen-vl-max or qwen3.5-plus"
	}
	return "choose a vision-language model"
}

func probeVision(ctx context.Context, chat model.Chat, modelName string, o Options) (Result, int) {
	const q = "What colour is this picture? Answer with one word."
	r := Result{Name: "vision"}
	with, err := ask(ctx, chat, modelName, []model.Part{{Image: testImage(0)}, {Text: q}}, nil, 4)
	if err != nil {
		r.Detail = "one image: " + err.Error()
		r.Fix = "check the model name (`proofglass models`) and that the server is up"
		if errors.Is(err, model.ErrNoVision) {
			r.Detail = fmt.Sprintf("%s does not take images: %v", modelName, err)
			r.Fix = visionFix(o.Kind)
		}
		return r, 0
	}
	r.OK = true
	r.Detail = "one image accepted"
	withN := promptTokens(with)
	if without, err := ask(ctx, chat, modelName, []model.Part{{Text: q}}, nil, 4); err == nil && withN > 0 && promptTokens(without) > 0 {
		if withN <= promptTokens(without) {
			r.OK = false
			r.Detail = fmt.Sprintf("the server ignored the image: %d prompt tokens with it, %d without", withN, promptTokens(without))
			r.Fix = visionFix(o.Kind)
			return r, 0
		}
		r.Detail = fmt.Sprintf("one image accepted: it costs %d prompt tokens", withN-promptTokens(without))
	}
	return r, withN
}

func probeImages(ctx context.Context, chat model.Chat, modelName string, o Options, n, oneCount int) Result {
	r := Result{Name: "images"}
	if n < 2 {
		r.OK, r.Detail = true, fmt.Sprintf("%s sends one image per request", o.Mode)
		return r
	}
	parts := make([]model.Part, 0, n+1)
	for i := range n {
		parts = append(parts, model.Part{Image: testImage(i)})
	}
	parts = append(parts, model.Part{Text: "How many pictures are there? Answer with a number."})
	d, err := ask(ctx, chat, modelName, parts, nil, 4)
	if err != nil {
		r.Detail = fmt.Sprintf("%d images in one request (a %s run's most): %v", n, o.Mode, err)
		switch o.Kind {
		case "openai":
			r.Fix = fmt.Sprintf("start vLLM with --limit-mm-per-prompt '{\"image\":%d}' (vLLM before 0.10: image=%d), or lower --max-steps", n, n)
		case "ollama":
			r.Fix = "this model takes one image per request (e.g. llama3.2-vision); choose qwen2.5vl, qwen3-vl or gemma3"
		default:
			r.Fix = "choose a model that takes several images per request, or lower --max-steps / --top-k"
		}
		return r
	}
	if got := promptTokens(d); got > 0 && oneCount > 0 && got <= oneCount {
		r.Detail = fmt.Sprintf("the server dropped images: %d images cost %d prompt tokens, one image %d", n, got, oneCount)
		r.Fix = "choose a model that takes several images per request"
		return r
	}
	r.OK, r.Detail = true, fmt.Sprintf("%d images in one request accepted (a %s run's most)", n, o.Mode)
	return r
}

func probeContext(ctx context.Context, chat model.Chat, modelName string, o Options) Result {
	r := Result{Name: "context"}
	var l model.Limits
	if lr, ok := chat.(model.LimitsReporter); ok {
		var err error
		if l, err = lr.Limits(ctx, modelName); err != nil {
			r.Skipped, r.Detail = true, "the server did not say: "+err.Error()
			return r
		}
	}
	need, err := o.Mode.ContextNeeded(modelName, l, o.MaxSteps, o.TopK)
	if err != nil {
		r.Detail = err.Error()
		return r
	}
	switch {
	case l.Adjustable && l.ContextLength > 0 && l.ContextLength < need:
		r.Detail = fmt.Sprintf("%s supports %d tokens; a %s run needs about %d", modelName, l.ContextLength, o.Mode, need)
		r.Fix = "lower --max-steps or --top-k, or choose a model with a longer context"
	case l.Adjustable && o.ContextLength > 0 && o.ContextLength < need:
		r.Detail = fmt.Sprintf("the profile's context length is %d; a %s run needs about %d", o.ContextLength, o.Mode, need)
		r.Fix = fmt.Sprintf("set the profile's context length to 0 (sized per run) or at least %d", need)
	case l.Adjustable && o.ContextLength < 0 && l.DefaultContext > 0 && l.DefaultContext < need:
		r.Detail = fmt.Sprintf("no num_ctx is sent (context length -1) and the server loads %s with %d tokens; a %s run needs about %d: "+
			"the server will cut the prompt", modelName, l.DefaultContext, o.Mode, need)
		r.Fix = "set the profile's context length to 0 (sized per run), or PARAMETER num_ctx in the Modelfile"
	case l.Adjustable:
		r.OK = true
		r.Detail = fmt.Sprintf("a %s run needs about %d tokens; Proofglass sends num_ctx for it", o.Mode, need)
		if l.ContextLength > 0 {
			r.Detail += fmt.Sprintf(" (the model supports %d)", l.ContextLength)
		}
	case l.DefaultContext > 0 && l.DefaultContext < need:
		r.Detail = fmt.Sprintf("the server serves %s with a %d-token context; a %s run needs about %d", modelName, l.DefaultContext, o.Mode, need)
		r.Fix = fmt.Sprintf("restart vLLM with --max-model-len %d or more (round up, e.g. %d)", need, (need+4095)/4096*4096)
	case l.DefaultContext > 0:
		r.OK = true
		r.Detail = fmt.Sprintf("served with %d tokens; a %s run needs about %d", l.DefaultContext, o.Mode, need)
	default:
		r.OK, r.Skipped = true, true
		r.Detail = fmt.Sprintf("the server does not say its context length; a %s run needs about %d tokens", o.Mode, need)
	}
	return r
}

// answerTool is VimRAG's add_answer_node, declared natively.
var answerTool = model.Tool{Name: "add_answer_node", Description: "Give the final answer.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`)}

func probeTools(ctx context.Context, chat model.Chat, modelName string) Result {
	r := Result{Name: "tools", Optional: true}
	d, err := ask(ctx, chat, modelName, []model.Part{{Text: "What is 2+2? Answer by calling add_answer_node."}}, []model.Tool{answerTool}, 64)
	if err != nil {
		r.Detail = "native tool calls: " + err.Error() + "; VimRAG still works from <tool_call> text in the reply"
		r.Fix = "for native tool calls choose a model with the tools capability (Ollama) or start vLLM with --enable-auto-tool-choice --tool-call-parser hermes"
		return r
	}
	r.OK = true
	switch {
	case len(d.ToolCalls) > 0:
		r.Detail = "native tool calls work (the model called " + d.ToolCalls[0].Name + ")"
	case strings.Contains(d.Content, "<tool_call>"):
		r.Detail = "tools accepted; the model writes <tool_call> text, which VimRAG parses"
	default:
		r.Detail = "tools accepted (the model made no call to a test question)"
	}
	return r
}
