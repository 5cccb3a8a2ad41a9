package agent

import (
	"context"
	"errors"
	"fmt"

	"proofglass/backend/model"
	"proofglass/backend/vision"
)

// vragPolicy is VRAG-RL's loop (vrag.md §2a), or with crop off the react baseline (search/answer only).
type vragPolicy struct {
	crop bool

	views []seen          // every image sent, in order; a bbox refers to the last one
	shown map[string]bool // units whose page was sent (each page at most once per run)
	cited []Citation      // evidence, most recent last
	hits  map[string]Hit  // unit → its hit, for crops and citations
}

// seen is an image the model has in its context.
type seen struct {
	hit  Hit
	page PageInfo
	view vision.View // region of the page (raw pixels) and the encoder frame the model's bbox refers to
	crop bool
}

func (p *vragPolicy) run(ctx context.Context, r *run) error {
	p.shown = map[string]bool{}
	p.hits = map[string]Hit{}
	prompt := VRAGPrompt(r.question)
	noTag := vragNoTag
	if !p.crop {
		prompt = ReActPrompt(r.question)
	}
	tags := vragTags
	if r.cfg.Calculator {
		prompt = withCalculator(prompt)
		tags = append(append([]string(nil), vragTags...), "calculate")
		if !p.crop {
			r.tools = []model.Tool{calcTool()}
		}
	}
	var msgs []model.Message
	if r.ctxw.systemLine {
		msgs = append(msgs, model.TextMessage(model.RoleSystem, DefaultSystemLine))
	}
	msgs = append(msgs, model.TextMessage(model.RoleUser, prompt))
	remaining := r.cfg.MaxSteps
	for {
		reply, err := r.call(ctx, msgs)
		if err != nil {
			return err
		}
		act := parseVRAGTags(reply.Content, tags)
		if act.Kind == "bbox" && !p.crop {
			act.Kind = "" // react has no crop action
		}
		if native := p.nativeCalls(r, reply); act.Kind == "" && len(native) > 0 {
			// React's native calculate calls: the assistant turn keeps its calls, each answered by a tool message.
			msgs = append(msgs, assistantMessage(reply))
			for _, tc := range native {
				_, out := r.calculateNative(ctx, tc, p.shownHits())
				msgs = append(msgs, model.Message{Role: model.RoleTool, ToolCallID: tc.ID, Parts: []model.Part{{Text: out}}})
			}
			remaining--
			if remaining == 0 {
				msgs = append(msgs, model.TextMessage(model.RoleUser, vragAnswerNow))
			}
			continue
		}
		msgs = append(msgs, model.TextMessage(model.RoleAssistant, reply.Content))
		if act.Kind == "answer" {
			r.finish(AnswerInfo{Text: act.Content, Citations: p.citations()})
			return nil
		}
		if remaining == 0 {
			r.finish(AnswerInfo{Text: vragSorry, Forced: true, Citations: []Citation{}})
			return nil
		}
		var parts []model.Part
		switch act.Kind {
		case "search":
			r.usage.ToolSteps++
			parts, err = p.search(ctx, r, act.Content)
		case "bbox":
			r.usage.ToolSteps++
			parts, err = p.bbox(ctx, r, act.Content)
		case "calculate":
			_, out := r.calculateBody(ctx, act.Content, "", p.shownHits())
			parts = []model.Part{{Text: out}}
		default:
			r.emitError("invalid_action", "the reply has no <search>, <bbox> or <answer> tag", true)
			parts = []model.Part{{Text: noTag}}
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			var se *stepError
			if !errors.As(err, &se) {
				return err
			}
			// A failed search or render costs the step but not the run: the model is told and may go on.
			r.emitError(se.code, se.Error(), true)
			parts = []model.Part{{Text: "Error: " + se.Error()}}
		}
		remaining--
		if remaining == 0 {
			parts = append(parts, model.Part{Text: vragAnswerNow})
		}
		msgs = append(msgs, model.Message{Role: model.RoleUser, Parts: parts})
	}
}

