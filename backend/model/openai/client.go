// Package openai adapts OpenAI-compatible servers (vLLM, DashScope compatible mode, LM Studio, llama.cpp, OpenAI).
//
// Listing models and text embeddings go through go-openai. Streaming chat uses its own request body and SSE reader,
// because go-openai v1.43.0 drops fields this adapter needs: a temperature of 0 (float32 with omitempty), the
// `reasoning` delta field that newer vLLM and Ollama send (it only knows `reasoning_content`), DashScope's top-level
// `enable_thinking`, and the response headers (Retry-After) of a failed request. The message parts, tool and tool-call
// types are go-openai's.
package openai

import (
	"cmp"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"proofglass/backend/model"
	"proofglass/backend/model/transport"
)

// Dialect selects the server-specific request extensions.
type Dialect string

const (
	// DialectGeneric: vLLM, LM Studio, llama.cpp, Ollama's /v1, OpenAI. Thinking goes in chat_template_kwargs.
	DialectGeneric Dialect = "generic"
	// DialectDashScope: Alibaba DashScope compatible mode. Thinking is the top-level enable_thinking switch.
	DialectDashScope Dialect = "dashscope"
)

// Options configure a Client.
type Options struct {
	APIKey    string
	Dialect   Dialect // "" = guessed from the URL
	Provider  string  // profile name used in Info.Provider and ModelID; "" = "openai"
	Transport transport.Config
	// HTTPClient overrides the client built from Transport (tests).
	HTTPClient *http.Client
}

// Client talks to one OpenAI-compatible base URL (ending in /v1 or the server's equivalent).
type Client struct {
	base     string
	key      string
	dialect  Dialect
	provider string
	http     *http.Client
	oa       *goopenai.Client
}

var (
	_ model.Chat   = (*Client)(nil)
	_ model.Lister = (*Client)(nil)
)

// New returns a client for baseURL, e.g. "http://127.0.0.1:8000/v1".
func New(baseURL string, o Options) (*Client, error) {
	u, err := transport.BaseURL("openai", baseURL)
	if err != nil {
		return nil, err
	}
	hc := transport.ClientOr(o.HTTPClient, o.Transport)
	d := o.Dialect
	if d == "" {
		d = DialectGeneric
		if strings.Contains(u.Host, "dashscope") {
			d = DialectDashScope
		}
	}
	cfg := goopenai.DefaultConfig(o.APIKey)
	cfg.BaseURL = u.String()
	cfg.HTTPClient = hc
	return &Client{base: u.String(), key: o.APIKey, dialect: d, provider: cmp.Or(o.Provider, "openai"), http: hc,
		oa: goopenai.NewClientWithConfig(cfg)}, nil
}

// BaseURL returns the server URL the client talks to.
func (c *Client) BaseURL() string { return c.base }

func (c *Client) setHeaders(h http.Header) {
	h.Set("Content-Type", "application/json")
	if c.key != "" {
		h.Set("Authorization", "Bearer "+c.key)
	}
}

// dataURL encodes an image as the data URL OpenAI-style servers accept in image_url parts.
func dataURL(img *model.Image) string {
	mime := img.MIME
	if mime == "" {
		mime = http.DetectContentType(img.Data)
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
}

// subject names what failed: `chat "m" at URL`, or `list models at URL` when there is no model.
func (c *Client) subject(op, modelName string) string {
	if modelName == "" {
		return op + " at " + c.base
	}
	return fmt.Sprintf("%s %q at %s", op, modelName, c.base)
}

// mapError turns a server error into one carrying the model package's sentinel errors, with the key redacted.
func (c *Client) mapError(op, modelName string, se *transport.StatusError, hadImages bool) error {
	se.Message = transport.Redact(se.Message, c.key)
	switch {
	case se.Code == http.StatusNotFound && strings.Contains(strings.ToLower(se.Message), "model") ||
		transport.LooksLikeModelNotFound(se.Code, se.Kind, se.Message):
		return fmt.Errorf("%s: %w: %w", c.subject(op, modelName), model.ErrModelNotFound, se)
	case hadImages && transport.LooksLikeNoVision(se.Message):
		return fmt.Errorf("%s: %w: %w", c.subject(op, modelName), model.ErrNoVision, se)
	case looksLikeNoChat(se.Message):
		return fmt.Errorf("%s: %w: %w", c.subject(op, modelName), model.ErrNoChat, se)
	}
	return fmt.Errorf("%s: %w", c.subject(op, modelName), se)
}

// mapGoOpenAIError converts go-openai's error types into a StatusError, then maps it like mapError.
func (c *Client) mapGoOpenAIError(op, modelName string, err error) error {
	var ae *goopenai.APIError
	if errors.As(err, &ae) {
		kind := ae.Type
		if kind == "" && ae.Code != nil {
			kind = fmt.Sprint(ae.Code)
		}
		return c.mapError(op, modelName, &transport.StatusError{Code: ae.HTTPStatusCode, Kind: kind, Message: ae.Message}, false)
	}
	var re *goopenai.RequestError
	if errors.As(err, &re) {
		se := transport.ParseErrorBody(re.HTTPStatusCode, re.Body)
		return c.mapError(op, modelName, se, false)
	}
	if c.key != "" && strings.Contains(err.Error(), c.key) {
		return fmt.Errorf("%s: %s", c.subject(op, modelName), transport.Redact(err.Error(), c.key))
	}
	return fmt.Errorf("%s: %w", c.subject(op, modelName), err)
}

func looksLikeNoChat(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "does not support chat") || strings.Contains(m, "does not support generate") ||
		strings.Contains(m, "does not support the chat")
}
