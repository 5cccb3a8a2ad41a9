// Package transcript prints an agent run's events as a readable text transcript, the same live and on replay.
package transcript

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"proofglass/backend/agent"
	"proofglass/backend/termsafe"
)

const (
	dimOn  = "\x1b[2m"
	dimOff = "\x1b[0m"
)

// Printer writes a transcript event by event. Its output depends only on the events (and the blobs they name), so
// printing a stored run gives the same bytes as watching it live.
type Printer struct {
	W   io.Writer
	Dim bool // thinking in ANSI dim (for a terminal)
	// CropDir receives each crop's image as run-<id>-crop-<seq>.jpg, whose path is printed; empty: not saved.
	CropDir string
	// Blob reads a stored blob; required when CropDir is set.
	Blob func(id string) ([]byte, error)

	step   int
	col0   bool   // the cursor is at the start of a line
	stream string // the kind of the text being streamed: thinking or content
	trim   bool   // drop the newlines a streamed text starts with (they follow a </think> already ended here)
	err    error
}

// New returns a Printer on w.
func New(w io.Writer) *Printer { return &Printer{W: w, col0: true} }

// Err is the first write error.
func (p *Printer) Err() error { return p.err }

// Sink adapts Print to agent.Sink.
func (p *Printer) Sink(ev agent.Event) { _ = p.Print(ev) }

func (p *Printer) printf(format string, a ...any) {
	if p.err != nil {
		return
	}
	s := fmt.Sprintf(format, a...)
	if s == "" {
		return
	}
	_, p.err = io.WriteString(p.W, s)
	p.col0 = strings.HasSuffix(s, "\n")
}

// line ends the streamed text, if any, so a structural line starts at column 0. Its text arguments (file names,
// questions, answers, errors) have their control characters escaped: a document cannot drive the terminal.
func (p *Printer) line(format string, a ...any) {
	for i, v := range a {
		switch v := v.(type) {
		case string:
			a[i] = termsafe.Line(v)
		case error:
			a[i] = termsafe.Line(v.Error())
		}
	}
	p.endStream()
	p.printf(format+"\n", a...)
}

func (p *Printer) endStream() {
	if p.stream == "" {
		return
	}
	if p.stream == "thinking" && p.Dim {
		p.printf("%s", dimOff)
	}
	if !p.col0 {
		p.printf("\n")
	}
	p.stream = ""
}

func (p *Printer) enterStep(ev agent.Event) {
	if ev.Step == 0 || ev.Step == p.step || ev.Kind == agent.KindDone {
		return
	}
	p.step = ev.Step
	p.line("── step %d ──", ev.Step)
}

func (p *Printer) streamText(kind, text string) {
	if p.stream != kind {
		p.endStream()
		p.stream, p.trim = kind, true
		if kind == "thinking" {
			p.printf("thinking: ")
			if p.Dim {
				p.printf("%s", dimOn)
			}
		}
	}
	if p.trim {
		text = strings.TrimLeft(text, "\n")
		p.trim = text == ""
	}
	p.printf("%s", termsafe.Text(text)) // the model's text keeps its lines; nothing else of it reaches the terminal raw
}

