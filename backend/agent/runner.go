package agent

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"time"

	"proofglass/backend/followup"
	"proofglass/backend/model"
	"proofglass/backend/vision"
)

// Mode names a policy.
type Mode string

const (
	ModeVRAG    Mode = "vrag"
	ModeVimRAG  Mode = "vimrag"
	ModeVanilla Mode = "vanilla"
	ModeReAct   Mode = "react"
)

// Modes lists the policies, in the order the UI offers them.
var Modes = []Mode{ModeVRAG, ModeVimRAG, ModeVanilla, ModeReAct}

// Config chooses a policy and its limits. Zero values mean the policy's reference defaults.
type Config struct {
	Mode       Mode
	Provider   string // recorded in run_started only
	Model      string // sent as model.Request.Model
	Collection string // recorded in run_started only
	// Conversation is the stored conversation the run answers a turn of (0: none); recorded in run_started only, so
	// a client that started a conversation learns its id from the first event.
	Conversation int64
	// Documents, when set, is the search scope: the agent's searches find pages of these documents only.
	Documents []int64
	Think     bool // ask for thinking (vimrag: enable_thinking with its sampling; others: Options.Think)
	// MaxSteps: tool steps for vrag and react (10), model calls for vimrag (20); unused by vanilla.
	MaxSteps int
	// TopK: hits asked of the Retriever per search: vrag/react 10 (one unseen page is shown), vimrag 3, vanilla 3.
	TopK int
	// Encoder is the model's image processor, for bbox frames and token estimates: Qwen2.5-VL for vrag, react and
	// vanilla; Qwen3-VL for vimrag.
	Encoder vision.Encoder
	// MemoryPixels is vimrag's visual-memory budget S_total (2,007,040 px as the VimRAG agent passes).
	MemoryPixels int
	// Options override sampling; nil fields keep the mode's reference settings (ModeOptions). NumCtx here is ignored:
	// ContextLength decides it.
	Options model.Options
	// ContextLength is the context window asked of the server (Ollama num_ctx): 0 sizes it for the run, capped by
	// what the model supports; > 0 is used as given; < 0 sends none (the server's default).
	ContextLength int
	// FollowUp, when set, makes the run understand its question in the light of the conversation before the policy
	// starts: a follow-up is rewritten into a standalone question by one extra model call (see package followup).
	FollowUp *FollowUp
	// Prefer are documents the Retriever searches first (the caller's Retriever does it); named in search events.
	Prefer []DocRef
	// Calculator offers the model a calculator (opt-in): vrag a <calculate> action named by one added prompt sentence,
	// react a native calculate function, vimrag a calculate tool and calculation nodes. Off, every prompt is the
	// reference's, byte for byte.
	Calculator bool
}

// FollowUp is the conversation a question continues.
type FollowUp struct {
	History []followup.Turn
	Off     bool // rewriting turned off in settings: the event says so and the question is used as asked
}

func (c Config) withDefaults() (Config, error) {
	switch c.Mode {
	case ModeVRAG, ModeReAct:
		c.MaxSteps = or(c.MaxSteps, 10)
		c.TopK = or(c.TopK, 10)
		if c.Encoder.Factor == 0 {
			c.Encoder = vision.Qwen25VL
		}
	case ModeVanilla:
		c.TopK = or(c.TopK, 3)
		if c.Encoder.Factor == 0 {
			c.Encoder = vision.Qwen25VL
		}
	case ModeVimRAG:
		c.MaxSteps = or(c.MaxSteps, 20)
		c.TopK = or(c.TopK, 3)
		c.MemoryPixels = or(c.MemoryPixels, 2007040)
		if c.Encoder.Factor == 0 {
			c.Encoder = vision.Qwen3VL
		}
	case "":
		c.Mode = ModeVRAG
		return c.withDefaults()
	default:
		return c, fmt.Errorf("unknown agent mode %q (want vrag, vimrag, vanilla or react)", c.Mode)
	}
	if err := c.checkLimits(); err != nil {
		return c, err
	}
	over := c.Options
	over.NumCtx = 0
	c.Options = ModeOptions(c.Mode, c.Think).Merge(over)
	return c, nil
}

