package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"

	goopenai "github.com/sashabaranov/go-openai"

	"proofglass/backend/model"
	"proofglass/backend/model/transport"
)

// chatRequest is the body of POST /chat/completions. Pointers keep an explicit 0 (temperature 0 is the deterministic
// setting tests and the VRAG protocol rely on).
type chatRequest struct {
	Model              string                           `json:"model"`
	Messages           []goopenai.ChatCompletionMessage `json:"messages"`
	Stream             bool                             `json:"stream"`
	StreamOptions      *goopenai.StreamOptions          `json:"stream_options,omitempty"`
	Temperature        *float64                         `json:"temperature,omitempty"`
	TopP               *float64                         `json:"top_p,omitempty"`
	MaxTokens          int                              `json:"max_tokens,omitempty"`
	Stop               []string                         `json:"stop,omitempty"`
	Seed               *int                             `json:"seed,omitempty"`
	Tools              []goopenai.Tool                  `json:"tools,omitempty"`
	ChatTemplateKwargs map[string]any                   `json:"chat_template_kwargs,omitempty"`
	EnableThinking     *bool                            `json:"enable_thinking,omitempty"` // DashScope
}

// buildRequest converts a model.Request to the wire body; it reports whether any message carries an image.
func (c *Client) buildRequest(req model.Request) (chatRequest, bool) {
	out := chatRequest{
		Model:         req.Model,
		Stream:        true,
		StreamOptions: &goopenai.StreamOptions{IncludeUsage: true},
		Temperature:   req.Options.Temperature,
		TopP:          req.Options.TopP,
		MaxTokens:     req.Options.MaxTokens,
		Stop:          req.Options.Stop,
		Seed:          req.Options.Seed,
	}
	if t := req.Options.Think; t != nil {
		if c.dialect == DialectDashScope {
			out.EnableThinking = t
		} else {
			out.ChatTemplateKwargs = map[string]any{"enable_thinking": *t}
		}
	}
	for _, t := range req.Tools {
		var params any
		if len(t.Parameters) > 0 {
			params = t.Parameters
		}
		out.Tools = append(out.Tools, goopenai.Tool{Type: goopenai.ToolTypeFunction,
			Function: &goopenai.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	images := false
	for _, m := range req.Messages {
		wm := goopenai.ChatCompletionMessage{Role: string(m.Role), ToolCallID: m.ToolCallID}
		hasImage := false
		for _, p := range m.Parts {
			if p.Image != nil {
				hasImage = true
			}
		}
		if hasImage {
			images = true
			// Part order is kept: the VRAG prompts interleave labels and images.
			for _, p := range m.Parts {
				if p.Image != nil {
					wm.MultiContent = append(wm.MultiContent, goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeImageURL,
						ImageURL: &goopenai.ChatMessageImageURL{URL: dataURL(p.Image)}})
				}
				if p.Text != "" {
					wm.MultiContent = append(wm.MultiContent, goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeText, Text: p.Text})
				}
			}
		} else {
			wm.Content = m.Text()
		}
		for _, tc := range m.ToolCalls {
			wm.ToolCalls = append(wm.ToolCalls, goopenai.ToolCall{ID: tc.ID, Type: goopenai.ToolTypeFunction,
				Function: goopenai.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}})
		}
		out.Messages = append(out.Messages, wm)
	}
	return out, images
}

// Chat starts a streaming completion. Errors before the first byte (unknown model, no vision, HTTP errors after
// retries) are returned here; errors during the stream come from Stream.Err.
func (c *Client) Chat(ctx context.Context, req model.Request) (model.Stream, error) {
	body, images := c.buildRequest(req)
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode chat request for %q: %w", req.Model, err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/chat/completions", bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("build chat request: %w", err)
	}
	c.setHeaders(hreq.Header)
	hreq.Header.Set("Accept", "text/event-stream")
	resp, err := c.http.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("chat %q at %s: %w", req.Model, c.base, err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, c.mapError("chat", req.Model, transport.ReadStatusError(resp), images)
	}
	return newSSEStream(ctx, resp.Body, c.key), nil
}

