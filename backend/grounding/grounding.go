package grounding

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"proofglass/backend/agent"
	"proofglass/backend/kb"
)

// Area is a region of a page the agent zoomed into or cited, in the page's word space.
type Area struct {
	Page *Page
	// Region is 0..1 of the page (as agent.CropInfo.Region); nil means the whole page.
	Region *[4]float64
}

func (a Area) region() region {
	if a.Region == nil || a.Page.W <= 0 || a.Page.H <= 0 {
		return region{}
	}
	r := a.Region
	return region{r[0] * a.Page.W, r[1] * a.Page.H, r[2] * a.Page.W, r[3] * a.Page.H}
}

// Evidence is where an answer's claims are looked for, in this order: the regions the agent zoomed into, the pages
// it cited, the pages it was shown, then the rest of their documents.
type Evidence struct {
	Regions []Area
	Cited   []*Page
	Shown   []*Page
	// Rest yields the documents' other pages, possibly without word boxes; it is called only when a claim is still
	// unresolved. Boxes, when set, loads a page of Rest with its word boxes once a claim was found on it.
	Rest  func(yield func(*Page) bool) error
	Boxes func(*Page) (*Page, error)
	// Calculations are the run's calculator calls: a figure no page holds that equals one's result, its operands
	// found in Regions or Cited, is computed.
	Calculations []agent.CalculationInfo
}

// MaxClaims bounds the claims of one answer that are checked; the rest are counted as unchecked.
const MaxClaims = 200

// Check grounds an answer's claims in ev. It makes no model call, and stops with ctx's error when ctx ends.
func Check(ctx context.Context, answer string, ev Evidence) (agent.GroundingInfo, error) {
	start := time.Now()
	claims := Extract(answer)
	var info agent.GroundingInfo
	if len(claims) > MaxClaims {
		info.Unchecked = len(claims) - MaxClaims
		claims = claims[:MaxClaims]
	}
	info.Claims = make([]agent.GroundedClaim, len(claims))
	var unresolved []int
	cited := len(ev.Regions) > 0 || len(ev.Cited) > 0
	near := make([]answerSide, len(claims))
	loose := make([]hit, len(claims)) // an equal value found with nothing of the answer's context near it
	for i, c := range claims {
		if err := ctx.Err(); err != nil {
			return info, fmt.Errorf("ground answer: %w", err)
		}
		g := agent.GroundedClaim{Text: c.Text, Kind: c.Kind, Start: c.Start, End: c.End, Status: agent.GroundNotFound}
		if len(c.Values) > 0 {
			v := c.Values[0]
			g.Value = &v
		}
		info.Claims[i] = g
		if c.Figure() && c.Kind != KindDate && len(c.Values) == 0 {
			info.Claims[i].Note = "too large to check"
			continue
		}
		near[i] = answerContext(answer, c)
		if h, ok := firstHit(c, ev.Regions, near[i], &loose[i]); ok {
			setFound(&info.Claims[i], h, agent.GroundRegion, fmt.Sprintf("in the cited region (page %d)", h.page.Ordinal))
			continue
		}
		if h, ok := firstPageHit(c, ev.Cited, near[i], &loose[i]); ok {
			setFound(&info.Claims[i], h, agent.GroundCitedPage, fmt.Sprintf("on a cited page (page %d)", h.page.Ordinal))
			continue
		}
		if h, ok := firstPageHit(c, ev.Shown, near[i], &loose[i]); ok {
			setFound(&info.Claims[i], h, agent.GroundElsewhere,
				fmt.Sprintf("elsewhere in the document (page %d, shown but not cited)", h.page.Ordinal))
			continue
		}
		unresolved = append(unresolved, i)
	}
	restScore := make([]float64, len(claims)) // how well the figure found elsewhere fits the answer's context
	var fromRest []int
	if len(unresolved) > 0 && ev.Rest != nil {
		err := ev.Rest(func(p *Page) bool {
			if ctx.Err() != nil {
				return false
			}
			left := unresolved[:0]
			for _, i := range unresolved {
				h, ok := restHit(p, claims[i], near[i])
				if !ok {
					left = append(left, i)
					continue
				}
				if h.m != nil {
					_, restScore[i] = p.judge(h.m, near[i])
					fromRest = append(fromRest, i)
				}
				if ev.Boxes != nil && len(p.Words) > 0 && p.Words[0].X1 == 0 {
					if full, err := ev.Boxes(p); err == nil && full != nil {
						if fh, _, ok := full.find(claims[i], region{}, near[i]); ok {
							h = fh
						}
					}
				}
				setFound(&info.Claims[i], h, agent.GroundElsewhere, fmt.Sprintf("elsewhere in the document (page %d)", h.page.Ordinal))
			}
			unresolved = left
			return len(unresolved) > 0
		})
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return info, fmt.Errorf("ground answer in the rest of its documents: %w", err)
		}
	}
	// A mismatch only where the value is nowhere in the evidence or its documents next to what the answer says — or
	// where the cited evidence holds a different value in a closer context than the equal one found elsewhere (the
	// cited table's row and column against a like-named figure on another page): a different value in the same
	// context where the answer says its evidence is.
	rest := map[int]bool{}
	for _, i := range fromRest {
		rest[i] = true
	}
	for _, i := range append(unresolved, fromRest...) {
		c := claims[i]
		if !c.Figure() || (info.Claims[i].Status != agent.GroundNotFound || info.Claims[i].Note != "") && !rest[i] {
			continue
		}
		areas, where := ev.Regions, "the cited region"
		pages := ev.Cited
		if !cited {
			areas, pages, where = nil, ev.Shown, "the page shown"
		}
		h, ok := differing(c, near[i], areas, pages, loose[i])
		if ok && rest[i] {
			// Only a closer context overrides what was found elsewhere, and not where the cited evidence holds the
			// answer's value too (a row or column away: the answer may mean either).
			_, score := h.page.judge(h.m, near[i])
			ok = score > restScore[i] && loose[i].page == nil
		}
		if rest[i] && !ok {
			continue // found elsewhere, and nothing cited says otherwise as closely
		}
		if ok {
			text, _ := h.words()
			w := where
			if h.m != nil && !inAreas(h, areas) {
				w = "the cited page"
				if !cited {
					w = "the page shown"
				}
			}
			cell := ""
			if h.m != nil {
				cell = h.page.cellName(h.m)
			}
			setFound(&info.Claims[i], h, agent.GroundMismatch,
				fmt.Sprintf("%s — %s says %s%s (page %d)", strings.TrimSpace(c.Text), w, text, cell, h.page.Ordinal))
			continue
		}
		if h := loose[i]; h.page != nil {
			info.Claims[i].Note = fmt.Sprintf("found on page %d, but not next to what the answer says", h.page.Ordinal)
		}
	}
	withCalculations(claims, &info, ev)
	for i := range info.Claims {
		g := &info.Claims[i]
		if g.Status == agent.GroundNotFound && g.Note == "" {
			g.Note = "not found in the cited evidence or the rest of the document"
		}
		grounded := g.Status == agent.GroundRegion || g.Status == agent.GroundCitedPage || g.Status == agent.GroundComputed
		if claims[i].Figure() {
			info.Figures++
			if grounded {
				info.FiguresGrounded++
			}
		} else {
			info.Names++
			if grounded {
				info.NamesGrounded++
			}
		}
	}
	info.Summary = summary(info)
	info.ElapsedMS = time.Since(start).Milliseconds()
	return info, nil
}

