package agent

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"proofglass/backend/model"
	"proofglass/backend/vision"
)

// VimRAG's per-item limits (vrag.md §2b, §5.6).
const (
	vimragImagePixels = 1003520 // 980·32²: one retrieved image
	vimragFramePixels = 401408  // 392·32²: one video frame
	vimragFPS         = 1.0
	vimragMaxFrames   = 32
	vimragMaxTokens   = 4096
	memoryHeader      = "### Multimodal Memory\nHistorical information for reference only.\n"
)

// vimragPolicy is the VimRAG agent: a DAG of search nodes built through three tools, the context rebuilt from the
// question, the graph and energy-weighted memory images after every node.
type vimragPolicy struct {
	g       *memGraph
	mem     map[string][]*memItem
	pending *pendingSearch // a search node awaiting summarize_and_memorize
	cache   map[string]memImage
	shown   []Hit // every result shown, for resolving calculator operands' pages
}

type pendingSearch struct {
	id      string
	parents []string
	query   string
	args    *object
	labels  map[string]*resultItem // normalised information_id → item
	shown   []Hit
}

// resultItem is one search result as labelled for the model.
type resultItem struct {
	label  string // "Picture 1"
	hit    Hit
	text   string // for a text item
	video  bool
	frames []Frame // the frames shown, for a video
}

type memImage struct {
	part model.Part
	sent SentImage
}

func normLabel(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), ""))
}

func (p *vimragPolicy) run(ctx context.Context, r *run) error {
	p.g = newMemGraph(r.question)
	p.mem = map[string][]*memItem{}
	p.cache = map[string]memImage{}
	p.emitGraph(r, nil)
	var msgs []model.Message
	rebuild := true
	for step := 0; step < r.cfg.MaxSteps; step++ {
		if rebuild {
			var err error
			if msgs, err = p.context(ctx, r); err != nil {
				return err
			}
			rebuild = false
		}
		reply, err := r.call(ctx, msgs)
		if err != nil {
			return err
		}
		assistant := assistantMessage(reply)
		tc, perr := parseToolCallText(reply.Content)
		if perr != nil && len(reply.ToolCalls) > 0 {
			tc, perr = parseNativeToolCall(reply.ToolCalls[0])
		}
		if perr != nil {
			msgs = p.correct(r, msgs, assistant, "parse", fmt.Sprintf("failed to parse a tool call: %v", perr))
			continue
		}
		switch tc.Name {
		case "add_search_node":
			extra, err := p.searchNode(ctx, r, tc.Args)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				code := "graph"
				var se *stepError
				if errors.As(err, &se) {
					code = se.code
				}
				msgs = p.correct(r, msgs, assistant, code, err.Error())
				continue
			}
			msgs = append(msgs, assistant)
			msgs = append(msgs, extra...)
		case "summarize_and_memorize":
			if err := p.memorize(ctx, r, tc.Args); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				msgs = p.correct(r, msgs, assistant, "graph", err.Error())
				continue
			}
			rebuild = true
		case calcToolName:
			if !r.cfg.Calculator {
				msgs = p.correct(r, msgs, assistant, "invalid_action", fmt.Sprintf("unknown function %q", tc.Name))
				continue
			}
			msgs = append(msgs, assistant, p.calculate(ctx, r, tc.Args))
		case "add_answer_node":
			answer := strings.TrimSpace(argString(tc.Args, "answer"))
			if answer == "" {
				msgs = p.correct(r, msgs, assistant, "invalid_action", "add_answer_node needs a non-empty answer")
				continue
			}
			p.answer(r, tc.Args, answer)
			return nil
		default:
			msgs = p.correct(r, msgs, assistant, "invalid_action", fmt.Sprintf("unknown function %q", tc.Name))
		}
	}
	r.emitError("max_steps", "Reached maximum steps", false)
	return nil
}

