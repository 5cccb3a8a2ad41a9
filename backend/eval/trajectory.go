package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"

	"proofglass/backend/agent"
	"proofglass/backend/model"
)

// Part is one piece of a stored message: text, or an image named by its blob id (the SHA-256 the agent stored it
// under, so the pixels come from the knowledge base's blob store).
type Part struct {
	Text  string `json:"text,omitempty"`
	Image string `json:"image,omitempty"`
}

// Message is one stored chat turn.
type Message struct {
	Role      string           `json:"role"`
	Parts     []Part           `json:"parts"`
	ToolCalls []model.ToolCall `json:"tool_calls,omitempty"`
}

// Call is one model call of a run: the context sent and the reply.
type Call struct {
	Step     int       `json:"step"` // 1-based, as the run's events number model calls
	Messages []Message `json:"messages"`
	Reply    Message   `json:"reply"`
	// NodeID is the vimrag graph node the reply created or closed ("answer" for the answer); OnAnswerPath marks the
	// nodes on the answer's ancestor path (GGPO's input). Both empty for other modes.
	NodeID       string `json:"node_id,omitempty"`
	OnAnswerPath bool   `json:"on_answer_path,omitempty"`
}

// CallRecorder wraps a chat model and keeps every request and reply that passes through it.
type CallRecorder struct {
	Next model.Chat // the model the calls go to

	mu    sync.Mutex
	calls []Call
}

// Chat forwards the request and records it with the reply once the stream is closed.
func (c *CallRecorder) Chat(ctx context.Context, req model.Request) (model.Stream, error) {
	st, err := c.Next.Chat(ctx, req)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.calls = append(c.calls, Call{Step: len(c.calls) + 1, Messages: storedMessages(req.Messages)})
	idx := len(c.calls) - 1
	c.mu.Unlock()
	return &recordingStream{Stream: st, done: func(d model.Delta) {
		c.mu.Lock()
		c.calls[idx].Reply = Message{Role: string(model.RoleAssistant), Parts: []Part{{Text: d.Content}}, ToolCalls: d.ToolCalls}
		c.mu.Unlock()
	}}, nil
}

// Calls returns the recorded calls in order.
func (c *CallRecorder) Calls() []Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Call(nil), c.calls...)
}

type recordingStream struct {
	model.Stream
	acc  model.Delta
	once sync.Once
	done func(model.Delta)
}

func (s *recordingStream) Next() bool {
	if !s.Stream.Next() {
		return false
	}
	d := s.Stream.Current()
	s.acc.Content += d.Content
	s.acc.ToolCalls = append(s.acc.ToolCalls, d.ToolCalls...)
	return true
}

func (s *recordingStream) Close() error {
	s.once.Do(func() { s.done(s.acc) })
	return s.Stream.Close()
}

func storedMessages(ms []model.Message) []Message {
	out := make([]Message, len(ms))
	for i, m := range ms {
		sm := Message{Role: string(m.Role), ToolCalls: m.ToolCalls, Parts: make([]Part, len(m.Parts))}
		for j, p := range m.Parts {
			if p.Image != nil {
				sum := sha256.Sum256(p.Image.Data)
				sm.Parts[j] = Part{Image: hex.EncodeToString(sum[:])}
			} else {
				sm.Parts[j] = Part{Text: p.Text}
			}
		}
		out[i] = sm
	}
	return out
}

// Qwen chat-template pieces.
const (
	qwenDefaultSystem = "You are a helpful assistant."
	qwenImage         = "<|vision_start|><|image_pad|><|vision_end|>"
)

