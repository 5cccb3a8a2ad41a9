package summary

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"proofglass/backend/agent"
	"proofglass/backend/grounding"
	"proofglass/backend/kb"
	"proofglass/backend/model"
)

// Options shape one summary.
type Options struct {
	// Model is the chat model's name, sent with the request.
	Model string
	// NumCtx is the context window the model is asked to load with and the page text is sized to (0: 2048, what
	// the smallest local models load with).
	NumCtx int
	// MaxTokens bounds the reply (0: 400).
	MaxTokens int
	// Timeout bounds the model call (0: 3 minutes).
	Timeout time.Duration
	// Refresh asks the model again even when a summary is stored.
	Refresh bool
}

// Statement is a sentence of the summary or one of its key figures, with the pages it cites and its figures
// checked against them.
type Statement struct {
	Text  string `json:"text"` // as the model wrote it, its citations taken out
	Pages []int  `json:"pages"`
	// Claims are the statement's figures and names, each checked against the cited pages (agent.Ground*: cited_page,
	// mismatch, elsewhere, not_found), with where the words were found.
	Claims []Claim `json:"claims"`
}

// Claim is one checked figure or name of a statement.
type Claim struct {
	agent.GroundedClaim
	// Page is where the claim's words were found (for a mismatch, the differing words).
	Page int `json:"page,omitempty"`
	// Region is those words' box on Page, 0..1 of the page.
	Region *Region `json:"region,omitempty"`
}

// Summary is a model's short summary of a document, with its key figures, each checked against the pages cited.
type Summary struct {
	DocumentID int64       `json:"document_id"`
	Name       string      `json:"name"`
	Model      string      `json:"model"`
	Sentences  []Statement `json:"sentences"`
	KeyFigures []Statement `json:"key_figures"`
	// Figures counts the checked figures; Grounded those found on a page their statement cites; Mismatched those
	// the cited page has a different value for.
	Figures    int `json:"figures"`
	Grounded   int `json:"grounded"`
	Mismatched int `json:"mismatched"`
	// PagesRead are the pages whose text the model was given.
	PagesRead []int `json:"pages_read"`
	// Shrunk counts the times the page text was cut further because the server counted more tokens in it than
	// fit the window with the reply.
	Shrunk    int       `json:"shrunk,omitempty"`
	Created   time.Time `json:"created"`
	ElapsedMS int64     `json:"elapsed_ms"`
	// Cached says the summary is the stored one, not asked for now.
	Cached bool `json:"cached"`
	// Outline is the document's outline, read offline, which comes with every summary, a failed one too.
	Outline Glance `json:"outline"`
}

// ErrNoModel is returned (wrapped) when no chat model was given.
var ErrNoModel = errors.New("no chat model configured")

const (
	defaultNumCtx    = 2048
	defaultMaxTokens = 400
	defaultTimeout   = 3 * time.Minute
	// promptTokens is what the instructions and the outline take of the window, near enough.
	promptTokens = 350
	// restPages bounds the pages read when a figure is not on the page cited.
	restPages = 400
	// maxShrinks bounds the times the page text is cut further because the server counted more tokens than fit.
	maxShrinks = 3
)

const systemPrompt = `You summarise one document for a reader, from the page texts you are given and nothing else.
Answer in exactly this form, in the language of the document:
SUMMARY:
<3 to 5 short sentences, one a line, each ending with the page it comes from, as [p. 3]>
KEY FIGURES:
- <a figure copied exactly as the page writes it, with its unit> — <what it measures> [p. 3]
(up to 5 figures)
Write nothing else. Never invent a figure.`

