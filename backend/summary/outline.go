// Package summary gives a document at a glance: its outline (sections, tables, figures, key figures, each with its page and region) read offline from the text layer, and a model's short summary whose figures are checked against the pages it cites.
package summary

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"proofglass/backend/kb"
	"proofglass/backend/tables"
	"proofglass/backend/wordlines"
)

// Region is a box on a page, 0..1 of the page's width and height (as agent.CropInfo.Region), so the window can open
// the page at it.
type Region = [4]float64

// Section is a heading of the document.
type Section struct {
	Title string `json:"title"`
	// Number is the heading's numbering as written ("2.1", "第 3 节"), empty for a heading found by its size alone.
	Number string `json:"number,omitempty"`
	// Level is 1 for a top-level heading, 2 under it, and so on.
	Level  int     `json:"level"`
	Page   int     `json:"page"`
	Region *Region `json:"region,omitempty"`
}

// TableItem is a table of the document: found from the word boxes (rows and columns known), or only by its caption.
type TableItem struct {
	Page    int     `json:"page"`
	Index   int     `json:"index,omitempty"` // the page's table number, as backend/tables numbers them; 0 for a caption alone
	Caption string  `json:"caption,omitempty"`
	Rows    int     `json:"rows"`
	Columns int     `json:"columns"`
	Region  *Region `json:"region,omitempty"`
}

// Figure is a figure, chart or exhibit of the document, found by its caption.
type Figure struct {
	Label   string  `json:"label"` // "Figure 3", "图 1"
	Caption string  `json:"caption"`
	Page    int     `json:"page"`
	Region  *Region `json:"region,omitempty"`
}

// KeyFigure is a sentence of the document's first pages or of its summary section that states a figure with a
// unit or a percentage.
type KeyFigure struct {
	Figure string  `json:"figure"` // the figure as written: "4.9%", "83 IU/dL"
	Text   string  `json:"text"`   // the sentence it is in, clipped
	Page   int     `json:"page"`
	Region *Region `json:"region,omitempty"`
}

// Glance is a document at a glance, read from its text layer with no model call.
type Glance struct {
	DocumentID int64  `json:"document_id"`
	Name       string `json:"name"`
	Pages      int    `json:"pages"`
	// Title is the first page's largest text, when it has some larger than the body.
	Title      string      `json:"title,omitempty"`
	Sections   []Section   `json:"sections"`
	Tables     []TableItem `json:"tables"`
	Figures    []Figure    `json:"figures"`
	KeyFigures []KeyFigure `json:"key_figures"`
	// Cut counts what the bounds below left out (sections, tables, figures, key figures together).
	Cut       int   `json:"cut,omitempty"`
	ElapsedMS int64 `json:"elapsed_ms"`
}

// Bounds of one outline.
const (
	MaxSections   = 400
	MaxTables     = 200
	MaxFigures    = 200
	MaxKeyFigures = 12
	// keyPages is how many first pages key figures are read from, beside a summary or abstract section's pages.
	keyPages = 3
)

// Store is what an outline reads of a knowledge base (kb.KB's handles).
type Store interface {
	Document(ctx context.Context, id int64) (kb.Document, error)
	UnitRefs(ctx context.Context, documentID int64) ([]kb.Unit, error)
	UnitsByID(ctx context.Context, ids []int64) (map[int64]kb.Unit, error)
}

// KBStore is k as a Store.
func KBStore(k *kb.KB) Store { return kbStore{k} }

type kbStore struct{ k *kb.KB }

func (s kbStore) Document(ctx context.Context, id int64) (kb.Document, error) {
	return s.k.Docs.Document(ctx, id)
}
func (s kbStore) UnitRefs(ctx context.Context, id int64) ([]kb.Unit, error) {
	return s.k.Content.UnitRefs(ctx, id)
}
func (s kbStore) UnitsByID(ctx context.Context, ids []int64) (map[int64]kb.Unit, error) {
	return s.k.Content.UnitsByID(ctx, ids)
}

// ErrNoDocument is returned (wrapped) for a document the knowledge base does not hold.
var ErrNoDocument = errors.New("no such document")

