// Package ollama adapts Ollama's native API (images, think, keep_alive, capabilities) through ollama/api.
package ollama

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"golang.org/x/sync/errgroup"

	"proofglass/backend/model"
	"proofglass/backend/model/transport"
)

// Options configure a Client.
type Options struct {
	Provider  string         // profile name for Info.Provider and ModelID; "" = "ollama"
	KeepAlive *time.Duration // how long the server keeps a model loaded after a request; nil = server default
	Transport transport.Config
	// HTTPClient overrides the client built from Transport (tests).
	HTTPClient *http.Client
}

// Client talks to one Ollama server.
type Client struct {
	api      *api.Client
	base     string
	provider string
	keep     *api.Duration
	shows    sync.Map // model name → *shown, from /api/show
}

// shown is what /api/show said about a model.
type shown struct {
	caps   []string
	limits model.Limits
}

var (
	_ model.Chat   = (*Client)(nil)
	_ model.Lister = (*Client)(nil)

	_ model.LimitsReporter = (*Client)(nil)
)

// New returns a client for baseURL, e.g. "http://127.0.0.1:11434".
func New(baseURL string, o Options) (*Client, error) {
	u, err := transport.BaseURL("ollama", baseURL)
	if err != nil {
		return nil, err
	}
	hc := transport.ClientOr(o.HTTPClient, o.Transport)
	c := &Client{api: api.NewClient(u, hc), base: u.String(), provider: cmp.Or(o.Provider, "ollama")}
	if o.KeepAlive != nil {
		c.keep = &api.Duration{Duration: *o.KeepAlive}
	}
	return c, nil
}

// Version returns the server's version string.
func (c *Client) Version(ctx context.Context) (string, error) {
	v, err := c.api.Version(ctx)
	if err != nil {
		return "", c.mapError("version", "", err, false)
	}
	return v, nil
}

// Capabilities returns the model's capabilities from /api/show ("completion", "vision", "embedding", "tools",
// "thinking"), cached per client.
func (c *Client) Capabilities(ctx context.Context, name string) ([]string, error) {
	sh, err := c.show(ctx, name)
	if err != nil {
		return nil, err
	}
	return sh.caps, nil
}

// Limits reports the model's context length, the window the server loads it with by default, and what an image
// costs, from /api/show (cached per client).
func (c *Client) Limits(ctx context.Context, name string) (model.Limits, error) {
	sh, err := c.show(ctx, name)
	if err != nil {
		return model.Limits{}, err
	}
	return sh.limits, nil
}

func (c *Client) show(ctx context.Context, name string) (*shown, error) {
	if v, ok := c.shows.Load(name); ok {
		return v.(*shown), nil
	}
	r, err := c.api.Show(ctx, &api.ShowRequest{Model: name})
	if err != nil {
		return nil, c.mapError("show", name, err, false)
	}
	sh := &shown{caps: make([]string, 0, len(r.Capabilities)), limits: limitsOf(r)}
	for _, cp := range r.Capabilities {
		sh.caps = append(sh.caps, string(cp))
	}
	c.shows.Store(name, sh)
	return sh, nil
}

// ollamaImageTokens is what Ollama's chatPrompt counts per image of a model with a separate projector when it decides
// which messages fit in num_ctx (server/prompt.go).
const ollamaImageTokens = 768

// limitsOf reads model_info keys "<arch>.context_length", "<arch>.mm_tokens_per_image" (gemma3),
// "<arch>.vision.patch_size" × "<arch>.vision.spatial_merge_size" (Qwen-VL) and the Modelfile's num_ctx.
func limitsOf(r *api.ShowResponse) model.Limits {
	l := model.Limits{Renderer: r.Renderer, Template: r.Template, Adjustable: true}
	num := func(key string) int {
		switch v := r.ModelInfo[key].(type) {
		case float64:
			return int(v)
		case int:
			return v
		case int64:
			return int(v)
		case json.Number:
			n, _ := v.Int64()
			return int(n)
		}
		return 0
	}
	arch, _ := r.ModelInfo["general.architecture"].(string)
	l.Family = arch
	if arch != "" {
		l.ContextLength = num(arch + ".context_length")
		l.ImageTokens = num(arch + ".mm_tokens_per_image")
		if p, m := num(arch+".vision.patch_size"), num(arch+".vision.spatial_merge_size"); p > 0 && m > 0 {
			l.PatchFactor = p * m
		}
	}
	if len(r.ProjectorInfo) > 0 {
		l.ServerImageTokens = ollamaImageTokens
	}
	for _, line := range strings.Split(r.Parameters, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			fmt.Sscan(f[1], &l.DefaultContext)
		}
	}
	return l
}