// search shows the best hit whose page the model has not seen yet, as one image in a user turn.
func (p *vragPolicy) search(ctx context.Context, r *run, query string) ([]model.Part, error) {
	hits, err := r.search(ctx, query, "", r.cfg.TopK)
	if err != nil {
		return nil, err
	}
	res := &ResultsInfo{Query: query, Hits: make([]Hit, len(hits))}
	pick := -1
	for i, h := range hits {
		res.Hits[i] = h.Hit
		res.Hits[i].Shown = false
		switch {
		case p.shown[h.UnitID]:
			res.Hits[i].Skipped = "already_shown"
		case pick < 0:
			pick = i
		default:
			res.Hits[i].Skipped = "limit"
		}
	}
	if pick < 0 {
		r.em.emit(Event{Kind: KindResults, Results: res})
		if len(hits) == 0 {
			return []model.Part{{Text: noResults}}, nil
		}
		return []model.Part{{Text: noNewResults}}, nil
	}
	h := hits[pick].Hit
	info, err := r.a.Renderer.PageInfo(ctx, h.UnitID)
	if err != nil {
		r.em.emit(Event{Kind: KindResults, Results: res})
		return nil, &stepError{"render", fmt.Errorf("page info of unit %s: %w", h.UnitID, err)}
	}
	sendSize := vision.VRAGSize(info.Size)
	img, err := r.a.Renderer.Render(ctx, h.UnitID, vision.Rect{}, sendSize)
	if err != nil {
		r.em.emit(Event{Kind: KindResults, Results: res})
		return nil, &stepError{"render", fmt.Errorf("render unit %s: %w", h.UnitID, err)}
	}
	part, sent, err := r.image(ctx, h.UnitID, img, 0)
	if err != nil {
		return nil, err
	}
	res.Hits[pick].Shown = true
	res.Sent = []SentImage{sent}
	r.em.emit(Event{Kind: KindResults, Results: res})
	p.shown[h.UnitID] = true
	p.hits[h.UnitID] = h
	p.views = append(p.views, seen{hit: h, page: info, view: vision.View{
		Region: vision.Full(info.Size), Encoded: vision.Size{W: sent.EncoderW, H: sent.EncoderH},
	}})
	p.cited = append(p.cited, citationFor(h, nil))
	return []model.Part{part}, nil
}

// bbox crops the last image the model saw. The box is in that image's encoder frame; it maps to raw page pixels
// with 56 px padding, and the region is rendered at VRAG's crop size (from the page itself: sharper than the
// reference's upscaled pixels when the page is vector).
func (p *vragPolicy) bbox(ctx context.Context, r *run, body string) ([]model.Part, error) {
	if len(p.views) == 0 {
		r.emitError("invalid_action", "a <bbox> before any image was retrieved", true)
		return []model.Part{{Text: vragInvalid}}, nil
	}
	box, err := vision.ParseBBox(body)
	if err != nil {
		r.emitError("invalid_action", err.Error(), true)
		return []model.Part{{Text: vragInvalid}}, nil
	}
	last := p.views[len(p.views)-1]
	region, err := vision.MapBBox(last.view, box, vision.CropPad)
	if err != nil {
		r.emitError("invalid_action", err.Error(), true)
		return []model.Part{{Text: vragInvalid}}, nil
	}
	// The reference crops whole pixels of the raw page; its size decides the size the crop is sent at.
	px := vision.PixelRect(region, last.page.Size)
	sendSize := vision.VRAGSize(vision.Size{W: max(1, px.Dx()), H: max(1, px.Dy())})
	img, err := r.a.Renderer.Render(ctx, last.hit.UnitID, region, sendSize)
	if err != nil {
		return nil, &stepError{"render", fmt.Errorf("render crop of unit %s: %w", last.hit.UnitID, err)}
	}
	part, sent, err := r.image(ctx, last.hit.UnitID, img, 0)
	if err != nil {
		return nil, err
	}
	ps := last.page.Size
	norm := [4]float64{region.X0 / float64(ps.W), region.Y0 / float64(ps.H), region.X1 / float64(ps.W), region.Y1 / float64(ps.H)}
	r.em.emit(Event{Kind: KindCrop, Crop: &CropInfo{
		UnitID: last.hit.UnitID, DocumentID: last.hit.DocumentID, DocumentName: last.hit.DocumentName, Page: last.hit.Page,
		BBoxSent: box, FrameW: last.view.Encoded.W, FrameH: last.view.Encoded.H,
		BBoxRaw: region.Array(), PageW: ps.W, PageH: ps.H, Region: norm,
		Image: sent, TrueZoom: last.page.Vector, OfCrop: last.crop,
	}})
	p.views = append(p.views, seen{hit: last.hit, page: last.page, crop: true, view: vision.View{
		Region: region, Encoded: vision.Size{W: sent.EncoderW, H: sent.EncoderH},
	}})
	p.cited = append(p.cited, citationFor(last.hit, &norm))
	return []model.Part{part}, nil
}

// nativeCalls are the reply's native calculate calls (react with the calculator).
func (p *vragPolicy) nativeCalls(r *run, reply model.Delta) []model.ToolCall {
	if !r.cfg.Calculator || p.crop {
		return nil
	}
	var out []model.ToolCall
	for _, tc := range reply.ToolCalls {
		if tc.Name == calcToolName {
			out = append(out, tc)
		}
	}
	return out
}

// shownHits are the pages the model has seen, in the order it saw them.
func (p *vragPolicy) shownHits() []Hit {
	var out []Hit
	seenUnit := map[string]bool{}
	for _, v := range p.views {
		if !seenUnit[v.hit.UnitID] {
			seenUnit[v.hit.UnitID] = true
			out = append(out, v.hit)
		}
	}
	return out
}

// citations lists each unit the model looked at once, most recently viewed first, with its last crop region.
func (p *vragPolicy) citations() []Citation {
	out := []Citation{}
	seenUnit := map[string]bool{}
	for i := len(p.cited) - 1; i >= 0; i-- {
		c := p.cited[i]
		if seenUnit[c.UnitID] {
			continue
		}
		seenUnit[c.UnitID] = true
		out = append(out, c)
	}
	return out
}