// Summarize asks chat for a short summary of a document and its key figures, checks each figure against the page
// it cites, and stores the result; a stored summary is returned at once unless opts.Refresh. The outline is always
// read and returned, also with an error when the model fails or times out.
func Summarize(ctx context.Context, k *kb.KB, chat model.Chat, docID int64, opts Options) (Summary, error) {
	start := time.Now()
	g, err := Outline(ctx, k, docID)
	if err != nil {
		return Summary{}, err
	}
	out := Summary{DocumentID: docID, Name: g.Name, Outline: g, Sentences: []Statement{}, KeyFigures: []Statement{}, PagesRead: []int{}}
	if !opts.Refresh {
		if s, ok := stored(ctx, k, docID, opts.Model); ok {
			s.Outline, s.Cached, s.Name = g, true, g.Name
			return s, nil
		}
	}
	if chat == nil || opts.Model == "" {
		return out, fmt.Errorf("summarize document %d (%s): %w: choose a model, or set a provider's chat_model", docID, g.Name, ErrNoModel)
	}
	numCtx := opts.NumCtx
	if numCtx <= 0 {
		numCtx = defaultNumCtx
	}
	maxTokens := opts.MaxTokens
	if maxTokens <= 0 {
		maxTokens = defaultMaxTokens
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	mctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The text is sized by an estimate of the model's tokens; when the server counts more (a tokenizer that cuts
	// text finer), so that the prompt and the reply would not fit the window, it is asked again with less text.
	budget := max(256, numCtx-maxTokens-promptTokens)
	var reply model.Delta
	for attempt := 0; ; attempt++ {
		user, pages, err := promptText(ctx, k, g, budget)
		if err != nil {
			return out, fmt.Errorf("summarize document %d (%s): %w", docID, g.Name, err)
		}
		out.PagesRead = pages
		req := model.Request{Model: opts.Model, Messages: []model.Message{
			model.TextMessage(model.RoleSystem, systemPrompt), model.TextMessage(model.RoleUser, user)},
			Options: model.Options{NumCtx: numCtx, MaxTokens: maxTokens, Temperature: model.Float(0), Think: model.Bool(false)}}
		st, err := chat.Chat(mctx, req)
		if err == nil {
			reply, err = model.Collect(st)
		}
		if err != nil {
			if errors.Is(mctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
				err = fmt.Errorf("the model did not answer within %v: %w", timeout, err)
			}
			return out, fmt.Errorf("summarize document %d (%s) with %s: %w", docID, g.Name, opts.Model, err)
		}
		u := reply.Usage
		if u == nil || u.PromptTokens+maxTokens <= numCtx || attempt >= maxShrinks || budget <= 256 {
			break
		}
		estimated := estimateTokens(systemPrompt) + estimateTokens(user)
		budget = max(256, budget*estimated*3/(4*max(1, u.PromptTokens)))
		out.Shrunk++
	}
	sentences, figures := parseReply(reply.Content)
	if len(sentences) == 0 && len(figures) == 0 {
		return out, fmt.Errorf("summarize document %d (%s) with %s: the model's reply holds no summary: %q", docID, g.Name,
			opts.Model, clip(reply.Content, 200))
	}
	gr := &grounder{k: k, docID: docID, name: g.Name, pages: map[int]*grounding.Page{}}
	for _, list := range []*[]Statement{&sentences, &figures} {
		for i := range *list {
			if err := gr.check(ctx, &(*list)[i]); err != nil {
				return out, fmt.Errorf("summarize document %d (%s): %w", docID, g.Name, err)
			}
		}
	}
	out.Sentences, out.KeyFigures, out.Model = sentences, figures, opts.Model
	out.count()
	out.Created = time.Now()
	out.ElapsedMS = time.Since(start).Milliseconds()
	if err := store(ctx, k, out); err != nil {
		return out, fmt.Errorf("summarize document %d (%s): %w", docID, g.Name, err)
	}
	return out, nil
}

// Stored is a document's stored summary with its outline, or false when it has none.
func Stored(ctx context.Context, k *kb.KB, docID int64) (Summary, bool, error) {
	g, err := Outline(ctx, k, docID)
	if err != nil {
		return Summary{}, false, err
	}
	s, ok := stored(ctx, k, docID, "")
	if !ok {
		return Summary{DocumentID: docID, Name: g.Name, Outline: g, Sentences: []Statement{}, KeyFigures: []Statement{}}, false, nil
	}
	s.Outline, s.Cached, s.Name = g, true, g.Name
	return s, true, nil
}

func (s *Summary) count() {
	s.Figures, s.Grounded, s.Mismatched = 0, 0, 0
	for _, list := range [][]Statement{s.Sentences, s.KeyFigures} {
		for _, st := range list {
			for _, c := range st.Claims {
				if c.Kind == "quote" || c.Kind == "name" {
					continue
				}
				s.Figures++
				switch c.Status {
				case agent.GroundRegion, agent.GroundCitedPage:
					s.Grounded++
				case agent.GroundMismatch:
					s.Mismatched++
				}
			}
		}
	}
}

// stored reads the stored summary of a document, when there is one by wantModel ("" any).
func stored(ctx context.Context, k *kb.KB, docID int64, wantModel string) (Summary, bool) {
	row, err := k.Docs.DocumentSummary(ctx, docID)
	if err != nil || wantModel != "" && row.Model != wantModel {
		return Summary{}, false
	}
	var s Summary
	if err := json.Unmarshal([]byte(row.Body), &s); err != nil {
		return Summary{}, false // written by another version: ask again
	}
	return s, true
}

func store(ctx context.Context, k *kb.KB, s Summary) error {
	s.Outline, s.Cached = Glance{}, false
	body, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode summary: %w", err)
	}
	return k.Docs.PutDocumentSummary(ctx, kb.DocumentSummary{DocumentID: s.DocumentID, Model: s.Model, Body: string(body),
		Created: s.Created})
}