// chunk is one `data:` event of a streamed chat completion.
type chunk struct {
	Choices []struct {
		Delta struct {
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"` // DeepSeek, DashScope, older vLLM
			Reasoning        string `json:"reasoning"`         // newer vLLM, Ollama /v1, OpenRouter
			ToolCalls        []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// sseStream reads an OpenAI-style server-sent-event stream and yields model deltas. Tool-call fragments are
// assembled by index and delivered whole in the final delta.
type sseStream struct {
	ctx    context.Context
	body   io.ReadCloser
	r      *bufio.Reader
	key    string
	cur    model.Delta
	err    error
	ended  bool // the final delta was produced
	finish string
	usage  *model.Usage
	calls  map[int]*model.ToolCall
	last   int // index of the most recent tool call, for servers that omit index on continuation fragments
	bad    int // malformed lines skipped
}

func newSSEStream(ctx context.Context, body io.ReadCloser, key string) *sseStream {
	return &sseStream{ctx: ctx, body: body, r: bufio.NewReaderSize(body, 64<<10), key: key,
		calls: map[int]*model.ToolCall{}, last: -1}
}

func (s *sseStream) Current() model.Delta { return s.cur }
func (s *sseStream) Err() error           { return s.err }
func (s *sseStream) Close() error         { return s.body.Close() }

func (s *sseStream) Next() bool {
	if s.ended || s.err != nil {
		return false
	}
	for {
		line, rerr := s.r.ReadBytes('\n')
		if len(line) > 0 {
			if d, ok, done := s.line(bytes.TrimRight(line, "\r\n")); s.err != nil {
				return false
			} else if done {
				return s.final()
			} else if ok {
				s.cur = d
				return true
			}
		}
		if rerr != nil {
			return s.eof(rerr)
		}
	}
}

// line handles one SSE line: it returns a delta to yield (ok), or done when the stream's terminator arrived.
func (s *sseStream) line(l []byte) (d model.Delta, ok, done bool) {
	if len(l) == 0 || l[0] == ':' || !bytes.HasPrefix(l, []byte("data:")) {
		return d, false, false // blank separator, comment/keep-alive, event:/id: fields
	}
	data := bytes.TrimSpace(l[len("data:"):])
	if string(data) == "[DONE]" {
		return d, false, true
	}
	var ch chunk
	if err := json.Unmarshal(data, &ch); err != nil {
		// Like the reference client, skip a line that is not JSON (a proxy's keep-alive, a truncated write) rather than
		// lose the answer; a stream that never finishes still fails with ErrIncompleteStream.
		s.bad++
		slog.Warn("openai stream: skipping malformed event", "bytes", len(data), "err", err)
		return d, false, false
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		se := transport.ParseErrorBody(0, append(append([]byte(`{"error":`), ch.Error...), '}'))
		s.err = fmt.Errorf("server error mid-stream: %s: %w", transport.Redact(se.Message, s.key), model.ErrIncompleteStream)
		return d, false, false
	}
	if ch.Usage != nil {
		s.usage = &model.Usage{PromptTokens: ch.Usage.PromptTokens, CompletionTokens: ch.Usage.CompletionTokens}
	}
	for _, c := range ch.Choices {
		d.Reasoning += c.Delta.ReasoningContent + c.Delta.Reasoning
		d.Content += c.Delta.Content
		for _, tc := range c.Delta.ToolCalls {
			idx := s.last
			switch {
			case tc.Index != nil:
				idx = *tc.Index
			case tc.ID != "" || idx < 0:
				idx = len(s.calls)
			}
			call, exists := s.calls[idx]
			if !exists {
				call = &model.ToolCall{}
				s.calls[idx] = call
			}
			s.last = idx
			if tc.ID != "" {
				call.ID = tc.ID
			}
			call.Name += tc.Function.Name
			call.Arguments += tc.Function.Arguments
		}
		if c.FinishReason != nil && *c.FinishReason != "" {
			s.finish = *c.FinishReason
		}
	}
	return d, d.Reasoning != "" || d.Content != "", false
}

// final produces the closing delta: finish reason, usage and the assembled tool calls.
func (s *sseStream) final() bool {
	s.ended = true
	d := model.Delta{Done: true, FinishReason: s.finish, Usage: s.usage}
	idx := make([]int, 0, len(s.calls))
	for i := range s.calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		d.ToolCalls = append(d.ToolCalls, *s.calls[i])
	}
	if d.FinishReason == "" && len(d.ToolCalls) > 0 {
		d.FinishReason = "tool_calls"
	}
	s.cur = d
	return true
}

// eof decides what the end of the body means: a finish reason already seen counts as a complete stream (some servers
// omit [DONE]); anything else is an incomplete stream, with the cause.
func (s *sseStream) eof(rerr error) bool {
	if errors.Is(rerr, io.EOF) && s.finish != "" {
		return s.final()
	}
	switch {
	case s.ctx.Err() != nil:
		s.err = fmt.Errorf("chat stream: %w", s.ctx.Err())
	case errors.Is(rerr, io.EOF):
		s.err = fmt.Errorf("chat stream closed without a finish reason or [DONE]: %w", model.ErrIncompleteStream)
	default:
		s.err = fmt.Errorf("chat stream: %w: %w", model.ErrIncompleteStream, rerr)
	}
	if s.bad > 0 {
		s.err = fmt.Errorf("%w (%d malformed events skipped)", s.err, s.bad)
	}
	return false
}