// pagesPerRead bounds the pages held with their word boxes at once.
const pagesPerRead = 32

// Outline reads a document's outline from its pages' text and word boxes, page by page.
func Outline(ctx context.Context, k *kb.KB, docID int64) (Glance, error) {
	return OutlineOf(ctx, KBStore(k), docID)
}

// OutlineOf is Outline over any Store.
func OutlineOf(ctx context.Context, s Store, docID int64) (Glance, error) {
	start := time.Now()
	d, err := s.Document(ctx, docID)
	if errors.Is(err, kb.ErrNotFound) {
		return Glance{}, fmt.Errorf("outline of document %d: %w", docID, ErrNoDocument)
	}
	if err != nil {
		return Glance{}, fmt.Errorf("outline of document %d: %w", docID, err)
	}
	refs, err := s.UnitRefs(ctx, docID)
	if err != nil {
		return Glance{}, fmt.Errorf("outline of document %d (%s): %w", docID, d.Name, err)
	}
	r := newReader()
	for i := 0; i < len(refs); i += pagesPerRead {
		if err := ctx.Err(); err != nil {
			return Glance{}, fmt.Errorf("outline of document %d (%s): %w", docID, d.Name, err)
		}
		chunk := refs[i:min(i+pagesPerRead, len(refs))]
		ids := make([]int64, len(chunk))
		for j, u := range chunk {
			ids[j] = u.ID
		}
		units, err := s.UnitsByID(ctx, ids)
		if err != nil {
			return Glance{}, fmt.Errorf("outline of document %d (%s): read pages: %w", docID, d.Name, err)
		}
		for _, ref := range chunk {
			if u, ok := units[ref.ID]; ok {
				r.page(u)
			}
		}
	}
	o := r.finish()
	o.DocumentID, o.Name, o.Pages = d.ID, d.Name, len(refs)
	o.ElapsedMS = time.Since(start).Milliseconds()
	return o, nil
}

// FromUnits is the outline of a document's pages, given in order (tests, and callers that hold them already).
func FromUnits(units []kb.Unit) Glance {
	r := newReader()
	for _, u := range units {
		r.page(u)
	}
	o := r.finish()
	o.Pages = len(units)
	if len(units) > 0 {
		o.DocumentID = units[0].DocumentID
	}
	return o
}

// pline is one line of a page as the outline reads it.
type pline struct {
	page   int
	text   string
	height float64 // the median height of its words: its font size, near enough
	box    tables.Box
	pw, ph float64
	words  int
	// labelGap: a wide gap follows the line's second word ("Figure 2.1   Histogram of …": a caption's label set
	// apart from its text).
	labelGap bool
	next     *pline // a candidate heading's next line below it
	table    int    // the table (place in reader.tables + 1) a candidate heading is in, 0: none
}

func (l pline) region() *Region {
	if l.pw <= 0 || l.ph <= 0 || l.box.Empty() {
		return nil
	}
	r := Region{clamp01(l.box.X0 / l.pw), clamp01(l.box.Y0 / l.ph), clamp01(l.box.X1 / l.pw), clamp01(l.box.Y1 / l.ph)}
	return &r
}

func clamp01(v float64) float64 { return math.Round(min(1, max(0, v))*10000) / 10000 }

// reader keeps what the pages read so far say: candidate headings (decided once the body's size is known),
// captions, tables and key-figure sentences.
type reader struct {
	heights      map[float64]float64 // rounded line height → the ems of text of that height
	candidates   []pline             // lines that may be headings
	firstPage    []pline             // page 1's lines, for the title
	repeats      map[string]int      // a line's text without digits → pages it is on (running headers)
	figures      map[string]*figCandidate
	figOrder     []string
	tables       []TableItem
	tableHeights []float64
	keyLines     [][]pline // the lines of pages key figures are read from
	inSummary    int       // pages left of a summary/abstract section
	cut          int
}

type figCandidate struct {
	fig      Figure
	strength int
}

func newReader() *reader {
	return &reader{heights: map[float64]float64{}, repeats: map[string]int{}, figures: map[string]*figCandidate{}}
}