func setFound(g *agent.GroundedClaim, h hit, status, note string) {
	text, boxes := h.words()
	p := h.page
	g.Status, g.Note = status, note
	g.Found = &agent.GroundEvidence{UnitID: unitRef(p.UnitID), DocumentID: unitRef(p.DocumentID), DocumentName: p.DocumentName,
		Page: p.Ordinal, Text: text, Boxes: boxes}
}

// firstHit finds c in the first region holding it whose context does not contradict the answer's: the agent
// zoomed there, so the region is context enough unless its row or column names another year.
func firstHit(c Claim, areas []Area, a answerSide, loose *hit) (hit, bool) {
	for _, ar := range areas {
		h, f, ok := ar.Page.find(c, ar.region(), a)
		if ok && f >= fitNone {
			return h, true
		}
		if ok && loose.page == nil {
			*loose = h
		}
	}
	return hit{}, false
}

// firstPageHit finds c on the first page where it stands next to what the answer says (or where there is nothing
// to judge by); an equal value with no supporting context is kept in loose, for the note, and not found.
func firstPageHit(c Claim, pages []*Page, a answerSide, loose *hit) (hit, bool) {
	for _, p := range pages {
		if h, ok := pageHit(p, c, a, loose); ok {
			return h, true
		}
	}
	return hit{}, false
}

// pageHit finds c on p where its context fits; an equal value without that fit (another row, another column's year)
// is kept in loose, the first one seen.
func pageHit(p *Page, c Claim, a answerSide, loose *hit) (hit, bool) {
	h, f, ok := p.find(c, region{}, a)
	switch {
	case ok && f >= fitBare:
		return h, true
	case ok && loose.page == nil:
		*loose = h
	}
	return hit{}, false
}