// Resolved returns cfg with the mode's defaults filled in and its sampling options resolved: what a run with cfg
// uses (without the context window, which Run sizes against the server). Other calls made for the same run, such
// as a question rewrite, should use Resolved().Options.
func (c Config) Resolved() (Config, error) { return c.withDefaults() }

func or(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// Agent runs questions against a model and a knowledge base. Chat, Retriever and Renderer are required; Frames and
// Blobs are optional (without Blobs, images are kept in memory only for the run).
type Agent struct {
	Chat      model.Chat
	Retriever Retriever
	Renderer  PageRenderer
	Frames    FrameSource
	Blobs     BlobStore
	Now       func() time.Time // for tests; time.Now by default
	Log       *slog.Logger
	// Grounder, when set, checks every answer against its evidence: its result is the grounding event, emitted after
	// the answer and before done.
	Grounder Grounder
	// LookupTimeout bounds each look-up of the model's limits before a run (0: DefaultLookupTimeout): a server that
	// accepts a connection and never answers fails the run with a clear error instead of holding it for minutes.
	LookupTimeout time.Duration
}

// DefaultLookupTimeout bounds a model look-up (Ollama /api/show, GET /models): both answer at once when the
// server is well, even while it is loading a model.
const DefaultLookupTimeout = 5 * time.Second

// startGrace is how long run_started waits for the model's limits before it is sent without its context plan.
const startGrace = 250 * time.Millisecond

// Result is how a run ended. The same facts were streamed as events.
type Result struct {
	RunID  string
	Status Status
	Answer *AnswerInfo // nil when no answer was produced
	Usage  Usage
	// Messages is the last context sent to the model followed by its reply: the run's trajectory for export.
	Messages []model.Message
	// Options are the model options every call of the run used, num_ctx included.
	Options model.Options
}

// policy is one agent loop.
type policy interface {
	run(ctx context.Context, r *run) error
}

// Run answers question with the policy cfg.Mode, streaming every step to sink (which may be nil). runID names the
// run in its events (a random id when empty). The returned error is non-nil only when the run could not start or
// failed; a cancelled run returns ctx's error with Status cancelled, after its error and done events.
func (a *Agent) Run(ctx context.Context, runID string, cfg Config, question string, sink Sink) (Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Result{}, err
	}
	if a.Chat == nil || a.Retriever == nil || a.Renderer == nil {
		return Result{}, errors.New("agent: Chat, Retriever and Renderer are required")
	}
	if runID == "" {
		runID = newRunID()
	}
	now := a.Now
	if now == nil {
		now = time.Now
	}
	blobs := a.Blobs
	if blobs == nil {
		blobs = &MemBlobs{}
	}
	log := a.Log
	if log == nil {
		log = slog.Default()
	}
	r := &run{
		a: a, cfg: cfg, question: question, blobs: blobs, log: log.With("run", runID, "mode", cfg.Mode),
		em:     newEmitter(runID, sink, now),
		tokens: map[*model.Image]int{},
		sizes:  map[*model.Image]vision.Size{},
		start:  now(),
		opts:   cfg.Options,
	}
	// run_started carries the context plan, which needs the model's limits from the server. A server that answers
	// within startGrace (every healthy one) is waited for; a slower one is not: the run says it started, plans when
	// the look-up answers, and fails when it does not answer within the look-up bound.
	started := func(plan *ContextInfo) {
		opts := r.opts
		r.em.emit(Event{Kind: KindRunStarted, Run: &RunInfo{
			Mode: string(cfg.Mode), Question: question, Provider: cfg.Provider, Model: cfg.Model,
			Collection: cfg.Collection, Conversation: cfg.Conversation, Documents: cfg.Documents, Think: cfg.Think,
			Calculator: cfg.Calculator,
			MaxSteps:   cfg.MaxSteps, TopK: cfg.TopK, Options: &opts, Context: plan,
		}})
	}
	lookup := make(chan limitsFound, 1)
	go func() { lookup <- r.lookupLimits(ctx) }()
	grace := time.NewTimer(startGrace)
	var found limitsFound
	select {
	case found = <-lookup:
		grace.Stop()
	case <-grace.C:
		started(nil)
		found = <-lookup
		started = nil
	}
	warn, warnReason := "", ""
	if found.err == nil {
		warn, warnReason = r.planContext(found)
	}
	if started != nil {
		started(r.ctxInfo(0, 0))
	}
	runErr := found.err
	if runErr == nil {
		if warn != "" {
			r.emitContext("context_capped", warnReason, warn, 0, 0)
		}
		if cfg.FollowUp != nil || len(cfg.Prefer) > 0 {
			r.question = r.understand(ctx)
		}
		var p policy
		switch cfg.Mode {
		case ModeVRAG:
			p = &vragPolicy{crop: true}
		case ModeReAct:
			p = &vragPolicy{crop: false}
		case ModeVanilla:
			p = vanillaPolicy{}
		case ModeVimRAG:
			p = &vimragPolicy{}
		}
		runErr = p.run(ctx, r)
	}
	status := StatusNoAnswer
	switch {
	case ctx.Err() != nil:
		status = StatusCancelled
		r.emitError("cancelled", "run cancelled: "+context.Cause(ctx).Error(), false)
		runErr = ctx.Err()
	case runErr != nil:
		status = StatusFailed
		if code := errCode(runErr); code == "model" || code == "model_unreachable" {
			r.emitModelError(code, runErr, runErr.Error(), false)
		} else {
			r.emitError(code, runErr.Error(), false)
		}
	case r.answer != nil && !r.answer.Forced:
		status = StatusAnswered
	}
	r.em.setStep(r.usage.Steps)
	if a.Grounder != nil && r.answer != nil && ctx.Err() == nil {
		r.ground(ctx)
	}
	r.usage.WallMS = now().Sub(r.start).Milliseconds()
	r.em.emit(Event{Kind: KindDone, Done: &DoneInfo{Status: status, Usage: r.usage}})
	res := Result{RunID: runID, Status: status, Answer: r.answer, Usage: r.usage, Messages: r.trajectory, Options: r.opts}
	if runErr != nil {
		return res, fmt.Errorf("agent %s run %s: %w", cfg.Mode, runID, runErr)
	}
	return res, nil
}

func newRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// stepError is a failure with an event code.
type stepError struct {
	code string
	err  error
}

func (e *stepError) Error() string { return e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

func errCode(err error) string {
	var se *stepError
	if errors.As(err, &se) {
		return se.code
	}
	return "internal"
}

// run is the state one policy execution shares with the runner.
type run struct {
	a          *Agent
	cfg        Config
	question   string
	blobs      BlobStore
	log        *slog.Logger
	em         *emitter
	usage      Usage
	tokens     map[*model.Image]int // visual tokens of each image the agent made
	sizes      map[*model.Image]vision.Size
	start      time.Time
	answer     *AnswerInfo
	trajectory []model.Message
	opts       model.Options // every call's options: the mode's, the caller's and num_ctx
	ctxw       contextPlan
	tools      []model.Tool // native tools offered in every call (react with the calculator)
	calcN      int          // calculator calls so far
}

func (r *run) emitError(code, msg string, recoverable bool) {
	r.em.emit(Event{Kind: KindError, Error: &ErrorInfo{Code: code, Message: msg, Recoverable: recoverable}})
}

// emitModelError reports a failed model call (code model) or look-up (model_unreachable: the server did not answer
// within the bound) with the reason the window translates.
func (r *run) emitModelError(code string, err error, msg string, recoverable bool) {
	reason := model.FailureCode(err)
	if code == "model_unreachable" {
		reason = model.FailureTimeout
	}
	r.em.emit(Event{Kind: KindError, Error: &ErrorInfo{Code: code, Message: msg, Recoverable: recoverable, Reason: reason}})
}

// call sends one request, streaming thinking and content deltas as events, and returns the whole reply. Text inside
// <think>…</think> in the content channel is reported as thinking. It counts the step, the images and their visual
// tokens, and the tokens the server reports.
func (r *run) call(ctx context.Context, msgs []model.Message) (model.Delta, error) {
	if err := ctx.Err(); err != nil {
		return model.Delta{}, err
	}
	est := r.checkBefore(msgs)
	opts := r.opts
	r.usage.Steps++
	r.em.setStep(r.usage.Steps)
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Image != nil {
				r.usage.Images++
				r.usage.VisualTokens += r.tokens[p.Image]
			}
		}
	}
	req := model.Request{Model: r.cfg.Model, Messages: msgs, Tools: r.tools, Options: opts}
	st, err := r.a.Chat.Chat(ctx, req)
	if err != nil {
		return model.Delta{}, &stepError{"model", fmt.Errorf("model call %d: %w", r.usage.Steps, err)}
	}
	defer st.Close()
	var out model.Delta
	var split thinkSplitter
	emitText := func(th, ct string) {
		if th != "" {
			r.em.emit(Event{Kind: KindThinking, Text: th})
		}
		if ct != "" {
			r.em.emit(Event{Kind: KindContent, Text: ct})
		}
	}
	for st.Next() {
		d := st.Current()
		if d.Reasoning != "" {
			out.Reasoning += d.Reasoning
			emitText(d.Reasoning, "")
		}
		if d.Content != "" {
			out.Content += d.Content
			emitText(split.feed(d.Content))
		}
		out.ToolCalls = append(out.ToolCalls, d.ToolCalls...)
		if d.Usage != nil {
			out.Usage = d.Usage
		}
		if d.Done {
			out.Done, out.FinishReason = true, d.FinishReason
		}
	}
	emitText(split.flush())
	if out.Usage != nil {
		r.usage.PromptTokens += out.Usage.PromptTokens
		r.usage.CompletionTokens += out.Usage.CompletionTokens
		if out.Usage.PromptTokens > 0 {
			r.usage.PromptTokensSent += est.low
		}
		r.checkAfter(est, out.Usage.PromptTokens)
	}
	r.trajectory = append(append([]model.Message(nil), msgs...), assistantMessage(out))
	if err := st.Err(); err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		// A reply cut short may still hold a complete action; let the policy try it, and say what happened.
		if errors.Is(err, model.ErrIncompleteStream) && (out.Content != "" || len(out.ToolCalls) > 0) {
			r.emitModelError("model", err, fmt.Sprintf("model call %d: %v", r.usage.Steps, err), true)
			return out, nil
		}
		return out, &stepError{"model", fmt.Errorf("model call %d: %w", r.usage.Steps, err)}
	}
	return out, nil
}