var (
	numberedRE = regexp.MustCompile(`^(\d{1,2}(?:\.\d{1,2}){0,4})\.?$`)
	cjkNumRE   = regexp.MustCompile(`^(第\s*[0-9一二三四五六七八九十百零〇]+\s*[章节節部篇编編卷])\s*(.*)$`)
	chapterRE  = regexp.MustCompile(`^((?:Chapter|CHAPTER|Part|PART|Appendix|APPENDIX)\s+(?:\d{1,3}|[A-Z]|[IVXLC]{1,6}))[.:]?\s+(.+)$`)
	cjkListRE  = regexp.MustCompile(`^([一二三四五六七八九十]+)\s*[、.．]\s*(.+)$`)
	figureRE   = regexp.MustCompile(`^(?i:(figure|fig\.?|chart|exhibit|graph|plate))\s*(\d+(?:[.\-]\d+)*[a-z]?)\s*([:.\-–—|]?)\s*(.*)$`)
	cjkFigRE   = regexp.MustCompile(`^(图|圖)\s*(\d+(?:[.\-－]\d+)*)\s*[:：.、]?\s*(.*)$`)
	tableCapRE = regexp.MustCompile(`^(?:(?i:(table|tab\.))\s*(\d+(?:[.\-]\d+)*[a-z]?)\s*([:.\-–—|]?)|(表)\s*(\d+(?:[.\-－]\d+)*)\s*[:：.、]?)\s*(.*)$`)
	summaryRE  = regexp.MustCompile(`(?i)^(abstract|summary|executive summary|summary of findings|key findings|highlights|overview|synopsis|摘要|概要|提要|要点|概述|内容提要|主要发现)$`)
	codeRE     = regexp.MustCompile(`<-|[={}\\#"]|\(\)|^\$|^>|::`)
)

// page reads one page.
func (r *reader) page(u kb.Unit) {
	words := u.Words
	if len(words) == 0 {
		return
	}
	var found []tables.Table
	if u.Kind == "" || u.Kind == kb.UnitPage {
		found = tables.Find(u)
	}
	tableAt := make([]int, len(found)) // each found table's place in r.tables + 1 (0: left out)
	for i, t := range found {
		item := TableItem{Page: u.Ordinal, Index: t.Index, Caption: t.Caption, Rows: len(t.Body()), Columns: t.Columns}
		item.Region = boxRegion(union(t.Box, t.CaptionBox), u.Width, u.Height)
		var hs []float64
		for _, row := range t.Rows {
			for _, c := range row {
				if !c.Box.Empty() && !c.Merged {
					hs = append(hs, c.Box.Y1-c.Box.Y0)
				}
			}
		}
		h := 0.0
		if len(hs) > 0 {
			slices.Sort(hs)
			h = hs[len(hs)/2]
		}
		if r.addTable(item, h) {
			tableAt[i] = len(r.tables)
		}
	}
	lines := pageLines(u)
	var seen = map[string]bool{}
	for i, l := range lines {
		if l.height > 0 {
			r.heights[math.Round(l.height*2)/2] += (l.box.X1 - l.box.X0) / l.height // ems of text, whatever the size
		}
		table := 0
		if ti := inTable(l.box, found); ti >= 0 {
			if table = tableAt[ti]; table == 0 {
				continue
			}
		}
		key := strings.Map(func(c rune) rune {
			if unicode.IsDigit(c) || unicode.IsSpace(c) {
				return -1
			}
			return c
		}, l.text)
		if key != "" && !seen[key] && nearEdge(l) {
			seen[key] = true
			r.repeats[key]++
		}
		if u.Ordinal == 1 {
			r.firstPage = append(r.firstPage, l)
		}
		if table == 0 && r.caption(lines, i, found) {
			continue
		}
		if headingShaped(l) {
			l.table = table
			for j := i + 1; j < len(lines); j++ {
				if n := lines[j]; n.box.Y0 > l.box.Y1-1 {
					l.next = &lines[j]
					break
				}
			}
			r.candidates = append(r.candidates, l)
		}
	}
	if u.Ordinal <= keyPages || r.inSummary > 0 {
		var body []pline
		for _, l := range lines {
			if !inTables(l.box, found) && !nearEdge(l) {
				body = append(body, l)
			}
		}
		r.keyLines = append(r.keyLines, body)
		if r.inSummary > 0 {
			r.inSummary--
		}
	}
	for _, l := range lines {
		if u.Ordinal > keyPages && isSummaryHeading(l) {
			r.inSummary = 2 // the section's page was read above; key figures also from the next two
			r.keyLines = append(r.keyLines, lines)
			break
		}
	}
}