// restHit finds c on a page of the rest of the documents only next to what the answer says: a bare 16 somewhere in
// 130 pages is a coincidence, not evidence.
func restHit(p *Page, c Claim, a answerSide) (hit, bool) {
	h, f, ok := p.find(c, region{}, a)
	return h, ok && (f == fitContext || !c.Figure())
}

// differing finds the value the cited evidence has in the claim's context: in a region first, then on a page.
// differing finds the value the cited evidence has in the claim's context: in a region first, then on a page. loose
// is the equal value found out of context, if any: a cell of its row is the one the answer misread.
func differing(c Claim, a answerSide, areas []Area, pages []*Page, loose hit) (hit, bool) {
	wrong := func(p *Page) *mention {
		if loose.page == p {
			return loose.m
		}
		return nil
	}
	for _, ar := range areas {
		if h, ok := ar.Page.differing(c, a, ar.region(), wrong(ar.Page)); ok {
			return h, true
		}
	}
	for _, p := range pages {
		if h, ok := p.differing(c, a, region{}, wrong(p)); ok {
			return h, true
		}
	}
	return hit{}, false
}

func inAreas(h hit, areas []Area) bool {
	for _, a := range areas {
		if a.Page == h.page && a.Page.inside(a.region(), h.first) {
			return true
		}
	}
	return false
}