// estimateTokens is a cautious count of the tokens text takes: a CJK character one, other text one per 3.5 bytes.
func estimateTokens(s string) int {
	cjk, other := 0, 0
	for _, r := range s {
		if isCJK(r) {
			cjk++
		} else {
			other += utf8.RuneLen(r)
		}
	}
	return cjk + (other*2+6)/7
}

// clipTokens cuts s to about n tokens.
func clipTokens(s string, n int) string {
	if estimateTokens(s) <= n {
		return s
	}
	rs := []rune(s)
	lo, hi := 0, len(rs)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if estimateTokens(string(rs[:mid])) <= n {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return string(rs[:lo])
}

// promptText is the user message: the outline's section titles, then the first pages' text, page by page, sized
// to budget tokens; and the pages it holds.
func promptText(ctx context.Context, k *kb.KB, g Glance, budget int) (string, []int, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Document: %s (%d pages)\n", g.Name, g.Pages)
	if g.Title != "" {
		fmt.Fprintf(&b, "Title: %s\n", g.Title)
	}
	if len(g.Sections) > 0 {
		var titles []string
		for _, s := range g.Sections {
			titles = append(titles, fmt.Sprintf("%s (p. %d)", strings.TrimSpace(s.Number+" "+s.Title), s.Page))
		}
		b.WriteString("Sections: " + clipTokens(strings.Join(titles, "; "), budget/6) + "\n")
	}
	left := budget - estimateTokens(b.String())
	perPage := max(120, left/3) // at least three pages' worth where there are three
	var pages []int
	err := k.Content.EachUnitText(ctx, g.DocumentID, func(u kb.Unit) bool {
		text := strings.Join(strings.Fields(u.Text), " ")
		if text == "" {
			return true
		}
		head := fmt.Sprintf("\n[p. %d]\n", u.Ordinal)
		room := min(perPage, left-estimateTokens(head))
		if room < 60 {
			return false
		}
		text = clipTokens(text, room)
		b.WriteString(head + text + "\n")
		left -= estimateTokens(head + text)
		pages = append(pages, u.Ordinal)
		return left > 60
	})
	if err != nil {
		return "", nil, fmt.Errorf("read the pages: %w", err)
	}
	if len(pages) == 0 {
		return "", nil, fmt.Errorf("the document has no text to summarise (a scan ingested without OCR?)")
	}
	return b.String(), pages, nil
}

var (
	citeRE    = regexp.MustCompile(`[\[(（【]\s*(?:p{1,2}\.?|pages?|第)\s*(\d{1,5})(?:\s*[-–,，、]\s*(\d{1,5}))*\s*页?\s*[\])）】]`)
	headerRE  = regexp.MustCompile(`(?i)^[#*\s]*(summary|key figures|摘要|总结|关键数字|关键数据|主要数据)[*\s]*[:：]?[*\s]*$`)
	bulletRE  = regexp.MustCompile(`^\s*(?:[-*•·]|\d{1,2}[.)])\s+`)
	numInCite = regexp.MustCompile(`\d{1,5}`)
)

// parseReply reads the model's reply: the lines under SUMMARY: and KEY FIGURES:, each with the pages it cites.
// A reply without the headers is read as sentences, its bulleted lines as key figures.
func parseReply(reply string) (sentences, figures []Statement) {
	sentences, figures = []Statement{}, []Statement{}
	section := ""
	for _, line := range strings.Split(reply, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if m := headerRE.FindStringSubmatch(line); m != nil {
			section = strings.ToLower(m[1])
			continue
		}
		bullet := bulletRE.MatchString(line)
		line = bulletRE.ReplaceAllString(line, "")
		line = strings.Trim(line, "* ")
		if line == "" || len(sentences)+len(figures) >= 20 {
			continue
		}
		st := Statement{Pages: []int{}, Claims: []Claim{}}
		for _, c := range citeRE.FindAllString(line, -1) {
			for _, n := range numInCite.FindAllString(c, -1) {
				if p, err := strconv.Atoi(n); err == nil && p > 0 {
					st.Pages = append(st.Pages, p)
				}
			}
		}
		st.Text = strings.TrimSpace(strings.Join(strings.Fields(citeRE.ReplaceAllString(line, " ")), " "))
		st.Text = strings.TrimSpace(strings.TrimSuffix(st.Text, " ."))
		if st.Text == "" {
			continue
		}
		switch {
		case section == "key figures" || strings.HasPrefix(section, "关键") || strings.HasPrefix(section, "主要"):
			figures = append(figures, st)
		case section == "" && bullet:
			figures = append(figures, st)
		default:
			sentences = append(sentences, st)
		}
	}
	return sentences, figures
}

// grounder checks statements against the pages they cite, with the rest of the document for what is not there.
type grounder struct {
	k     *kb.KB
	docID int64
	name  string
	pages map[int]*grounding.Page // by page number; nil: the document has no such page
}

func (g *grounder) page(ctx context.Context, n int) (*grounding.Page, error) {
	if p, ok := g.pages[n]; ok {
		return p, nil
	}
	id, err := g.k.Content.UnitID(ctx, g.docID, n)
	if errors.Is(err, kb.ErrNotFound) {
		g.pages[n] = nil
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("page %d: %w", n, err)
	}
	u, err := g.k.Content.Unit(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("page %d: %w", n, err)
	}
	p := grounding.NewPage(u, g.name)
	g.pages[n] = p
	return p, nil
}

func (g *grounder) check(ctx context.Context, st *Statement) error {
	var cited []*grounding.Page
	for _, n := range st.Pages {
		p, err := g.page(ctx, n)
		if err != nil {
			return err
		}
		if p != nil {
			cited = append(cited, p)
		}
	}
	ev := grounding.Evidence{Cited: cited,
		Rest: func(yield func(*grounding.Page) bool) error {
			n := 0
			return g.k.Content.EachUnitText(ctx, g.docID, func(u kb.Unit) bool {
				n++
				if n > restPages {
					return false
				}
				for _, c := range cited {
					if c.Ordinal == u.Ordinal {
						return true
					}
				}
				return yield(grounding.NewPage(u, g.name))
			})
		},
		Boxes: func(p *grounding.Page) (*grounding.Page, error) { return g.page(ctx, p.Ordinal) },
	}
	info, err := grounding.Check(ctx, st.Text, ev)
	if err != nil {
		return fmt.Errorf("check %q: %w", clip(st.Text, 80), err)
	}
	for _, c := range info.Claims {
		cl := Claim{GroundedClaim: c}
		if c.Found != nil {
			cl.Page = c.Found.Page
			cl.Region = boxesRegion(c.Found.Boxes)
		}
		st.Claims = append(st.Claims, cl)
	}
	return nil
}

// boxesRegion is the box holding every word box (0..1 of the page), nil for none.
func boxesRegion(bs [][4]float64) *Region {
	if len(bs) == 0 {
		return nil
	}
	r := Region(bs[0])
	for _, b := range bs[1:] {
		r[0], r[1], r[2], r[3] = min(r[0], b[0]), min(r[1], b[1]), max(r[2], b[2]), max(r[3], b[3])
	}
	return &r
}
