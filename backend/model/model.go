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

// Options are sampling and behaviour settings; nil pointers mean "provider default".
type Options struct {
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	Stop        []string `json:"stop,omitempty"`
	Seed        *int     `json:"seed,omitempty"`
	Think       *bool    `json:"think,omitempty"` // thinking on/off where the model supports it
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
