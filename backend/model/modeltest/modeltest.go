// Package modeltest holds the test doubles of the model layer: a scripted chat model that replays given turns and
// records the requests it was sent, and the same as an OpenAI-compatible HTTP endpoint.
package modeltest

import (
	"context"
	"fmt"
	"sync"

	"proofglass/backend/model"
)

// Script is a scripted model.Chat. Call n is answered with Replies[n] (from the start again when Repeat is set; a call
// past the end fails otherwise), or with Reply's answer when Reply is set. Its content is streamed in pieces of Chunk
// bytes (0: 7) after its reasoning and before its tool calls, and the last delta reports Prompt(req) prompt tokens
// (100 when Prompt is nil) and 10 completion tokens. Every request is recorded. It is safe for concurrent use.
type Script struct {
	Replies []model.Delta
	Repeat  bool
	Reply   func(req model.Request) (model.Delta, error)
	Chunk   int
	Prompt  func(req model.Request) int

	mu   sync.Mutex
	reqs []model.Request
}

// Turns are replies of text content only.
func Turns(texts ...string) []model.Delta {
	out := make([]model.Delta, len(texts))
	for i, s := range texts {
		out[i] = model.Delta{Content: s}
	}
	return out
}

// Replay is a Script answering with the given texts in order.
func Replay(texts ...string) *Script { return &Script{Replies: Turns(texts...)} }

// Always is a Script answering every call with text.
func Always(text string) *Script { return &Script{Replies: Turns(text), Repeat: true} }

// Func is a Script whose every answer is f's text.
func Func(f func(req model.Request) (string, error)) *Script {
	return &Script{Reply: func(req model.Request) (model.Delta, error) {
		s, err := f(req)
		return model.Delta{Content: s}, err
	}}
}

// Chat records req and streams its scripted answer.
func (c *Script) Chat(ctx context.Context, req model.Request) (model.Stream, error) {
	c.mu.Lock()
	r := req
	r.Messages = append([]model.Message(nil), req.Messages...)
	for i := range r.Messages {
		r.Messages[i].Parts = append([]model.Part(nil), r.Messages[i].Parts...)
	}
	c.reqs = append(c.reqs, r)
	n := len(c.reqs) - 1
	var d model.Delta
	var err error
	switch {
	case c.Reply != nil:
		c.mu.Unlock() // Reply may take its time or call back
		d, err = c.Reply(req)
		if err != nil {
			return nil, err
		}
	case len(c.Replies) == 0 || (n >= len(c.Replies) && !c.Repeat):
		c.mu.Unlock()
		return nil, fmt.Errorf("script exhausted: call %d, %d replies", n+1, len(c.Replies))
	default:
		d = c.Replies[n%len(c.Replies)]
		c.mu.Unlock()
	}
	var ds []model.Delta
	if d.Reasoning != "" {
		ds = append(ds, model.Delta{Reasoning: d.Reasoning})
	}
	size := c.Chunk
	if size <= 0 {
		size = 7
	}
	for s := d.Content; s != ""; {
		k := min(size, len(s))
		ds = append(ds, model.Delta{Content: s[:k]})
		s = s[k:]
	}
	if len(d.ToolCalls) > 0 {
		ds = append(ds, model.Delta{ToolCalls: d.ToolCalls})
	}
	pt := 100
	if c.Prompt != nil {
		pt = c.Prompt(req)
	}
	ds = append(ds, model.Delta{Done: true, FinishReason: "stop", Usage: &model.Usage{PromptTokens: pt, CompletionTokens: 10}})
	return NewStream(ctx, ds...), nil
}

// Requests are copies of the requests received so far, in order.
func (c *Script) Requests() []model.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]model.Request(nil), c.reqs...)
}

// Take returns the requests received so far and forgets them.
func (c *Script) Take() []model.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.reqs
	c.reqs = nil
	return out
}

// NewStream is a model.Stream of ds that ends early, with ctx's error, when ctx is done.
func NewStream(ctx context.Context, ds ...model.Delta) model.Stream {
	return &stream{ctx: ctx, ds: ds, i: -1}
}

type stream struct {
	ctx context.Context
	ds  []model.Delta
	i   int
}

func (s *stream) Next() bool {
	if s.ctx.Err() != nil {
		return false
	}
	s.i++
	return s.i < len(s.ds)
}
func (s *stream) Current() model.Delta { return s.ds[s.i] }
func (s *stream) Err() error           { return s.ctx.Err() }
func (s *stream) Close() error         { return nil }