func has(caps []string, c string) bool {
	for _, x := range caps {
		if x == c {
			return true
		}
	}
	return false
}

// subject names what failed: `ollama chat "m" at URL`, or `ollama version at URL` when there is no model.
func (c *Client) subject(op, name string) string {
	if name == "" {
		return "ollama " + op + " at " + c.base
	}
	return fmt.Sprintf("ollama %s %q at %s", op, name, c.base)
}

// mapError wraps the model package's sentinel errors around ollama/api's StatusError.
func (c *Client) mapError(op, name string, err error, hadImages bool) error {
	var se api.StatusError
	if errors.As(err, &se) {
		msg := strings.ToLower(se.ErrorMessage)
		switch {
		case se.StatusCode == http.StatusNotFound && (strings.Contains(msg, "model") || strings.Contains(msg, "not found")) ||
			transport.LooksLikeModelNotFound(se.StatusCode, "", se.ErrorMessage):
			return fmt.Errorf("%s: %w: %w", c.subject(op, name), model.ErrModelNotFound, err)
		case strings.Contains(msg, "does not support chat") || strings.Contains(msg, "does not support generate"):
			return fmt.Errorf("%s: %w: %w", c.subject(op, name), model.ErrNoChat, err)
		case hadImages && transport.LooksLikeNoVision(se.ErrorMessage):
			return fmt.Errorf("%s: %w: %w", c.subject(op, name), model.ErrNoVision, err)
		}
	}
	return fmt.Errorf("%s: %w", c.subject(op, name), err)
}

