package agent

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"proofglass/backend/model"
	"proofglass/backend/vision"
)

// contextPlan is the run's context window: what the server says about the model, the num_ctx sent, and whether a
// warning was given.
type contextPlan struct {
	limits     model.Limits
	reporter   bool // the server reports limits and counts the prompt it evaluated (Ollama): truncation is detectable
	systemLine bool // send Qwen's default system line
	numCtx     int
	window     int
	needed     int
	warnedNear bool
	// ratio is the prompt tokens per byte of text, learnt from the server's count of the first prompt (text is
	// tokenized very differently by different models: ~0.25 per English byte for Qwen, ~1 for byte-level vocabularies).
	ratio     float64
	lastCount int
}

// callEstimate is what checkBefore knew about a call's prompt, for checkAfter.
type callEstimate struct {
	low       int // lower bound, tokenizer-agnostic
	predicted int // from the learnt ratio; 0 before it is known
	textBytes int
	imgLow    int
}

// Estimates of the run's shape, for sizing the window.
const (
	replyInContext  = 512  // a reply kept in the history (VRAG turns are a <think> and one tag)
	replyReserve    = 1024 // the generation of the current call, when max_tokens is not set
	vimragNodeText  = 300  // one search node in the graph JSON: query and summary
	contextMargin   = 256  // chat-template tokens and estimation error
	contextRounding = 2048 // num_ctx is rounded up to this (a changed num_ctx makes Ollama reload the model)
	minContext      = 4096
	messageOverhead = 8 // role markers around each message
)

// limitsFound is what the look-up of the model's limits found.
type limitsFound struct {
	limits   model.Limits
	reporter bool  // the server reported limits
	err      error // the server did not answer in time: the run cannot go on
}

// lookupLimits asks the server about the model (when it can), bounded by the agent's LookupTimeout. It only reads r,
// so it may run beside the runner.
func (r *run) lookupLimits(ctx context.Context) limitsFound {
	lr, ok := r.a.Chat.(model.LimitsReporter)
	if !ok {
		return limitsFound{}
	}
	bound := r.a.LookupTimeout
	if bound <= 0 {
		bound = DefaultLookupTimeout
	}
	lctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	l, err := lr.Limits(lctx, r.cfg.Model)
	switch {
	case err != nil && ctx.Err() == nil && errors.Is(lctx.Err(), context.DeadlineExceeded):
		// A server that cannot say what a model is within seconds will not answer a chat call either.
		return limitsFound{err: &stepError{"model_unreachable", fmt.Errorf("the model server did not answer a look-up of "+
			"%s within %s: check that it is running and not stuck (the run made no model call)", r.cfg.Model, bound)}}
	case err != nil:
		r.log.Warn("model limits unknown", "model", r.cfg.Model, "err", err)
		return limitsFound{}
	}
	return limitsFound{limits: l, reporter: true}
}

// planContext sizes the window from what the look-up found and sets r.opts.NumCtx. It returns a warning when the
// window cannot hold the run.
func (r *run) planContext(found limitsFound) (warn, reason string) {
	p := &r.ctxw
	p.limits, p.reporter = found.limits, found.reporter
	p.systemLine = sendsSystemLine(r.cfg.Mode, r.cfg.Model, p.limits)
	p.needed = r.estimateRun()
	l := p.limits
	switch {
	case r.cfg.ContextLength > 0:
		p.numCtx = r.cfg.ContextLength
		if p.needed > p.numCtx {
			warn, reason = fmt.Sprintf("this run may need about %d tokens but the context length is set to %d: the server may cut the "+
				"oldest messages; raise the profile's context length, or lower max steps or top_k", p.needed, p.numCtx), ContextSetTooSmall
		}
	case r.cfg.ContextLength < 0:
		p.numCtx = 0
	case p.reporter && l.Adjustable:
		p.numCtx = max(minContext, (p.needed+contextRounding-1)/contextRounding*contextRounding)
		if l.ContextLength > 0 && p.numCtx > l.ContextLength {
			p.numCtx = l.ContextLength
			if p.needed > p.numCtx {
				warn, reason = fmt.Sprintf("this run may need about %d tokens but %s supports %d: the server may cut the oldest "+
					"messages; lower max steps or top_k, or use a model with a longer context", p.needed, r.cfg.Model, l.ContextLength), ContextModelTooShort
			}
		}
	}
	if !l.Adjustable && l.DefaultContext > 0 && p.needed > l.DefaultContext && warn == "" {
		warn, reason = fmt.Sprintf("this run may need about %d tokens but the server serves %s with %d (vLLM: --max-model-len): "+
			"a longer prompt is rejected; restart the server with a longer context, or lower max steps or top_k", p.needed, r.cfg.Model, l.DefaultContext), ContextServerTooShort
	}
	if l.ContextLength > 0 && p.numCtx > l.ContextLength && warn == "" {
		warn, reason = fmt.Sprintf("context length %d is more than %s was trained for (%d)", p.numCtx, r.cfg.Model, l.ContextLength), ContextOverTrained
	}
	p.window = p.numCtx
	if p.window == 0 {
		p.window = l.DefaultContext
	}
	r.opts.NumCtx = p.numCtx
	return warn, reason
}