// correct tells the model why its last turn could not be executed; the turn still cost a step.
func (p *vimragPolicy) correct(r *run, msgs []model.Message, assistant model.Message, code, reason string) []model.Message {
	r.emitError(code, reason, true)
	text := "Your previous response could not be executed: " + reason + ". Respond with exactly one function call " +
		"inside <tool_call></tool_call> XML tags: add_search_node, summarize_and_memorize or add_answer_node."
	if r.cfg.Calculator {
		text = strings.Replace(text, "summarize_and_memorize or add_answer_node", "summarize_and_memorize, calculate or add_answer_node", 1)
	}
	if p.pending != nil {
		text += fmt.Sprintf(" The search node %q is still waiting for summarize_and_memorize.", p.pending.id)
	}
	return append(msgs, assistant, model.TextMessage(model.RoleUser, text))
}

// context rebuilds the conversation from scratch: system prompt, then the question with the graph JSON and the
// selected memory images grouped by node.
func (p *vimragPolicy) context(ctx context.Context, r *run) ([]model.Message, error) {
	parts := []model.Part{{Text: VimRAGUserPrompt(r.question, p.g.json())}}
	scored := score(p.g, p.mem, r.cfg.MemoryPixels)
	if len(scored) > 0 {
		parts = append(parts, model.Part{Text: memoryHeader})
		byNode := map[string][]*scoredItem{}
		for _, s := range scored {
			if s.Selected {
				byNode[s.NodeID] = append(byNode[s.NodeID], s)
			}
		}
		for _, n := range p.g.nodes[1:] {
			items := byNode[n.ID]
			if len(items) == 0 {
				continue
			}
			parts = append(parts, model.Part{Text: "Node: " + n.ID})
			for _, s := range items {
				imgs, err := p.memoryImages(ctx, r, s)
				if err != nil {
					if ctx.Err() != nil {
						return nil, ctx.Err()
					}
					r.emitError("render", err.Error(), true)
					continue
				}
				parts = append(parts, imgs...)
			}
		}
	}
	system := VimRAGSystemPrompt()
	if r.cfg.Calculator {
		system = vimragSystemWithCalculator()
	}
	return []model.Message{
		model.TextMessage(model.RoleSystem, system),
		{Role: model.RoleUser, Parts: parts},
	}, nil
}

// memoryImages renders one selected item within its pixel allowance (per frame for a video), JPEG ≤ 38 KB.
func (p *vimragPolicy) memoryImages(ctx context.Context, r *run, s *scoredItem) ([]model.Part, error) {
	if s.Video {
		var parts []model.Part
		for _, f := range s.Frames {
			key := fmt.Sprintf("%s@%.3f/%d", s.Hit.UnitID, f.TimestampS, s.Pixels)
			mi, ok := p.cache[key]
			if !ok {
				part, sent, err := r.image(ctx, s.Hit.UnitID, vision.FitImage(f.Image, s.Pixels), vision.MemoryJPEGBytes)
				if err != nil {
					return nil, err
				}
				ts := f.TimestampS
				sent.TimestampS = &ts
				mi = memImage{part, sent}
				p.cache[key] = mi
			}
			parts = append(parts, mi.part)
		}
		return parts, nil
	}
	key := fmt.Sprintf("%s/%d", s.Hit.UnitID, s.Pixels)
	if mi, ok := p.cache[key]; ok {
		return []model.Part{mi.part}, nil
	}
	part, sent, err := p.renderPage(ctx, r, s.Hit.UnitID, s.Pixels)
	if err != nil {
		return nil, err
	}
	p.cache[key] = memImage{part, sent}
	return []model.Part{part}, nil
}