// Models lists /api/tags and asks /api/show for each model's capabilities (4 at a time).
func (c *Client) Models(ctx context.Context) ([]model.Info, error) {
	l, err := c.api.List(ctx)
	if err != nil {
		return nil, c.mapError("list models", "", err, false)
	}
	out := make([]model.Info, len(l.Models))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for i, m := range l.Models {
		g.Go(func() error {
			caps := make([]string, 0, len(m.Capabilities))
			for _, cp := range m.Capabilities {
				caps = append(caps, string(cp))
			}
			if len(caps) == 0 {
				var err error
				if caps, err = c.Capabilities(gctx, m.Name); err != nil {
					return err
				}
			}
			out[i] = model.Info{Name: m.Name, Provider: c.provider, SizeBytes: m.Size,
				Chat: has(caps, "completion"), Vision: has(caps, "vision"), Embedding: has(caps, "embedding"),
				Tools: has(caps, "tools"), Thinking: has(caps, "thinking")}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// Chat streams a reply. It checks the model's capabilities first (cached), so a missing model, an embedding-only
// model or images for a model without vision fail here with the model package's errors instead of being silently
// ignored (Ollama drops images sent to a text model).
func (c *Client) Chat(ctx context.Context, req model.Request) (model.Stream, error) {
	sh, err := c.show(ctx, req.Model)
	if err != nil {
		return nil, err
	}
	caps := sh.caps
	wreq, images, err := c.buildRequest(req, sh.limits.Renderer != "")
	if err != nil {
		return nil, err
	}
	if wreq.Think != nil && len(caps) > 0 && !has(caps, "thinking") {
		// Ollama answers 400 to think for a model without a thinking mode; such a model writes its reasoning (VRAG's
		// <think> tags) in the reply anyway, so the run goes on without the flag.
		wreq.Think = nil
	}
	if len(caps) > 0 {
		if !has(caps, "completion") {
			return nil, fmt.Errorf("ollama chat %q at %s (capabilities %v): %w", req.Model, c.base, caps, model.ErrNoChat)
		}
		if images && !has(caps, "vision") {
			return nil, fmt.Errorf("ollama chat %q at %s (capabilities %v): %w", req.Model, c.base, caps, model.ErrNoVision)
		}
	}
	s := c.startStream(ctx, wreq, images)
	// Wait for the first delta so that errors the server reports before streaming (400 for think or tools on a model
	// without them, 500 for a bad image) come from Chat, as they do in the openai adapter.
	d, ok := <-s.ch
	if !ok {
		s.Next()
		return nil, s.err
	}
	s.pending = &d
	return s, nil
}

// buildRequest converts req to the native API. rendered says the server renders the model's prompt in code (a
// "renderer"), which places every image of a message before its text.
func (c *Client) buildRequest(req model.Request, rendered bool) (*api.ChatRequest, bool, error) {
	opts := map[string]any{}
	o := req.Options
	if o.Temperature != nil {
		opts["temperature"] = *o.Temperature
	}
	if o.TopP != nil {
		opts["top_p"] = *o.TopP
	}
	if o.MaxTokens > 0 {
		opts["num_predict"] = o.MaxTokens
	}
	if len(o.Stop) > 0 {
		opts["stop"] = o.Stop
	}
	if o.Seed != nil {
		opts["seed"] = *o.Seed
	}
	if o.NumCtx > 0 {
		opts["num_ctx"] = o.NumCtx
	}
	w := &api.ChatRequest{Model: req.Model, Options: opts, KeepAlive: c.keep}
	if o.Think != nil {
		w.Think = &api.ThinkValue{Value: *o.Think}
	}
	for _, t := range req.Tools {
		var params api.ToolFunctionParameters
		if len(t.Parameters) > 0 {
			if err := json.Unmarshal(t.Parameters, &params); err != nil {
				return nil, false, fmt.Errorf("tool %q: parameters are not a JSON schema object: %w", t.Name, err)
			}
		}
		w.Tools = append(w.Tools, api.Tool{Type: "function",
			Function: api.ToolFunction{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	images := false
	for _, m := range req.Messages {
		msgs, err := nativeMessages(m, rendered)
		if err != nil {
			return nil, false, err
		}
		for _, wm := range msgs {
			images = images || len(wm.Images) > 0
		}
		w.Messages = append(w.Messages, msgs...)
	}
	return w, images, nil
}

// imgTag is the placeholder Ollama's template path replaces, in order, with a message's images (server/prompt.go).
const imgTag = "[img]"

// nativeMessages converts one message. The native API has one content string and a list of images per message, and
// Ollama puts images in front of the text unless the text holds "[img]" placeholders. Where a message interleaves
// text and images (VimRAG's "Picture 1:" labels), the order is kept: with a template, by a placeholder at each
// image's place; with a renderer (which ignores placeholders), by splitting the message at each image into
// consecutive messages of the same role, each starting with its image. A literal "[img]" in such a message's text is
// changed to "[img ]" so it cannot capture an image.
func nativeMessages(m model.Message, rendered bool) ([]api.Message, error) {
	wm := api.Message{Role: string(m.Role), ToolCallID: m.ToolCallID}
	for _, tc := range m.ToolCalls {
		args := api.NewToolCallFunctionArguments()
		if tc.Arguments != "" {
			if err := json.Unmarshal([]byte(tc.Arguments), &args); err != nil {
				return nil, fmt.Errorf("tool call %q in history: arguments are not a JSON object: %w", tc.Name, err)
			}
		}
		wm.ToolCalls = append(wm.ToolCalls, api.ToolCall{ID: tc.ID, Function: api.ToolCallFunction{Name: tc.Name, Arguments: args}})
	}
	if !interleaved(m.Parts) {
		var text strings.Builder
		for _, p := range m.Parts {
			text.WriteString(p.Text)
			if p.Image != nil {
				wm.Images = append(wm.Images, api.ImageData(p.Image.Data))
			}
		}
		wm.Content = text.String()
		return []api.Message{wm}, nil
	}
	safe := func(t string) string { return strings.ReplaceAll(t, imgTag, "[img ]") }
	if !rendered {
		var text strings.Builder
		for _, p := range m.Parts {
			text.WriteString(safe(p.Text))
			if p.Image != nil {
				text.WriteString(imgTag)
				wm.Images = append(wm.Images, api.ImageData(p.Image.Data))
			}
		}
		wm.Content = text.String()
		return []api.Message{wm}, nil
	}
	var out []api.Message
	cur := wm
	var text strings.Builder
	for _, p := range m.Parts {
		if p.Image != nil {
			cur.Content = text.String()
			if cur.Content != "" || len(cur.Images) > 0 || len(cur.ToolCalls) > 0 {
				out = append(out, cur)
			}
			cur, text = api.Message{Role: string(m.Role), Images: []api.ImageData{api.ImageData(p.Image.Data)}}, strings.Builder{}
			continue
		}
		text.WriteString(safe(p.Text))
	}
	cur.Content = text.String()
	return append(out, cur), nil
}

// interleaved reports whether some text comes before an image: only then does Ollama's default placement (all
// images first) change the order of the parts.
func interleaved(parts []model.Part) bool {
	text := false
	for _, p := range parts {
		if p.Image != nil && text {
			return true
		}
		text = text || p.Text != ""
	}
	return false
}

// stream adapts ollama/api's callback API to the pull-style model.Stream with a goroutine and a channel.
type stream struct {
	ch      chan model.Delta
	cancel  context.CancelFunc
	done    chan struct{}
	ctx     context.Context
	cur     model.Delta
	err     error
	final   bool
	pending *model.Delta
}

func (c *Client) startStream(parent context.Context, w *api.ChatRequest, images bool) *stream {
	ctx, cancel := context.WithCancel(parent)
	s := &stream{ch: make(chan model.Delta, 16), cancel: cancel, done: make(chan struct{}), ctx: parent}
	go func() {
		defer close(s.ch)
		var toolCalls []model.ToolCall
		err := c.api.Chat(ctx, w, func(r api.ChatResponse) error {
			d := model.Delta{Reasoning: r.Message.Thinking, Content: r.Message.Content}
			for _, tc := range r.Message.ToolCalls {
				b, _ := json.Marshal(tc.Function.Arguments)
				toolCalls = append(toolCalls, model.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: string(b)})
			}
			if r.Done {
				d.Done = true
				d.FinishReason = r.DoneReason
				if len(toolCalls) > 0 {
					d.ToolCalls = toolCalls
					d.FinishReason = "tool_calls"
				}
				d.Usage = &model.Usage{PromptTokens: r.PromptEvalCount, CompletionTokens: r.EvalCount}
			}
			if !d.Done && d.Reasoning == "" && d.Content == "" {
				return nil
			}
			select {
			case s.ch <- d:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		if err != nil {
			s.err = c.mapError("chat", w.Model, err, images)
		}
		close(s.done)
	}()
	return s
}

func (s *stream) Next() bool {
	if s.final {
		return false
	}
	var d model.Delta
	ok := true
	if s.pending != nil {
		d, s.pending = *s.pending, nil
	} else {
		d, ok = <-s.ch
	}
	if !ok {
		<-s.done
		switch {
		case s.err != nil && s.ctx.Err() != nil:
			s.err = fmt.Errorf("ollama chat stream: %w", s.ctx.Err())
		case s.err != nil && !errors.As(s.err, new(api.StatusError)):
			// A read error or a malformed line mid-stream: the reply is cut.
			s.err = fmt.Errorf("%w: %w", model.ErrIncompleteStream, s.err)
		case s.err == nil:
			s.err = fmt.Errorf("ollama chat stream ended without done: %w", model.ErrIncompleteStream)
		}
		return false
	}
	s.cur = d
	if d.Done {
		s.final = true
	}
	return true
}

func (s *stream) Current() model.Delta { return s.cur }

func (s *stream) Err() error {
	if s.final {
		return nil
	}
	return s.err
}

func (s *stream) Close() error {
	s.cancel()
	for range s.ch {
	}
	<-s.done
	return nil
}

// PullProgress is one progress report of a pull: a status line, and bytes of the layer being downloaded.
type PullProgress struct {
	Status    string `json:"status"`
	Digest    string `json:"digest,omitempty"`
	Completed int64  `json:"completed,omitempty"`
	Total     int64  `json:"total,omitempty"`
}

// Pull downloads a model into the server's library (POST /api/pull), reporting progress to fn as the server streams
// it. The server does the download; cancelling ctx stops it.
func (c *Client) Pull(ctx context.Context, name string, fn func(PullProgress)) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("ollama pull at %s: no model named", c.base)
	}
	err := c.api.Pull(ctx, &api.PullRequest{Model: name}, func(p api.ProgressResponse) error {
		if fn != nil {
			fn(PullProgress{Status: p.Status, Digest: p.Digest, Completed: p.Completed, Total: p.Total})
		}
		return nil
	})
	if err != nil {
		return c.mapError("pull", name, err, false)
	}
	c.shows.Delete(name)
	return nil
}