// isSummaryHeading reports whether l heads an abstract or a summary ("Executive Summary", "2. Key findings", "摘要").
func isSummaryHeading(l pline) bool {
	if !headingShaped(l) && !strings.HasSuffix(strings.TrimSpace(l.text), ":") {
		return false
	}
	_, rest, _ := numbering(l.text)
	rest = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(rest), ":："))
	return summaryRE.MatchString(strings.Join(strings.Fields(rest), " "))
}

func union(a, b tables.Box) tables.Box {
	if a.Empty() {
		return b
	}
	if b.Empty() {
		return a
	}
	return tables.Box{X0: min(a.X0, b.X0), Y0: min(a.Y0, b.Y0), X1: max(a.X1, b.X1), Y1: max(a.Y1, b.Y1)}
}

func boxRegion(b tables.Box, w, h float64) *Region {
	return pline{box: b, pw: w, ph: h}.region()
}

func inTables(b tables.Box, ts []tables.Table) bool { return inTable(b, ts) >= 0 }

// inTable is the index of the table of ts that b's line is in, or -1.
func inTable(b tables.Box, ts []tables.Table) int {
	cy := (b.Y0 + b.Y1) / 2
	for i, t := range ts {
		if cy >= t.Box.Y0 && cy <= t.Box.Y1 && b.X0 < t.Box.X1 && b.X1 > t.Box.X0 {
			return i
		}
	}
	return -1
}

// addTable keeps a table, with the height of its cells' text (0: a caption alone); false when the bound was hit.
func (r *reader) addTable(t TableItem, height float64) bool {
	if len(r.tables) >= MaxTables {
		r.cut++
		return false
	}
	r.tables = append(r.tables, t)
	r.tableHeights = append(r.tableHeights, height)
	return true
}

// pageLines are a page's lines, top to bottom, with their text (CJK characters joined without spaces), height and box.
func pageLines(u kb.Unit) []pline {
	var out []pline
	for _, l := range wordlines.Lines(u.Words) {
		var sb strings.Builder
		hs := make([]float64, 0, len(l))
		var box tables.Box
		prev := rune(0)
		var kept []kb.Word
		for _, i := range l {
			w := u.Words[i]
			if utf8.RuneCountInString(w.Text) >= 3 && w.Y1-w.Y0 > 1.8*(w.X1-w.X0) {
				continue // set sideways (a chart's axis title): its box's height is its length
			}
			kept = append(kept, w)
			first, _ := utf8.DecodeRuneInString(w.Text)
			if sb.Len() > 0 && !(isCJK(prev) && isCJK(first)) {
				sb.WriteByte(' ')
			}
			sb.WriteString(w.Text)
			prev, _ = utf8.DecodeLastRuneInString(w.Text)
			hs = append(hs, w.Y1-w.Y0)
			box = union(box, tables.Box{X0: w.X0, Y0: w.Y0, X1: w.X1, Y1: w.Y1})
		}
		if len(hs) == 0 {
			continue
		}
		slices.Sort(hs)
		pl := pline{page: u.Ordinal, text: sb.String(), height: hs[len(hs)/2], box: box, pw: u.Width, ph: u.Height,
			words: len(hs)}
		pl.labelGap = len(kept) >= 3 && kept[2].X0-kept[1].X1 > 0.8*pl.height
		out = append(out, pl)
	}
	return out
}

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		unicode.Is(unicode.Hangul, r) || (r >= 0x3000 && r <= 0x303f) || (r >= 0xff00 && r <= 0xffef)
}