// renderPage renders a unit's whole page at most maxPixels, JPEG ≤ 38 KB.
func (p *vimragPolicy) renderPage(ctx context.Context, r *run, unitID string, maxPixels int) (model.Part, SentImage, error) {
	info, err := r.a.Renderer.PageInfo(ctx, unitID)
	if err != nil {
		return model.Part{}, SentImage{}, &stepError{"render", fmt.Errorf("page info of unit %s: %w", unitID, err)}
	}
	img, err := r.a.Renderer.Render(ctx, unitID, vision.Rect{}, vision.FitPixels(info.Size, 0, maxPixels))
	if err != nil {
		return model.Part{}, SentImage{}, &stepError{"render", fmt.Errorf("render unit %s: %w", unitID, err)}
	}
	return r.image(ctx, unitID, img, vision.MemoryJPEGBytes)
}

// searchNode validates a new search node, runs its query and formats the results like format_search_results:
// texts, then pictures, then videos, numbered within each kind. It returns the tool-response and summary turns.
func (p *vimragPolicy) searchNode(ctx context.Context, r *run, args *object) ([]model.Message, error) {
	if p.pending != nil {
		return nil, fmt.Errorf("%w: call summarize_and_memorize for node %q before adding another search node", errGraph, p.pending.id)
	}
	id := strings.TrimSpace(argString(args, "id"))
	parents, present := argStrings(args, "parent_ids")
	if !present {
		parents = []string{"root"} // the reference UI's default
	}
	query := strings.TrimSpace(argString(args, "query"))
	if err := p.g.checkNew(id, parents); err != nil {
		return nil, err
	}
	if query == "" {
		return nil, fmt.Errorf("%w: search node %q has an empty query", errGraph, id)
	}
	r.usage.ToolSteps++
	hits, err := r.search(ctx, query, id, r.cfg.TopK)
	if err != nil {
		return nil, err
	}
	ps := &pendingSearch{id: id, parents: parents, query: query, args: args.clone(), labels: map[string]*resultItem{}}
	res := &ResultsInfo{Query: query, NodeID: id, Hits: make([]Hit, len(hits))}
	var texts, pics, vids []*resultItem
	for i, h := range hits {
		res.Hits[i] = h.Hit
		it := &resultItem{hit: h.Hit, text: h.Text}
		switch {
		case h.Kind == "text":
			texts = append(texts, it)
			it.label = fmt.Sprintf("Text %d", len(texts))
		case h.Kind == "video" && r.a.Frames != nil:
			vids = append(vids, it)
			it.label = fmt.Sprintf("Video %d", len(vids))
			it.video = true
		default:
			pics = append(pics, it)
			it.label = fmt.Sprintf("Picture %d", len(pics))
		}
		res.Hits[i].Label = it.label
		ps.labels[normLabel(it.label)] = it
	}
	parts := []model.Part{{Text: "<tool_response>\nHere are the retrieved information:"}}
	shownIdx := func(it *resultItem) {
		for i := range res.Hits {
			if res.Hits[i].Label == it.label {
				res.Hits[i].Shown = true
			}
		}
		ps.shown = append(ps.shown, it.hit)
		p.shown = append(p.shown, it.hit)
	}
	for _, it := range texts {
		parts = append(parts, model.Part{Text: it.label + ":"}, model.Part{Text: it.text})
		shownIdx(it)
	}
	for _, it := range pics {
		part, sent, err := p.renderPage(ctx, r, it.hit.UnitID, vimragImagePixels)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			r.emitError("render", err.Error(), true)
			continue
		}
		parts = append(parts, model.Part{Text: it.label + ":"}, part)
		res.Sent = append(res.Sent, sent)
		shownIdx(it)
	}
	for _, it := range vids {
		frames, err := r.a.Frames.Frames(ctx, it.hit.UnitID, vimragFPS, vimragMaxFrames)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			r.emitError("render", fmt.Sprintf("frames of unit %s: %v", it.hit.UnitID, err), true)
			continue
		}
		parts = append(parts, model.Part{Text: it.label + ":"})
		for _, f := range frames {
			part, sent, err := r.image(ctx, it.hit.UnitID, vision.FitImage(f.Image, vimragFramePixels), vision.MemoryJPEGBytes)
			if err != nil {
				return nil, err
			}
			ts := f.TimestampS
			sent.TimestampS = &ts
			parts = append(parts, model.Part{Text: frameLabel(ts)}, part)
			res.Sent = append(res.Sent, sent)
		}
		it.frames = frames
		shownIdx(it)
	}
	parts = append(parts, model.Part{Text: "\n</tool_response>"})
	r.em.emit(Event{Kind: KindResults, Results: res})
	p.pending = ps
	return []model.Message{
		{Role: model.RoleUser, Parts: parts},
		model.TextMessage(model.RoleUser, VimRAGSummaryPrompt()),
	}, nil
}

