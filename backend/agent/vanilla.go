package agent

import (
	"context"
	"fmt"
	"strings"

	"proofglass/backend/model"
	"proofglass/backend/vision"
)

// vanillaPolicy is the "Vanilla RAG" baseline of the VRAG-RL paper: retrieve the top-k pages for the question, show
// them all, answer once.
type vanillaPolicy struct{}

func (vanillaPolicy) run(ctx context.Context, r *run) error {
	hits, err := r.search(ctx, r.question, "", r.cfg.TopK)
	if err != nil {
		return err
	}
	res := &ResultsInfo{Query: r.question, Hits: make([]Hit, len(hits))}
	var parts []model.Part
	var cites []Citation
	for i, h := range hits {
		res.Hits[i] = h.Hit
		info, err := r.a.Renderer.PageInfo(ctx, h.UnitID)
		if err == nil {
			var part model.Part
			var sent SentImage
			img, rerr := r.a.Renderer.Render(ctx, h.UnitID, vision.Rect{}, vision.VRAGSize(info.Size))
			if rerr == nil {
				part, sent, rerr = r.image(ctx, h.UnitID, img, 0)
			}
			err = rerr
			if err == nil {
				parts = append(parts, part)
				res.Sent = append(res.Sent, sent)
				res.Hits[i].Shown = true
				cites = append(cites, citationFor(h.Hit, nil))
				continue
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.emitError("render", fmt.Sprintf("unit %s: %v", h.UnitID, err), true)
	}
	r.em.emit(Event{Kind: KindResults, Results: res})
	parts = append(parts, model.Part{Text: VanillaPrompt(r.question)})
	var msgs []model.Message
	if r.ctxw.systemLine {
		msgs = append(msgs, model.TextMessage(model.RoleSystem, DefaultSystemLine))
	}
	reply, err := r.call(ctx, append(msgs, model.Message{Role: model.RoleUser, Parts: parts}))
	if err != nil {
		return err
	}
	text := strings.TrimSpace(reply.Content)
	if a := parseVRAG(reply.Content); a.Kind == "answer" {
		text = a.Content
	} else if i := strings.LastIndex(text, "</think>"); i >= 0 {
		text = strings.TrimSpace(text[i+len("</think>"):])
	}
	if cites == nil {
		cites = []Citation{}
	}
	r.finish(AnswerInfo{Text: text, Citations: cites})
	return nil
}