// headingShaped reports whether a line could be a heading by its words alone: short, with a letter, not ending a
// sentence, not code, not in the page's top or bottom margin (running headers and footers).
func headingShaped(l pline) bool {
	t := strings.TrimSpace(l.text)
	n := utf8.RuneCountInString(t)
	if n < 2 || n > 100 || l.words > 14 {
		return false
	}
	if l.ph > 0 {
		cy := (l.box.Y0 + l.box.Y1) / 2 / l.ph
		if cy < 0.07 || cy > 0.93 {
			return false
		}
	}
	last, _ := utf8.DecodeLastRuneInString(t)
	if strings.ContainsRune(".。,，;；!！?？", last) && !strings.HasSuffix(t, "...") {
		return false
	}
	if codeRE.MatchString(t) {
		return false
	}
	letters := 0
	for _, c := range t {
		if unicode.IsLetter(c) {
			letters++
		}
	}
	return letters >= 2 && letters*2 >= n-strings.Count(t, " ")
}

// caption reads line i as a figure or table caption (with the lines that continue it); it reports whether it was one.
func (r *reader) caption(lines []pline, i int, found []tables.Table) bool {
	l := lines[i]
	t := strings.TrimSpace(l.text)
	if m := tableCapRE.FindStringSubmatch(t); m != nil {
		label, sep := "Table "+m[2], m[3]
		if m[4] != "" {
			label, sep = "表 "+m[5], ":"
		}
		if sep == "" || m[6] == "" {
			return false
		}
		caption := continued(lines, i)
		for _, ft := range found {
			if ft.Caption != "" && strings.HasPrefix(norm(ft.Caption), norm(label)) {
				return true // the table finder has it, with its rows
			}
		}
		for _, tb := range r.tables {
			if tb.Page == l.page && tb.Caption != "" && strings.HasPrefix(norm(tb.Caption), norm(label)) {
				return true
			}
		}
		r.addTable(TableItem{Page: l.page, Caption: caption, Region: l.region()}, 0)
		return true
	}
	label, strength := "", 0
	if m := figureRE.FindStringSubmatch(t); m != nil {
		kind := strings.ToLower(strings.TrimSuffix(m[1], "."))
		switch kind {
		case "fig":
			kind = "figure"
		}
		label = strings.ToUpper(kind[:1]) + kind[1:] + " " + m[2]
		switch m[3] {
		case ":", "—", "–", "|", "-":
			strength = 2
		case ".":
			strength = 1
		}
		if l.labelGap && m[4] != "" {
			strength = 2 // "Figure 2.1   Histogram …"
		}
		if m[4] == "" && strength < 2 {
			return false
		}
	} else if m := cjkFigRE.FindStringSubmatch(t); m != nil && m[3] != "" {
		label, strength = "图 "+m[2], 2
	}
	if label == "" || strength == 0 {
		return false
	}
	fig := Figure{Label: label, Caption: continued(lines, i), Page: l.page, Region: l.region()}
	if c, ok := r.figures[label]; ok {
		if strength > c.strength {
			c.fig, c.strength = fig, strength
		}
		return true
	}
	if len(r.figures) >= MaxFigures {
		r.cut++
		return true
	}
	r.figures[label] = &figCandidate{fig: fig, strength: strength}
	r.figOrder = append(r.figOrder, label)
	return true
}

func norm(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), "")) }

// continued is line i's text with the lines right under it of its size, up to three lines and 240 characters.
func continued(lines []pline, i int) string {
	parts := []string{strings.TrimSpace(lines[i].text)}
	for j := i + 1; j < len(lines) && j <= i+2; j++ {
		prev, l := lines[j-1], lines[j]
		if l.box.Y0-prev.box.Y1 > 0.8*prev.height || math.Abs(l.height-lines[i].height) > 0.6 {
			break
		}
		if strings.HasSuffix(parts[len(parts)-1], ".") {
			break
		}
		next := strings.TrimSpace(l.text)
		if p := parts[len(parts)-1]; strings.HasSuffix(p, "-") && next != "" && unicode.IsLower([]rune(next)[0]) {
			parts[len(parts)-1] = strings.TrimSuffix(p, "-") + next
			continue
		}
		parts = append(parts, next)
	}
	return clip(strings.Join(parts, " "), 240)
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)
	return strings.TrimSpace(string(rs[:n-1])) + "…"
}