func (r *run) ctxInfo(estimated, counted int) *ContextInfo {
	p := r.ctxw
	return &ContextInfo{NumCtx: p.numCtx, Window: p.window, ModelMax: p.limits.ContextLength, Needed: p.needed,
		Estimated: estimated, ServerCounted: counted}
}

func (r *run) emitContext(code, reason, msg string, estimated, counted int) {
	r.em.emit(Event{Kind: KindError, Error: &ErrorInfo{Code: code, Reason: reason, Message: msg, Recoverable: true,
		Context: r.ctxInfo(estimated, counted)}})
}

// checkBefore estimates the prompt of one call. With the context sized automatically, it grows num_ctx when the
// prompt (measured with the ratio the server's counts taught) would not fit with a reply, up to the model's length;
// it warns (once per run) when the prompt nears the window.
func (r *run) checkBefore(msgs []model.Message) callEstimate {
	low, high := r.estimateMessages(msgs)
	ce := callEstimate{low: low}
	var imgHigh int
	ce.textBytes, ce.imgLow, imgHigh = r.shape(msgs)
	p := &r.ctxw
	est := high
	if p.ratio > 0 {
		ce.predicted = int(p.ratio*float64(ce.textBytes)) + ce.imgLow
		est = int(p.ratio*float64(ce.textBytes)) + imgHigh + len(msgs)*messageOverhead
	}
	reserve := replyReserve
	if r.opts.MaxTokens > 0 {
		reserve = r.opts.MaxTokens
	}
	canGrow := r.cfg.ContextLength == 0 && p.reporter && p.limits.Adjustable && p.numCtx > 0 &&
		(p.limits.ContextLength == 0 || p.numCtx < p.limits.ContextLength)
	if canGrow && est+reserve > p.numCtx {
		old := p.numCtx
		n := ((est+reserve)*3/2 + contextRounding - 1) / contextRounding * contextRounding
		if p.limits.ContextLength > 0 {
			n = min(n, p.limits.ContextLength)
		}
		p.numCtx, p.window, r.opts.NumCtx = n, n, n
		r.emitContext("context_grown", ContextGrown, fmt.Sprintf("the prompt of call %d is about %d tokens as this model counts them; with a "+
			"reply it would not fit in num_ctx %d, so num_ctx is %d from now on (the server reloads the model once)",
			r.usage.Steps+1, est, old, n), low, 0)
	}
	if p.window > 0 && !p.warnedNear && !canGrow && est > p.window*9/10 {
		p.warnedNear = true
		r.emitContext("context_near_limit", ContextNearLimit, fmt.Sprintf("the prompt of call %d is about %d tokens, near the %d-token context "+
			"window: the server may cut the oldest messages; raise the profile's context length", r.usage.Steps+1, est, p.window), low, 0)
	}
	return ce
}

// shape measures a prompt: bytes of text, and the images' tokens (lower and upper bounds).
func (r *run) shape(msgs []model.Message) (textBytes, imgLow, imgHigh int) {
	for _, m := range msgs {
		for _, part := range m.Parts {
			textBytes += len(part.Text)
			if part.Image != nil {
				lo, hi := r.imageTokens(part.Image)
				imgLow, imgHigh = imgLow+lo, imgHigh+hi
			}
		}
		for _, tc := range m.ToolCalls {
			textBytes += len(tc.Name) + len(tc.Arguments)
		}
	}
	return textBytes, imgLow, imgHigh
}

// checkAfter compares the prompt tokens the server evaluated with what Proofglass sent: fewer than the tokenizer-agnostic
// lower bound, than three quarters of the prediction from the learnt ratio, or (vrag and react, whose chat only
// grows) than the previous call's count, means the server cut the prompt (Ollama drops the oldest messages, then the
// oldest tokens, when a prompt is over num_ctx).
func (r *run) checkAfter(ce callEstimate, counted int) {
	p := &r.ctxw
	if !p.reporter || !p.limits.Adjustable || counted <= 0 {
		return
	}
	sent := ce.low
	truncated := counted < ce.low
	if ce.predicted > 0 && float64(counted) < 0.75*float64(ce.predicted) {
		truncated, sent = true, max(sent, ce.predicted)
	}
	if (r.cfg.Mode == ModeVRAG || r.cfg.Mode == ModeReAct) && p.lastCount > 0 && counted < p.lastCount*98/100 {
		truncated, sent = true, max(sent, p.lastCount)
	}
	if !truncated {
		if p.ratio == 0 && ce.textBytes >= 200 {
			p.ratio = float64(max(0, counted-ce.imgLow)) / float64(ce.textBytes)
		}
		p.lastCount = max(p.lastCount, counted)
		return
	}
	fix, reason := fmt.Sprintf("raise the profile's context length above %d", p.window), ContextTruncated
	if p.numCtx == 0 {
		reason = ContextTruncatedDefault
		fix = "no num_ctx was sent (context length -1), so the server used its default" +
			func() string {
				if p.window > 0 {
					return fmt.Sprintf(" of %d", p.window)
				}
				return ""
			}() + fmt.Sprintf(": set the profile's context length to 0 (automatic) or at least %d", p.needed)
	}
	r.emitContext("context_truncated", reason, fmt.Sprintf("call %d: the server evaluated %d prompt tokens of a prompt of about %d: "+
		"the prompt was cut and the model no longer sees its start (the instructions and the question); %s",
		r.usage.Steps, counted, sent, fix), sent, counted)
}