func assistantMessage(d model.Delta) model.Message {
	m := model.TextMessage(model.RoleAssistant, d.Content)
	m.ToolCalls = d.ToolCalls
	return m
}

// image encodes img as JPEG (shrinking it under maxBytes when > 0), stores the blob, and returns the message part
// and its description. enc gives the size the model's encoder will see and the token estimate.
func (r *run) image(ctx context.Context, unitID string, img image.Image, maxBytes int) (model.Part, SentImage, error) {
	data, size, err := vision.EncodeJPEGUnder(img, maxBytes, vision.DefaultQuality)
	if err != nil {
		return model.Part{}, SentImage{}, &stepError{"render", fmt.Errorf("unit %s: %w", unitID, err)}
	}
	sum := sha256.Sum256(data)
	id := hex.EncodeToString(sum[:])
	if err := r.blobs.PutBlob(ctx, id, "image/jpeg", data); err != nil {
		return model.Part{}, SentImage{}, &stepError{"internal", fmt.Errorf("store image blob %s: %w", id, err)}
	}
	encSize, _ := r.cfg.Encoder.Resize(size)
	mi := &model.Image{Data: data, MIME: "image/jpeg"}
	tokens := r.cfg.Encoder.Tokens(size)
	r.tokens[mi] = tokens
	r.sizes[mi] = size
	return model.Part{Image: mi}, SentImage{
		UnitID:       unitID,
		Image:        ImageRef{Blob: id, MIME: "image/jpeg", Width: size.W, Height: size.H, Bytes: len(data)},
		EncoderW:     encSize.W,
		EncoderH:     encSize.H,
		VisualTokens: tokens,
	}, nil
}