// summary says the pass in one line: "3 of 4 figures found in the cited evidence; 1 mismatch".
func summary(info agent.GroundingInfo) string {
	if len(info.Claims) == 0 {
		return "no checkable claim (no figures, dates, quotations or names)"
	}
	var parts []string
	if info.Figures > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d %s", info.FiguresGrounded, info.Figures, plural(info.Figures, "figure", "figures")))
	}
	if info.Names > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d %s", info.NamesGrounded, info.Names, plural(info.Names, "name or quotation", "names and quotations")))
	}
	s := strings.Join(parts, " and ") + " found in the cited evidence"
	counts := map[string]int{}
	for _, c := range info.Claims {
		counts[c.Status]++
	}
	var tail []string
	if n := counts[agent.GroundComputed]; n > 0 {
		tail = append(tail, fmt.Sprintf("%d computed from cited figures", n))
	}
	if n := counts[agent.GroundMismatch]; n > 0 {
		tail = append(tail, fmt.Sprintf("%d %s", n, plural(n, "mismatch", "mismatches")))
	}
	if n := counts[agent.GroundElsewhere]; n > 0 {
		tail = append(tail, fmt.Sprintf("%d only elsewhere", n))
	}
	if n := counts[agent.GroundNotFound]; n > 0 {
		tail = append(tail, fmt.Sprintf("%d not found", n))
	}
	if info.Unchecked > 0 {
		tail = append(tail, fmt.Sprintf("%d more not checked (over %d in one answer)", info.Unchecked, MaxClaims))
	}
	if len(tail) > 0 {
		s += "; " + strings.Join(tail, ", ")
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// RegionOCR reads the words of a region of a unit that has no text of its own (a scan ingested without OCR).
type RegionOCR interface {
	// RegionWords recognises the words in region (0..1 of the page) of u, with boxes in u's word space (that of
	// u.Width and u.Height).
	RegionWords(ctx context.Context, u kb.Unit, region [4]float64) ([]kb.Word, error)
}

// Units is what grounding reads of a knowledge base (kb.KB): the words of the units an answer cites or was shown.
type Units interface {
	Unit(ctx context.Context, id int64) (kb.Unit, error)
	UnitsByID(ctx context.Context, ids []int64) (map[int64]kb.Unit, error)
	EachUnitText(ctx context.Context, documentID int64, fn func(kb.Unit) bool) error
}

// Grounder grounds a run's answer in a knowledge base: it is the agent.Grounder kbagent gives the agent.
type Grounder struct {
	KB Units
	// MaxRestPages bounds the pages of the rest of the documents read per answer (0: 5000).
	MaxRestPages int
	// OCR, when set, reads a zoomed or cited region of a page without text; each region is read once per Grounder
	// and cached.
	OCR RegionOCR
	Log *slog.Logger

	mu    sync.Mutex
	ocred map[ocrKey][]kb.Word
}

// maxOCRCache bounds the regions a Grounder remembers.
const maxOCRCache = 512

type ocrKey struct {
	unit   int64
	region [4]float64
}

// regionWords OCRs a region once; later calls for the same region return the words read the first time.
func (g *Grounder) regionWords(ctx context.Context, u kb.Unit, region [4]float64) ([]kb.Word, error) {
	k := ocrKey{u.ID, region}
	g.mu.Lock()
	ws, ok := g.ocred[k]
	g.mu.Unlock()
	if ok {
		return ws, nil
	}
	ws, err := g.OCR.RegionWords(ctx, u, region)
	if err != nil {
		return nil, fmt.Errorf("ocr region %v of unit %d: %w", region, u.ID, err)
	}
	g.mu.Lock()
	if g.ocred == nil || len(g.ocred) >= maxOCRCache {
		g.ocred = map[ocrKey][]kb.Word{} // a plain bound: forget them all rather than grow without end
	}
	g.ocred[k] = ws
	g.mu.Unlock()
	return ws, nil
}

// withRegionText gives each unit without text of its own the words OCR reads in the regions the answer's
// evidence names on it.
func (g *Grounder) withRegionText(ctx context.Context, units map[int64]kb.Unit, regions map[int64][][4]float64) {
	if g.OCR == nil {
		return
	}
	log := g.Log
	if log == nil {
		log = slog.Default()
	}
	for id, rs := range regions {
		u, ok := units[id]
		if !ok || u.TextSource == kb.TextOCR || u.TextSource == kb.TextMixed {
			continue
		}
		var texts []string
		if len(rs) > 0 && u.Text != "" {
			texts = []string{u.Text}
		}
		for _, r := range rs {
			if wordsIn(u, r) {
				continue // the text layer reads this region; a stamp over a scan leaves the rest to OCR
			}
			ws, err := g.regionWords(ctx, u, r)
			if err != nil {
				log.Warn("grounding: a region without text could not be read", "unit", id, "err", err)
				continue
			}
			u.Words = append(u.Words, ws...)
			for _, w := range ws {
				texts = append(texts, w.Text)
			}
		}
		u.Text = strings.Join(texts, " ")
		units[id] = u
	}
}

// wordsIn reports whether any word of u has its centre in region r (0..1 of the unit); a unit with text but no
// boxes counts as read everywhere.
func wordsIn(u kb.Unit, r [4]float64) bool {
	if len(u.Words) == 0 {
		return strings.TrimSpace(u.Text) != ""
	}
	if u.Width <= 0 || u.Height <= 0 {
		return true
	}
	for _, w := range u.Words {
		cx, cy := (w.X0+w.X1)/2/u.Width, (w.Y0+w.Y1)/2/u.Height
		if cx >= r[0] && cx <= r[2] && cy >= r[1] && cy <= r[3] {
			return true
		}
	}
	return false
}

// Ground implements agent.Grounder: the evidence is the run's crops, the answer's citations and the pages shown.
func (g *Grounder) Ground(ctx context.Context, answer agent.AnswerInfo, trail []agent.Event) (*agent.GroundingInfo, error) {
	if len(Extract(answer.Text)) == 0 {
		info, err := Check(ctx, answer.Text, Evidence{}) // nothing to look up: no page is read
		return &info, err
	}
	refs := collectRefs(answer, trail)
	ids := refs.ids()
	units, err := g.KB.UnitsByID(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("ground answer: %w", err)
	}
	g.withRegionText(ctx, units, refs.regions())
	ev, pages := refs.evidence(units)
	ev.Rest = g.rest(ctx, ids, units, refs.names, pages)
	for _, e := range trail {
		if e.Kind == agent.KindCalculation && e.Calculation != nil && e.Calculation.Error == "" {
			ev.Calculations = append(ev.Calculations, *e.Calculation)
		}
	}
	ev.Boxes = func(p *Page) (*Page, error) {
		u, err := g.KB.Unit(ctx, p.UnitID)
		if err != nil {
			return nil, err
		}
		return NewPage(u, p.DocumentName), nil
	}
	info, err := Check(ctx, answer.Text, ev)
	if err != nil {
		return nil, err
	}
	return &info, nil
}

// areaRef is a region of a unit that a crop or a citation names.
type areaRef struct {
	unit   int64
	region *[4]float64
}

// evidenceRefs is the evidence a run's trail and answer name, by unit, before any unit is read.
type evidenceRefs struct {
	areas        []areaRef
	cited, shown []int64          // a unit cited is not also shown
	names        map[int64]string // document name by unit
	seen         map[int64]bool
}

// collectRefs gathers the crops' regions, the citations (and their regions) and the pages shown; the document name
// of a unit is the last one named.
func collectRefs(answer agent.AnswerInfo, trail []agent.Event) *evidenceRefs {
	r := &evidenceRefs{names: map[int64]string{}, seen: map[int64]bool{}}
	for _, ev := range trail {
		switch {
		case ev.Kind == agent.KindCrop && ev.Crop != nil:
			if n := r.want(ev.Crop.UnitID, ev.Crop.DocumentName, nil); n > 0 {
				region := ev.Crop.Region
				r.areas = append(r.areas, areaRef{n, &region})
			}
		case ev.Kind == agent.KindResults && ev.Results != nil:
			for _, h := range ev.Results.Hits {
				if h.Shown {
					r.want(h.UnitID, h.DocumentName, nil)
				}
			}
		}
	}
	for _, c := range answer.Citations {
		if n := r.want(c.UnitID, c.DocumentName, &r.cited); n > 0 && c.Region != nil {
			r.areas = append(r.areas, areaRef{n, c.Region})
		}
	}
	for _, ev := range trail {
		if ev.Kind == agent.KindResults && ev.Results != nil {
			for _, h := range ev.Results.Hits {
				if h.Shown {
					r.want(h.UnitID, h.DocumentName, &r.shown)
				}
			}
		}
	}
	return r
}

// want parses a unit id (0 when it is none), notes its document's name and adds it to list unless a list has it.
func (r *evidenceRefs) want(id string, doc string, list *[]int64) int64 {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	if doc != "" {
		r.names[n] = doc
	}
	if list != nil && !r.seen[n] {
		r.seen[n] = true
		*list = append(*list, n)
	}
	return n
}

// ids are the units to read: cited, shown, then those of the areas.
func (r *evidenceRefs) ids() []int64 {
	ids := append(append([]int64(nil), r.cited...), r.shown...)
	for _, a := range r.areas {
		ids = append(ids, a.unit)
	}
	return ids
}

// regions are the distinct regions named on each unit.
func (r *evidenceRefs) regions() map[int64][][4]float64 {
	regions := map[int64][][4]float64{}
	for _, a := range r.areas {
		if !slices.Contains(regions[a.unit], *a.region) {
			regions[a.unit] = append(regions[a.unit], *a.region)
		}
	}
	return regions
}

// evidence is the regions, cited and shown pages of the units read, one Page a unit; it returns those pages too.
func (r *evidenceRefs) evidence(units map[int64]kb.Unit) (Evidence, map[int64]*Page) {
	pages := map[int64]*Page{}
	page := func(id int64) *Page {
		if p, ok := pages[id]; ok {
			return p
		}
		u, ok := units[id]
		if !ok {
			return nil
		}
		p := NewPage(u, r.names[id])
		pages[id] = p
		return p
	}
	var ev Evidence
	for _, a := range r.areas {
		if p := page(a.unit); p != nil {
			ev.Regions = append(ev.Regions, Area{Page: p, Region: a.region})
		}
	}
	for _, id := range r.cited {
		if p := page(id); p != nil {
			ev.Cited = append(ev.Cited, p)
		}
	}
	for _, id := range r.shown {
		if p := page(id); p != nil && !isCited(id, r.cited) {
			ev.Shown = append(ev.Shown, p)
		}
	}
	return ev, pages
}

// rest yields the other pages of the documents of the units read, in the order of ids, at most MaxRestPages
// (default 5000).
func (g *Grounder) rest(ctx context.Context, ids []int64, units map[int64]kb.Unit, names map[int64]string,
	pages map[int64]*Page) func(yield func(*Page) bool) error {
	var docs []int64
	docSeen := map[int64]bool{}
	for _, id := range ids {
		if u, ok := units[id]; ok && !docSeen[u.DocumentID] {
			docSeen[u.DocumentID] = true
			docs = append(docs, u.DocumentID)
		}
	}
	docName := map[int64]string{}
	for id, u := range units {
		docName[u.DocumentID] = names[id]
	}
	limit := g.MaxRestPages
	if limit <= 0 {
		limit = 5000
	}
	return func(yield func(*Page) bool) error {
		read := 0
		for _, d := range docs {
			stop := false
			err := g.KB.EachUnitText(ctx, d, func(u kb.Unit) bool {
				if _, done := pages[u.ID]; done {
					return true
				}
				read++
				if read > limit || !yield(NewPage(u, docName[d])) {
					stop = true
					return false
				}
				return true
			})
			if err != nil {
				return err
			}
			if stop {
				return nil
			}
		}
		return nil
	}
}

func isCited(id int64, cited []int64) bool {
	for _, c := range cited {
		if c == id {
			return true
		}
	}
	return false
}