// calculate runs a calculate call. A result becomes a calculation node of the graph (its parents the call's
// parent_ids, else the newest node) and goes back as a <tool_response>; so does an error, without a node.
func (p *vimragPolicy) calculate(ctx context.Context, r *run, args *object) model.Message {
	valid := p.parentsOf(args)
	id := fmt.Sprintf("calculation %d", r.calcN+1)
	for p.g.byID[id] != nil {
		id += "'"
	}
	info, out := r.calculate(ctx, args, id, p.shown)
	if info.Error == "" {
		data := newObject()
		data.set("id", id)
		data.set("parent_ids", valid)
		data.set("expression", info.Expression)
		data.set("result", info.Text)
		p.g.add(&gnode{ID: id, Type: "calculation", Parents: valid, Expression: info.Expression, Result: info.Text, Data: data})
		p.emitGraph(r, nil)
	} else {
		info.NodeID = ""
	}
	return model.TextMessage(model.RoleUser, "<tool_response>\n"+out+"\n</tool_response>")
}

// frameLabel is how a frame's time is shown to the model, and how key_timestamp values are matched back.
func frameLabel(ts float64) string { return fmt.Sprintf("<%.1f seconds>", ts) }

// memorize closes the pending search node: its summary joins the graph and the useful images and video frames
// become visual memory.
func (p *vimragPolicy) memorize(ctx context.Context, r *run, args *object) error {
	ps := p.pending
	if ps == nil {
		return fmt.Errorf("%w: summarize_and_memorize needs a search node to close; call add_search_node first", errGraph)
	}
	r.usage.ToolSteps++
	summary := argString(args, "summarize")
	info := &MemorizeInfo{NodeID: ps.id, Summary: summary, Items: []MemoryItem{}}
	var kept []*memItem
	list, _ := args.get("memorize")
	entries, _ := list.([]any)
	for _, e := range entries {
		o, ok := e.(*object)
		if !ok {
			continue
		}
		mi := MemoryItem{
			InformationID: argString(o, "information_id"),
			Useful:        argBool(o, "is_useful"),
			KeyTimestamps: argNumbers(o, "key_timestamp"),
		}
		if pr := argNumbers(o, "priority_score"); len(pr) > 0 {
			mi.Priority = min(5, max(1, int(pr[0]+0.5)))
		} else {
			mi.Priority = 1
		}
		it := ps.labels[normLabel(mi.InformationID)]
		if it != nil {
			mi.UnitID, mi.Page, mi.DocumentName = it.hit.UnitID, it.hit.Page, it.hit.DocumentName
		}
		if it != nil && mi.Useful && it.hit.Kind != "text" {
			m := &memItem{NodeID: ps.id, InfoID: it.label, Hit: it.hit, Priority: mi.Priority, Video: it.video}
			if it.video {
				// Keep only frames whose shown label the model named exactly (the reference compares "%.1f" strings).
				want := map[string]bool{}
				for _, ts := range mi.KeyTimestamps {
					want[frameLabel(ts)] = true
				}
				for _, f := range it.frames {
					if want[frameLabel(f.TimestampS)] {
						m.Frames = append(m.Frames, f)
						mi.Frames = append(mi.Frames, f.TimestampS)
					}
				}
			}
			if !it.video || len(m.Frames) > 0 {
				mi.Kept = true
				kept = append(kept, m)
			}
		}
		info.Items = append(info.Items, mi)
	}
	data := ps.args
	data.set("summary", summary)
	p.g.add(&gnode{ID: ps.id, Type: "search", Parents: ps.parents, Query: ps.query, Summary: summary, Data: data})
	if len(kept) > 0 {
		p.mem[ps.id] = kept
	}
	p.pending = nil
	r.em.emit(Event{Kind: KindMemorize, Memorize: info})
	p.emitGraph(r, nil)
	return nil
}