// Print writes one event.
func (p *Printer) Print(ev agent.Event) error {
	if p.W == nil {
		return fmt.Errorf("transcript: no writer")
	}
	if p.step == 0 && ev.Kind == agent.KindRunStarted {
		p.col0 = true
	}
	p.enterStep(ev)
	switch ev.Kind {
	case agent.KindRunStarted:
		r := ev.Run
		p.line("run %s · %s · %s", ev.RunID, r.Mode, modelName(r))
		if r.Collection != "" {
			p.line("collection: %s", r.Collection)
		}
		p.line("question: %s", r.Question)
	case agent.KindRewrite:
		p.rewrite(ev.Rewrite)
	case agent.KindThinking:
		p.streamText("thinking", ev.Text)
	case agent.KindContent:
		p.streamText("content", ev.Text)
	case agent.KindSearch:
		if ev.Search.NodeID != "" {
			p.line("search [%s]: %q", ev.Search.NodeID, ev.Search.Query)
		} else {
			p.line("search: %q", ev.Search.Query)
		}
	case agent.KindResults:
		p.results(ev.Results)
	case agent.KindCrop:
		p.crop(ev)
	case agent.KindMemorize:
		m := ev.Memorize
		p.line("memorize [%s]: %s", m.NodeID, m.Summary)
		for _, it := range m.Items {
			kept := ""
			if it.Kept {
				kept = ", kept"
			}
			p.line("  %s %s p.%d: useful=%v priority=%d%s", it.InformationID, it.DocumentName, it.Page, it.Useful, it.Priority, kept)
		}
	case agent.KindGraph:
		g := ev.Graph
		sel := 0
		for _, b := range g.Budgets {
			if b.Selected {
				sel++
			}
		}
		p.line("graph: %d nodes, %d edges, %d memory images (%d px)", len(g.Nodes), len(g.Edges), sel, g.TotalPixels)
	case agent.KindAnswer:
		p.answer(ev.Answer)
	case agent.KindGrounding:
		p.grounding(ev.Grounding)
	case agent.KindCalculation:
		p.calculation(ev.Calculation)
	case agent.KindError:
		e := ev.Error
		kind := "error"
		if e.Recoverable {
			kind = "warning"
		}
		p.line("%s [%s]: %s", kind, e.Code, e.Message)
	case agent.KindDone:
		d := ev.Done
		u := d.Usage
		calls := u.Steps + u.RewriteCalls
		calcs := ""
		if u.Calculations > 0 {
			calcs = fmt.Sprintf(" (%d calculations)", u.Calculations)
		}
		p.line("done: %s · %d model calls, %d tool steps%s, %d images (%d visual tokens), %d prompt + %d completion tokens, %.1f s",
			d.Status, calls, u.ToolSteps, calcs, u.Images, u.VisualTokens, u.PromptTokens, u.CompletionTokens, float64(u.WallMS)/1000)
	default:
		p.line("(%s)", ev.Kind)
	}
	return p.err
}

func modelName(r *agent.RunInfo) string {
	switch {
	case r.Provider != "" && r.Model != "":
		return r.Provider + "/" + r.Model
	case r.Model != "":
		return r.Model
	}
	return "default model"
}

func (p *Printer) results(r *agent.ResultsInfo) {
	if len(r.Hits) == 0 {
		p.line("  no results")
		return
	}
	sent := map[string]agent.SentImage{}
	for _, s := range r.Sent {
		if _, ok := sent[s.UnitID]; !ok {
			sent[s.UnitID] = s
		}
	}
	for i, h := range r.Hits {
		mark := " "
		note := ""
		switch {
		case h.Shown:
			mark = "*"
			if s, ok := sent[h.UnitID]; ok {
				note = fmt.Sprintf(" → sent %dx%d, %d visual tokens", s.Image.Width, s.Image.Height, s.VisualTokens)
			}
		case h.Skipped != "":
			note = " (" + strings.ReplaceAll(h.Skipped, "_", " ") + ")"
		}
		label := ""
		if h.Label != "" {
			label = h.Label + ": "
		}
		score := fmt.Sprintf("score %.4f", h.Score)
		if h.Rerank != nil {
			score = fmt.Sprintf("rerank %.4f (was #%d)", *h.Rerank, h.FirstRank)
		}
		p.line("  %s %d. %s%s%s %s%s", mark, i+1, label, h.DocumentName, where(h.Kind, h.Page, h.StartS, h.EndS), score, note)
	}
}

func where(kind string, page int, start, end float64) string {
	switch kind {
	case "video":
		return fmt.Sprintf(" clip %d [%.1f–%.1f s]", page, start, end)
	case "image":
		return ""
	}
	return fmt.Sprintf(" p.%d", page)
}