// finish decides the headings once the body's size is known, and reads the key figures.
func (r *reader) finish() Glance {
	body := r.bodyHeight()
	// a "table" of text taller than the body, with no caption, is headings set side by side, not a table
	dropped := map[int]bool{}
	var kept []TableItem
	for i, t := range r.tables {
		if h := r.tableHeights[i]; t.Caption == "" && body > 0 && h >= body*1.15 {
			dropped[i+1] = true
			continue
		}
		kept = append(kept, t)
	}
	r.tables = kept
	o := Glance{Tables: r.tables, Figures: []Figure{}, Sections: []Section{}, KeyFigures: []KeyFigure{}}
	if o.Tables == nil {
		o.Tables = []TableItem{}
	}
	for _, label := range r.figOrder {
		o.Figures = append(o.Figures, r.figures[label].fig)
	}
	slices.SortStableFunc(o.Figures, func(a, b Figure) int { return a.Page - b.Page })
	title, titleLines := r.title(body)
	o.Title = title
	tall := func(l pline) bool { return body > 0 && l.height >= body*1.15 && l.height-body >= 1 }
	// a page listing headings with their page numbers is a table of contents; a page with many large unnumbered
	// lines is display text (type specimens, a poster), not sections
	tocLines, sizeOnly := map[int]int{}, map[int]int{}
	for _, l := range r.candidates {
		if endsInNumber(l.text) {
			tocLines[l.page]++
		}
		if num, _, _ := numbering(l.text); num == "" && tall(l) {
			sizeOnly[l.page]++
		}
	}
	var heads []pline
	var numbers []string
	var levels []int
	for i := 0; i < len(r.candidates); i++ {
		l := r.candidates[i]
		if titleLines[l.box] && l.page == 1 || l.table > 0 && !dropped[l.table] {
			continue
		}
		if endsInNumber(l.text) && (nearEdge(l) || tocLines[l.page] >= 4) {
			continue // a running header with its page number, or a line of a table of contents
		}
		if k := strings.Map(func(c rune) rune {
			if unicode.IsDigit(c) || unicode.IsSpace(c) {
				return -1
			}
			return c
		}, l.text); nearEdge(l) && r.repeats[k] >= 3 {
			continue // a running header or footer
		}
		num, rest, level := numbering(l.text)
		switch {
		case num != "" && (tall(l) || level >= 2 && plainTitle(rest) || strings.HasPrefix(num, "第")):
		case num == "" && tall(l) && bodyFollows(l, body) && startsLikeAHeading(l.text) && sizeOnly[l.page] <= 6:
		default:
			continue
		}
		text := l.text
		if num != "" {
			text = rest
		}
		// a heading broken over two lines: the next candidate right under it, of its size and unnumbered
		for i+1 < len(r.candidates) {
			n := r.candidates[i+1]
			nn, _, _ := numbering(n.text)
			if n.page != l.page || nn != "" || math.Abs(n.height-l.height) > 0.3 || n.box.Y0-l.box.Y1 > 0.8*l.height ||
				n.box.Y0 < l.box.Y1-1 {
				break
			}
			text += joinSep(text, n.text) + n.text
			l.box = union(l.box, n.box)
			i++
		}
		l.text = strings.TrimSpace(text)
		heads = append(heads, l)
		numbers = append(numbers, num)
		levels = append(levels, level)
	}
	// "Chapter 1" on its line, the chapter's title on the next: one section
	for i := 0; i+1 < len(heads); i++ {
		if numbers[i] == "" && chapterAlone.MatchString(heads[i].text) && numbers[i+1] == "" && heads[i+1].page == heads[i].page {
			numbers[i], levels[i] = heads[i].text, 1
			heads[i].text, heads[i].box = heads[i+1].text, union(heads[i].box, heads[i+1].box)
			heads = slices.Delete(heads, i+1, i+2)
			numbers = slices.Delete(numbers, i+1, i+2)
			levels = slices.Delete(levels, i+1, i+2)
		}
	}
	// where the document numbers its headings, a heading found by size alone is at least as tall as they are
	minNumbered, numberedCount := math.Inf(1), 0
	for i, l := range heads {
		if numbers[i] != "" {
			minNumbered = min(minNumbered, l.height)
			numberedCount++
		}
	}
	if numberedCount >= 3 {
		keep := 0
		for i, l := range heads {
			if numbers[i] == "" && l.height < minNumbered-0.5 {
				continue
			}
			heads[keep], numbers[keep], levels[keep] = l, numbers[i], levels[i]
			keep++
		}
		heads, numbers, levels = heads[:keep], numbers[:keep], levels[:keep]
	}
	// 第 N 节 is a top level where no 第 N 章 is above it
	chapters := false
	for _, n := range numbers {
		chapters = chapters || strings.HasPrefix(n, "第") && !strings.ContainsAny(n, "节節")
	}
	for i, n := range numbers {
		if strings.HasPrefix(n, "第") && strings.ContainsAny(n, "节節") && !chapters {
			levels[i] = 1
		}
	}
	// levels of headings without a number: by size, largest first, under the numbered levels they sit beside
	var sizes []float64
	for i, l := range heads {
		if numbers[i] == "" || levels[i] == 0 {
			s := math.Round(l.height*2) / 2
			if !slices.Contains(sizes, s) {
				sizes = append(sizes, s)
			}
		}
	}
	slices.Sort(sizes)
	slices.Reverse(sizes)
	numberedLevel := map[float64]int{} // a size → the level of the numbered headings of that size
	for i, l := range heads {
		if levels[i] > 0 {
			s := math.Round(l.height*2) / 2
			if lv, ok := numberedLevel[s]; !ok || levels[i] < lv {
				numberedLevel[s] = levels[i]
			}
		}
	}
	for i, l := range heads {
		level := levels[i]
		if level == 0 {
			s := math.Round(l.height*2) / 2
			if lv, ok := numberedLevel[s]; ok {
				level = lv
			} else if len(numberedLevel) > 0 {
				level = 1 // under the deepest numbered level set larger than it
				for ns, lv := range numberedLevel {
					if ns > s {
						level = max(level, lv+1)
					}
				}
			} else {
				level = slices.Index(sizes, s) + 1
			}
			level = min(level, 6)
		}
		if len(o.Sections) >= MaxSections {
			r.cut++
			continue
		}
		o.Sections = append(o.Sections, Section{Title: clip(l.text, 160), Number: numbers[i], Level: level, Page: l.page,
			Region: l.region()})
	}
	o.KeyFigures = r.keyFigures()
	o.Cut = r.cut
	return o
}