// parentsOf are the call's parent_ids that name nodes of the graph, else the newest node.
func (p *vimragPolicy) parentsOf(args *object) []string {
	parents, _ := argStrings(args, "parent_ids")
	var valid []string
	for _, id := range parents {
		if p.g.byID[id] != nil {
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 {
		valid = []string{p.g.nodes[len(p.g.nodes)-1].ID}
	}
	return valid
}

// answer closes the graph with the answer node and cites the memory the answer rests on.
func (p *vimragPolicy) answer(r *run, args *object, text string) {
	valid := p.parentsOf(args)
	data := newObject()
	data.set("id", "answer")
	data.set("parent_ids", valid)
	ans := &gnode{ID: "answer", Type: "answer", Parents: valid, Answer: text, Data: data}
	scored := score(p.g, p.mem, r.cfg.MemoryPixels)
	p.g.add(ans)
	p.emitGraph(r, scored)
	r.finish(AnswerInfo{Text: text, Citations: p.citations(scored, valid)})
}

// citations: the memory items of the answer's parents, else all memory, by Ω; else the pages of an open search.
func (p *vimragPolicy) citations(scored []*scoredItem, parents []string) []Citation {
	isParent := map[string]bool{}
	for _, id := range parents {
		isParent[id] = true
	}
	pick := func(onlyParents bool) []*scoredItem {
		var out []*scoredItem
		for _, s := range scored {
			if !onlyParents || isParent[s.NodeID] {
				out = append(out, s)
			}
		}
		sort.SliceStable(out, func(a, b int) bool { return out[a].Omega > out[b].Omega })
		return out
	}
	items := pick(true)
	if len(items) == 0 {
		items = pick(false)
	}
	out := []Citation{}
	seen := map[string]bool{}
	for _, s := range items {
		if !seen[s.Hit.UnitID] {
			seen[s.Hit.UnitID] = true
			out = append(out, citationFor(s.Hit, nil))
		}
	}
	if len(out) == 0 && p.pending != nil {
		for _, h := range p.pending.shown {
			if !seen[h.UnitID] {
				seen[h.UnitID] = true
				out = append(out, citationFor(h, nil))
			}
		}
	}
	return out
}

// emitGraph sends the graph with the current memory budgets.
func (p *vimragPolicy) emitGraph(r *run, scored []*scoredItem) {
	if scored == nil {
		scored = score(p.g, p.mem, r.cfg.MemoryPixels)
	}
	gi := p.g.info()
	gi.TotalPixels = r.cfg.MemoryPixels
	for _, s := range scored {
		b := Budget{NodeID: s.NodeID, InformationID: s.InfoID, UnitID: s.Hit.UnitID, Energy: s.E, Omega: s.Omega,
			Selected: s.Selected, Pixels: s.Pixels}
		if s.Selected && s.Pixels > 0 {
			n := 1
			if s.Video {
				n = len(s.Frames)
			}
			// An upper bound: the page's aspect ratio is not known here.
			b.VisualTokens = n * (s.Pixels / (r.cfg.Encoder.Factor * r.cfg.Encoder.Factor))
		}
		gi.Budgets = append(gi.Budgets, b)
	}
	r.em.emit(Event{Kind: KindGraph, Graph: &gi})
}