func (p *Printer) crop(ev agent.Event) {
	c := ev.Crop
	how := "cut from pixels"
	if c.TrueZoom {
		how = "re-rendered (true zoom)"
	}
	of := ""
	if c.OfCrop {
		of = " of the previous crop"
	}
	p.line("crop: %s p.%d, box %s%s in the %dx%d view → %s of the %dx%d page, %s, sent %dx%d",
		c.DocumentName, c.Page, nums(c.BBoxSent[:], "%.0f"), of, c.FrameW, c.FrameH, nums(c.BBoxRaw[:], "%.0f"),
		c.PageW, c.PageH, how, c.Image.Image.Width, c.Image.Image.Height)
	if p.CropDir == "" || p.Blob == nil {
		return
	}
	path := filepath.Join(p.CropDir, fmt.Sprintf("run-%s-crop-%03d.jpg", ev.RunID, ev.Seq))
	if err := p.save(path, c.Image.Image.Blob); err != nil {
		p.line("  crop image not saved: %v", err)
		return
	}
	p.line("  saved %s", path)
}

func (p *Printer) save(path, blob string) error {
	data, err := p.Blob(blob)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("crop folder: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write crop %s: %w", path, err)
	}
	return nil
}

func (p *Printer) answer(a *agent.AnswerInfo) {
	forced := ""
	if a.Forced {
		forced = " (step limit reached)"
	}
	p.line("answer%s:", forced)
	for _, l := range strings.Split(a.Text, "\n") {
		p.line("  %s", l)
	}
	for i, c := range a.Citations {
		region := ""
		if c.Region != nil {
			region = ", region " + nums(c.Region[:], "%.3f")
		}
		p.line("  [%d] %s p.%d (unit %s)%s", i+1, c.DocumentName, c.Page, c.UnitID, region)
	}
}

// grounding prints the grounding footer: the summary, then each claim with a mark: ✓ found in the cited evidence,
// ~ found only elsewhere, ✗ a mismatch, ? not found.
func (p *Printer) grounding(g *agent.GroundingInfo) {
	p.line("grounding: %s", g.Summary)
	for _, c := range g.Claims {
		switch c.Status {
		case agent.GroundRegion, agent.GroundCitedPage:
			p.line("  ✓ %s: %s", c.Text, c.Note)
		case agent.GroundComputed:
			p.line("  = %s: %s", c.Text, c.Note)
		case agent.GroundElsewhere:
			p.line("  ~ %s: %s", c.Text, c.Note)
		case agent.GroundMismatch:
			p.line("  ✗ mismatch: %s", c.Note)
		default:
			p.line("  ? %s: %s", c.Text, c.Note)
		}
	}
}

// calculation prints a calculator call: its expression and result (or error), then each operand with its source.
func (p *Printer) calculation(c *agent.CalculationInfo) {
	node := ""
	if c.NodeID != "" {
		node = " [" + c.NodeID + "]"
	}
	if c.Error != "" {
		p.line("calculate %s%s: %s → error [%s]: %s", c.ID, node, c.Expression, c.ErrorKind, c.Error)
	} else {
		p.line("calculate %s%s: %s = %s", c.ID, node, c.Expression, c.Text)
	}
	for _, op := range c.Operands {
		src := ""
		if s := op.Source; s != nil {
			var where []string
			if s.DocumentName != "" {
				where = append(where, s.DocumentName)
			}
			if s.Page > 0 {
				where = append(where, fmt.Sprintf("p.%d", s.Page))
			}
			if s.Cell != "" {
				where = append(where, s.Cell)
			}
			if s.Region != nil {
				where = append(where, "region "+nums(s.Region[:], "%.3f"))
			}
			if len(where) > 0 {
				src = " (" + strings.Join(where, " ") + ")"
			}
		}
		p.line("  %s = %s%s", op.Name, op.Value, src)
	}
}

func nums(v []float64, f string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf(f, x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// rewrite prints how a question of a conversation was understood.
func (p *Printer) rewrite(r *agent.RewriteInfo) {
	switch {
	case r.Rewritten:
		p.line("understood as: %s", r.Question)
	case r.Error != "":
		p.line("note: the follow-up could not be rewritten (%s); answering it as asked", r.Error)
	case r.Reason == "off":
		p.line("follow-up rewriting is off: answering the question as asked")
	}
	if len(r.Prefer) > 0 {
		names := make([]string, len(r.Prefer))
		for i, d := range r.Prefer {
			names[i] = d.Name
		}
		p.line("searching first in: %s", strings.Join(names, ", "))
	}
}