func joinSep(a, b string) string {
	x, _ := utf8.DecodeLastRuneInString(a)
	y, _ := utf8.DecodeRuneInString(b)
	if isCJK(x) && isCJK(y) {
		return ""
	}
	return " "
}

// numbering splits a heading's number from its title: "2.1 Results" → "2.1", "Results", 2; "第 3 节 编程接口" →
// "第 3 节", "编程接口", 1 (章) or 2 (节); "一、总则" → "一、", "总则", 1. Level 0: no number.
func numbering(text string) (num, rest string, level int) {
	t := strings.TrimSpace(text)
	if m := cjkNumRE.FindStringSubmatch(t); m != nil && m[2] != "" {
		level = 1
		if strings.ContainsAny(m[1], "节節") {
			level = 2
		}
		return m[1], m[2], level
	}
	if m := chapterRE.FindStringSubmatch(t); m != nil {
		return m[1], m[2], 1
	}
	if m := cjkListRE.FindStringSubmatch(t); m != nil && utf8.RuneCountInString(m[2]) <= 30 {
		return m[1] + "、", m[2], 1
	}
	first, after, ok := strings.Cut(t, " ")
	if !ok {
		return "", t, 0
	}
	m := numberedRE.FindStringSubmatch(first)
	after = strings.TrimSpace(after)
	if m == nil || after == "" || strings.HasPrefix(m[1], "0") {
		return "", t, 0
	}
	c, _ := utf8.DecodeRuneInString(after)
	if !unicode.IsUpper(c) && !isCJK(c) {
		return "", t, 0
	}
	// a table row or a list of figures: the rest holds more numbers than words
	digits := 0
	for _, f := range strings.Fields(after) {
		if f[0] >= '0' && f[0] <= '9' {
			digits++
		}
	}
	if digits*2 > len(strings.Fields(after)) {
		return "", t, 0
	}
	return m[1], after, strings.Count(m[1], ".") + 1
}