// partsText renders a message's parts as the chat template does, with one image pad per image.
func partsText(parts []Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Image != "" {
			b.WriteString(qwenImage)
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Trajectory is one training sample: the prompt turns (system and the question) and the turns after them, in
// order, ending with the model's last reply.
type Trajectory struct {
	Prompt []Message
	Turns  []Message
}

// TrajectoryOf splits a call's context and reply into prompt and turns: the prompt is the leading system message
// (if any) and the first user message.
func TrajectoryOf(c Call) Trajectory {
	msgs := append(append([]Message(nil), c.Messages...), c.Reply)
	n := 0
	if n < len(msgs) && msgs[n].Role == string(model.RoleSystem) {
		n++
	}
	if n < len(msgs) && msgs[n].Role == string(model.RoleUser) {
		n++
	}
	return Trajectory{Prompt: msgs[:n], Turns: msgs[n:]}
}

// Response renders the turns as verl's rollout builds the response sequence: each reply ends with <|im_end|>, and
// each observation is spliced in as "\n<|im_start|>user\n…<|im_end|>\n<|im_start|>assistant\n".
func (t Trajectory) Response() string {
	var b strings.Builder
	for _, m := range t.Turns {
		if m.Role == string(model.RoleAssistant) {
			b.WriteString(partsText(m.Parts))
			b.WriteString("<|im_end|>")
			continue
		}
		b.WriteString("\n<|im_start|>" + m.Role + "\n")
		b.WriteString(partsText(m.Parts))
		b.WriteString("<|im_end|>\n<|im_start|>assistant\n")
	}
	return b.String()
}

// PromptText renders the prompt turns in the Qwen chat template, with the template's default system message when
// the run sent none, ending with the assistant header the response follows.
func (t Trajectory) PromptText() string {
	var b strings.Builder
	if len(t.Prompt) == 0 || t.Prompt[0].Role != string(model.RoleSystem) {
		b.WriteString("<|im_start|>system\n" + qwenDefaultSystem + "<|im_end|>\n")
	}
	for _, m := range t.Prompt {
		b.WriteString("<|im_start|>" + m.Role + "\n" + partsText(m.Parts) + "<|im_end|>\n")
	}
	b.WriteString("<|im_start|>assistant\n")
	return b.String()
}

// Images lists the blob ids of a trajectory's images in order (prompt first).
func (t Trajectory) Images() []string {
	var out []string
	for _, ms := range [][]Message{t.Prompt, t.Turns} {
		for _, m := range ms {
			for _, p := range m.Parts {
				if p.Image != "" {
					out = append(out, p.Image)
				}
			}
		}
	}
	return out
}

// ShownPages lists, in order, the pages whose images a run put in front of the model (search results that were
// shown; crops are views of pages already listed), named as PageID does.
func ShownPages(evs []agent.Event) []string {
	var out []string
	for _, ev := range evs {
		if ev.Kind != agent.KindResults || ev.Results == nil {
			continue
		}
		for _, s := range ev.Results.Sent {
			for _, h := range ev.Results.Hits {
				if h.UnitID == s.UnitID {
					out = append(out, PageID(h.DocumentName, h.Page))
					break
				}
			}
		}
	}
	return out
}

// MarkNodes labels vimrag calls with the graph node each reply created or closed and whether that node lies on the
// answer's ancestor path, from the run's events.
func MarkNodes(calls []Call, evs []agent.Event) {
	nodeOf := map[int]string{}
	var graph *agent.GraphInfo
	for _, ev := range evs {
		switch {
		case ev.Kind == agent.KindSearch && ev.Search != nil && ev.Search.NodeID != "":
			nodeOf[ev.Step] = ev.Search.NodeID
		case ev.Kind == agent.KindMemorize && ev.Memorize != nil:
			nodeOf[ev.Step] = ev.Memorize.NodeID
		case ev.Kind == agent.KindAnswer:
			if _, ok := nodeOf[ev.Step]; !ok {
				nodeOf[ev.Step] = "answer"
			}
		case ev.Kind == agent.KindGraph && ev.Graph != nil:
			graph = ev.Graph
		}
	}
	onPath := map[string]bool{}
	if graph != nil {
		parents := map[string][]string{}
		for _, n := range graph.Nodes {
			parents[n.ID] = n.Parents
		}
		if _, ok := parents["answer"]; ok {
			stack := []string{"answer"}
			for len(stack) > 0 {
				id := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if onPath[id] {
					continue
				}
				onPath[id] = true
				stack = append(stack, parents[id]...)
			}
		}
	}
	for i := range calls {
		calls[i].NodeID = nodeOf[calls[i].Step]
		calls[i].OnAnswerPath = calls[i].NodeID != "" && onPath[calls[i].NodeID]
	}
}
