// Package model defines the chat and embedding interfaces every provider adapter implements, and their wire types.
package model

import (
	"context"
	"encoding/json"
	"errors"
)

// Role is the author of a message.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Image is an encoded image (JPEG or PNG) sent to or produced for a model.
type Image struct {
	Data []byte `json:"-"`
	MIME string `json:"mime"` // "image/jpeg" or "image/png"
}

// Part is one piece of a message: text or an image. Order matters: adapters keep it.
type Part struct {
	Text  string `json:"text,omitempty"`
	Image *Image `json:"image,omitempty"`
}

// ToolCall is a native tool call emitted by a model (or sent back in history).
type ToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // JSON text as the model produced it
}

// Tool declares a function the model may call natively.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON schema
}

// Message is one turn of a conversation.
type Message struct {
	Role       Role       `json:"role"`
	Parts      []Part     `json:"parts"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// TextMessage is a message holding a single text part.
func TextMessage(role Role, text string) Message {
	return Message{Role: role, Parts: []Part{{Text: text}}}
}

// Text returns the concatenated text parts of m.
func (m Message) Text() string {
	var s string
	for _, p := range m.Parts {
		s += p.Text
	}
	return s
}

// Options are sampling and behaviour settings; nil pointers mean "provider default". One value is resolved per run
// (mode defaults, then the profile, then the run's own choices) and used for every call the run makes.
type Options struct {
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	Stop        []string `json:"stop,omitempty"`
	Seed        *int     `json:"seed,omitempty"`
	Think       *bool    `json:"think,omitempty"` // thinking on/off where the model supports it
	// NumCtx is the context window the server should load the model with (Ollama's num_ctx); 0 = the server's
	// default. OpenAI-compatible servers fix it at start (vLLM --max-model-len) and ignore it.
	NumCtx int `json:"num_ctx,omitempty"`
}

// Merge returns o with every field that over sets replacing o's.
func (o Options) Merge(over Options) Options {
	if over.Temperature != nil {
		o.Temperature = over.Temperature
	}
	if over.TopP != nil {
		o.TopP = over.TopP
	}
	if over.MaxTokens > 0 {
		o.MaxTokens = over.MaxTokens
	}
	if len(over.Stop) > 0 {
		o.Stop = over.Stop
	}
	if over.Seed != nil {
		o.Seed = over.Seed
	}
	if over.Think != nil {
		o.Think = over.Think
	}
	if over.NumCtx != 0 {
		o.NumCtx = over.NumCtx
	}
	return o
}

// Float and Int return pointers, for literal options.
func Float(v float64) *float64 { return &v }
func Int(v int) *int           { return &v }
func Bool(v bool) *bool        { return &v }

// Limits are what a server says about a model's context and image cost. Zero values mean unknown.
type Limits struct {
	// ContextLength is the longest context the model was trained for (Ollama: <arch>.context_length) or is served
	// with (vLLM: max_model_len).
	ContextLength int `json:"context_length,omitempty"`
	// Adjustable says the window is chosen per request (Ollama's num_ctx) and that the server cuts a prompt that
	// does not fit instead of rejecting it.
	Adjustable bool `json:"adjustable,omitempty"`
	// DefaultContext is the window the server loads the model with when a request names none (a Modelfile's num_ctx).
	DefaultContext int `json:"default_context,omitempty"`
	// ImageTokens is the fixed prompt cost of one image (gemma3: tokens_per_image); 0 when it depends on the size.
	ImageTokens int `json:"image_tokens,omitempty"`
	// PatchFactor is the pixels per visual token side when the cost depends on the size (Qwen2.5-VL 28, Qwen3-VL 32).
	PatchFactor int `json:"patch_factor,omitempty"`
	// ServerImageTokens is what the server itself counts per image when it decides whether a chat fits (Ollama counts
	// 768 for a model with a separate projector and drops the oldest messages when the total is over num_ctx).
	ServerImageTokens int `json:"server_image_tokens,omitempty"`
	// Renderer is set when the server renders the prompt in code, not from a template (Ollama's qwen3-vl renderer):
	// then a message's images always come before its text.
	Renderer string `json:"renderer,omitempty"`
	// Template is the chat template, where the server shows it.
	Template string `json:"template,omitempty"`
	// Family is the architecture, e.g. "qwen25vl", "gemma3".
	Family string `json:"family,omitempty"`
}

// LimitsReporter is implemented by adapters that can ask the server about a model (Ollama's /api/show).
type LimitsReporter interface {
	Limits(ctx context.Context, model string) (Limits, error)
}

// Request is one chat completion request.
type Request struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools,omitempty"`
	Options  Options   `json:"options"`
}

// Usage counts tokens of one completion.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Delta is one streamed increment. The last delta of a stream has Done set, with FinishReason and Usage when known.
type Delta struct {
	Reasoning    string     `json:"reasoning,omitempty"`
	Content      string     `json:"content,omitempty"`
	ToolCalls    []ToolCall `json:"tool_calls,omitempty"`
	Usage        *Usage     `json:"usage,omitempty"`
	Done         bool       `json:"done,omitempty"`
	FinishReason string     `json:"finish_reason,omitempty"` // "stop", "length", "tool_calls"
}

// Stream iterates over the deltas of one completion: for s.Next() { d := s.Current() }; then check s.Err().
// A stream that ends without a final Done delta reports ErrIncompleteStream from Err.
type Stream interface {
	Next() bool
	Current() Delta
	Err() error
	Close() error
}

// Chat is a streaming chat-completion client.
type Chat interface {
	Chat(ctx context.Context, req Request) (Stream, error)
}

// EmbedInput is one text or one image to embed.
type EmbedInput struct {
	Text  string `json:"text,omitempty"`
	Image *Image `json:"image,omitempty"`
}

// Embedder turns texts (and, where supported, images) into vectors of a fixed dimension.
type Embedder interface {
	Embed(ctx context.Context, inputs []EmbedInput) ([][]float32, error)
	ModelID() string // provider/model, e.g. "builtin/glove-100d" or "ollama/nomic-embed-text"
	Dim() int        // 0 until known (some adapters learn it from the first call)
	SupportsImages() bool
}

// Info describes one model a provider serves.
type Info struct {
	Name      string `json:"name"`
	Provider  string `json:"provider"`
	Chat      bool   `json:"chat"`
	Vision    bool   `json:"vision"`
	Embedding bool   `json:"embedding"`
	Tools     bool   `json:"tools"`
	Thinking  bool   `json:"thinking"`
	SizeBytes int64  `json:"size_bytes,omitempty"`
}

// Lister lists the models a provider serves.
type Lister interface {
	Models(ctx context.Context) ([]Info, error)
}

var (
	ErrModelNotFound    = errors.New("model not found")
	ErrNoVision         = errors.New("model does not accept images")
	ErrIncompleteStream = errors.New("stream ended before the model finished")
	ErrNoChat           = errors.New("model does not support chat") // e.g. an embedding-only model
)

// Collect drains a stream into the full reply: reasoning, content, tool calls and usage.
func Collect(s Stream) (Delta, error) {
	defer s.Close()
	var out Delta
	for s.Next() {
		d := s.Current()
		out.Reasoning += d.Reasoning
		out.Content += d.Content
		out.ToolCalls = append(out.ToolCalls, d.ToolCalls...)
		if d.Usage != nil {
			out.Usage = d.Usage
		}
		if d.Done {
			out.Done = true
			out.FinishReason = d.FinishReason
		}
	}
	return out, s.Err()
}