// plainTitle reports whether the words after a number at the body's size read as a section's title: no figures,
// no closing bracket (not "6.4 Mbytes of cons cells used (58%)", a line of program output).
func plainTitle(rest string) bool {
	return !strings.ContainsAny(rest, "0123456789%") && !strings.HasSuffix(strings.TrimSpace(rest), ")")
}

// chapterAlone matches a chapter's number on a line of its own, its title on the next ("Chapter 1" / "The base
// package").
var chapterAlone = regexp.MustCompile(`^(?:Chapter|CHAPTER|Part|PART|Appendix|APPENDIX)\s+(?:\d{1,3}|[A-Z]|[IVXLC]{1,6})$|^第\s*[0-9一二三四五六七八九十百零〇]+\s*[章节節部篇编編卷]$`)

// startsLikeAHeading reports whether a line found by its size alone begins as a heading does: with a capital or
// a letter of a script without case (CJK), not a digit, a bracket or a lower-case word (a chart's labels, a
// sample of text).
func startsLikeAHeading(s string) bool {
	c, _ := utf8.DecodeRuneInString(strings.TrimSpace(s))
	if !unicode.IsUpper(c) && !(unicode.IsLetter(c) && !unicode.IsLower(c)) {
		return false
	}
	words, figures := strings.Fields(s), 0
	for _, w := range words {
		if strings.ContainsAny(w, "0123456789") {
			figures++
		}
	}
	return figures*2 <= len(words) // not a chart's axis ("Jan-99 Feb-99 Mar-99 …")
}

// nearEdge reports whether l lies in the page's top or bottom eighth, where running headers and footers are.
func nearEdge(l pline) bool {
	if l.ph <= 0 {
		return false
	}
	cy := (l.box.Y0 + l.box.Y1) / 2 / l.ph
	return cy < 0.12 || cy > 0.88
}

func endsInNumber(s string) bool {
	f := strings.Fields(s)
	if len(f) < 2 {
		return false
	}
	_, err := strconv.Atoi(f[len(f)-1])
	return err == nil
}

// bodyFollows reports whether body text follows a heading found by its size alone: a line of body size with a few
// words close under it, or another heading (a chart's labels have neither).
func bodyFollows(l pline, body float64) bool {
	n := l.next
	if n == nil || n.box.Y0-l.box.Y1 > 4*l.height {
		return false
	}
	if n.height >= body*1.15 {
		return true
	}
	return math.Abs(n.height-body) <= 1 && (n.words >= 4 || utf8.RuneCountInString(n.text) >= 12)
}

// bodyHeight is the height most of the document's characters have.
func (r *reader) bodyHeight() float64 {
	best, n := 0.0, 0.0
	for h, c := range r.heights {
		if c > n || c == n && h < best {
			best, n = h, c
		}
	}
	return best
}

// title is page 1's largest text above its first body line, with the lines of that size joined; titleLines are
// every tall line of that title block (the title, its authors, a date), which are no sections.
func (r *reader) title(body float64) (string, map[tables.Box]bool) {
	block := map[tables.Box]bool{}
	var tall []pline
	for _, l := range r.firstPage {
		if body <= 0 || l.height < body*1.15 {
			if len(tall) > 0 && l.words >= 6 {
				break
			}
			continue
		}
		if _, _, lv := numbering(l.text); lv > 0 {
			break
		}
		tall = append(tall, l)
	}
	if len(tall) == 0 {
		return "", block
	}
	top := 0.0
	for _, l := range tall {
		top = max(top, l.height)
		block[l.box] = true
	}
	var parts []string
	for _, l := range tall {
		if l.height >= top-0.5 {
			if len(parts) > 0 {
				parts = append(parts, joinSep(parts[len(parts)-1], l.text))
			}
			parts = append(parts, strings.TrimSpace(l.text))
		}
	}
	return clip(strings.Join(parts, ""), 200), block
}