// understand emits the rewrite event and returns the question the policy answers: the standalone form of a
// follow-up, or the question as asked (first turn, standalone, turned off, or a rewrite that failed).
func (r *run) understand(ctx context.Context) string {
	info := RewriteInfo{Asked: r.question, Question: r.question, Prefer: r.cfg.Prefer}
	fu := r.cfg.FollowUp
	switch {
	case fu == nil:
		info.Reason = "first_turn"
	case fu.Off:
		info.Reason = "off"
	default:
		d := followup.Decide(fu.History, r.question)
		info.Reason = d.Reason
		if d.Rewrite {
			res, err := followup.Rewrite(ctx, r.a.Chat, r.cfg.Model, r.opts, r.cfg.Think, fu.History, r.question)
			r.usage.RewriteCalls++
			r.usage.PromptTokens += res.Usage.PromptTokens
			r.usage.CompletionTokens += res.Usage.CompletionTokens
			if err != nil {
				info.Error = err.Error()
				r.log.Warn("follow-up rewrite failed; answering the question as asked", "err", err)
			} else {
				info.Question, info.Rewritten = res.Question, true
			}
		}
	}
	r.em.emit(Event{Kind: KindRewrite, Rewrite: &info})
	return info.Question
}

// search runs a query and emits the search event; errors are reported and returned for the policy to handle.
func (r *run) search(ctx context.Context, query, nodeID string, k int) ([]SearchHit, error) {
	r.em.emit(Event{Kind: KindSearch, Search: &SearchInfo{Query: query, NodeID: nodeID, Prefer: r.cfg.Prefer}})
	var hits []SearchHit
	var report *RerankReport
	var err error
	if rr, ok := r.a.Retriever.(RerankingRetriever); ok {
		hits, report, err = rr.SearchReranked(ctx, query, k)
	} else {
		hits, err = r.a.Retriever.Search(ctx, query, k)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &stepError{"search", fmt.Errorf("search %q: %w", query, err)}
	}
	if report != nil && report.Error != "" {
		r.log.Warn("reranker failed; using the first stage's order", "reranker", report.Reranker, "err", report.Error)
		r.emitError("rerank", fmt.Sprintf("%s failed, so these results are in first-stage order: %s", report.Reranker, report.Error), true)
	}
	return hits, nil
}

// ground runs the Grounder over the answer and emits its grounding event; a failed pass is a recoverable error
// event instead (the answer stands, unchecked).
func (r *run) ground(ctx context.Context) {
	info, err := r.a.Grounder.Ground(ctx, *r.answer, r.em.trailCopy())
	if err != nil {
		r.log.Warn("grounding pass failed", "err", err)
		r.emitError("grounding", "grounding pass: "+err.Error(), true)
		return
	}
	if info != nil {
		r.em.emit(Event{Kind: KindGrounding, Grounding: info})
	}
}

// finish records the answer and emits it.
func (r *run) finish(a AnswerInfo) {
	if a.Citations == nil {
		a.Citations = []Citation{}
	}
	r.answer = &a
	r.em.emit(Event{Kind: KindAnswer, Answer: &a})
}

func citationFor(h Hit, region *[4]float64) Citation {
	return Citation{UnitID: h.UnitID, DocumentID: h.DocumentID, DocumentName: h.DocumentName, Page: h.Page, Region: region}
}