// estimateMessages returns a lower and an upper estimate of the prompt tokens of msgs. The lower one must not
// exceed what any real tokenizer produces (it is compared with the server's count); the upper one sizes windows.
func (r *run) estimateMessages(msgs []model.Message) (low, high int) {
	for _, m := range msgs {
		high += messageOverhead
		for _, part := range m.Parts {
			lo, hi := textTokens(part.Text)
			low, high = low+lo, high+hi
			if part.Image != nil {
				lo, hi := r.imageTokens(part.Image)
				low, high = low+lo, high+hi
			}
		}
		for _, tc := range m.ToolCalls {
			lo, hi := textTokens(tc.Name + tc.Arguments)
			low, high = low+lo, high+hi
		}
	}
	return low, high
}

// textTokens bounds a text's tokens: BPE vocabularies (Qwen, Llama, Gemma) average about 4 bytes of English per
// token, at most ~6; CJK characters take 1–2 characters per token, at most 2.
func textTokens(s string) (low, high int) {
	ascii, other := 0, 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		other++
		i += n
	}
	return ascii/6 + other/2, (ascii+2)/3 + other
}

// imageTokens bounds an image's prompt tokens from what the server says the model's encoder does: a fixed count
// (gemma3), or visual tokens of factor×factor pixels (Qwen-VL); unknown, the lower bound is 0.
func (r *run) imageTokens(img *model.Image) (low, high int) {
	l := r.ctxw.limits
	size := r.sizes[img]
	switch {
	case l.ImageTokens > 0:
		low, high = l.ImageTokens, l.ImageTokens
	case l.PatchFactor > 0 && size.W > 0:
		enc := r.cfg.Encoder
		enc.Factor = l.PatchFactor
		low = enc.Tokens(size)
		high = low + 2
	default:
		high = r.tokens[img] + 2
	}
	return low, max(high, l.ServerImageTokens)
}

// imageBound is the upper estimate for an image of at most pixels.
func (r *run) imageBound(pixels int) int {
	l := r.ctxw.limits
	if l.ImageTokens > 0 {
		return max(l.ImageTokens, l.ServerImageTokens)
	}
	f := l.PatchFactor
	if f == 0 {
		f = r.cfg.Encoder.Factor
	}
	return max(pixels/(f*f)+2, l.ServerImageTokens)
}

// estimateRun is the largest prompt of the run plus the reply being generated, for the mode's worst case: every
// step retrieves an image (vrag, react), top_k images (vanilla), or the graph, visual memory and a search's
// pictures together (vimrag).
func (r *run) estimateRun() int {
	c := r.cfg
	reserve := replyReserve
	if r.opts.MaxTokens > 0 {
		reserve = r.opts.MaxTokens
	}
	inCtx := min(replyInContext, reserve)
	hi := func(s string) int { _, h := textTokens(s); return h + messageOverhead }
	n := contextMargin + reserve
	if r.ctxw.systemLine {
		n += hi(DefaultSystemLine)
	}
	switch c.Mode {
	case ModeVRAG, ModeReAct:
		n += hi(VRAGPrompt(r.question)) + hi(vragAnswerNow)
		n += c.MaxSteps * (r.imageBound(vision.VRAGMaxPixels) + messageOverhead + inCtx)
	case ModeVanilla:
		n += hi(VanillaPrompt(r.question)) + c.TopK*r.imageBound(vision.VRAGMaxPixels)
	case ModeVimRAG:
		n += hi(VimRAGSystemPrompt()) + hi(VimRAGUserPrompt(r.question, "")) + hi(VimRAGSummaryPrompt()) + hi(memoryHeader)
		n += (c.MaxSteps / 2) * vimragNodeText
		n += r.imageBound(c.MemoryPixels) + 5*r.imageBound(0) // the budget is shared by up to 5 items
		n += c.TopK * (r.imageBound(vimragImagePixels) + 8)
		n += 2 * inCtx // the search call and the summary call stay in the context until it is rebuilt
	}
	return n
}

// EstimateContext is the context window a run with cfg needs on a model with limits l: its largest prompt plus a
// reply, as Run sizes num_ctx (before rounding). For `proofglass doctor` and the settings screen.
func EstimateContext(cfg Config, l model.Limits) (int, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return 0, err
	}
	r := &run{cfg: cfg, opts: cfg.Options, question: "a question of a few words about the documents"}
	r.ctxw.limits = l
	r.ctxw.systemLine = sendsSystemLine(cfg.Mode, cfg.Model, l)
	return r.estimateRun(), nil
}
