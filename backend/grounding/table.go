package grounding

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"proofglass/backend/wordlines"
)

// A page's words laid out as a table reads them: lines by baseline, the row label left of a cell, the column header
// above it, and the scale a table's note gives its bare figures ("in millions", 单位：万元).

// scaleNoteRE finds a note that scales a table's figures: "(in millions)", "($ in thousands)", "(Dollars in
// millions, except per share data)", "($ million)", "(€m)", "in USD thousands", "in millions of dollars", "单位：万元",
// "（人民币亿元）". A bare "in thousands" of running text ("measured in thousands") is no note.
var scaleNoteRE = regexp.MustCompile(`(?i)(?:\(\s*(?:(?:us)?\$|usd|eur|€|£|rmb|dollars|amounts|euros)?\s*(?:in\s+)?(?:(?:us)?\$|usd|eur|€|£|rmb)?\s*(thousands?|millions?|billions?|mn|bn|m|k|000s?|'000)\b|\b(?:dollars|amounts|figures|usd|eur|euros)\s+in\s+(thousands|millions|billions)\b|\bin\s+(?:(?:us)?\$\s*|usd\s+|eur\s+|€\s*|£\s*|rmb\s+)?(thousands|millions|billions)\s+of\s+(?:u\.?s\.?\s+)?(?:dollars|euros|rmb|yuan)\b|\bin\s+(?:(?:us)?\$|usd|eur|€|£|rmb)\s*(thousands|millions|billions)\b|单位\s*[:：]\s*(?:人民币|美元)?\s*(千元|万元|百万元|亿元|千|万|百万|亿)|[（(]\s*(?:人民币|美元)?\s*(千元|万元|百万元|亿元)\s*[）)])`)

// noteScales are the multipliers of the words a scale note names.
var noteScales = map[string]float64{"thousand": 1e3, "thousands": 1e3, "k": 1e3, "000": 1e3, "000s": 1e3, "'000": 1e3,
	"million": 1e6, "millions": 1e6, "mn": 1e6, "m": 1e6, "billion": 1e9, "billions": 1e9, "bn": 1e9,
	"千元": 1e3, "千": 1e3, "万元": 1e4, "万": 1e4, "百万元": 1e6, "百万": 1e6, "亿元": 1e8, "亿": 1e8}

// scaleNote is a note on a page that scales the bare figures after it.
type scaleNote struct {
	at    int // byte offset in the page's text
	end   int
	scale float64
	text  string
}

func scaleNotes(text string) []scaleNote {
	var out []scaleNote
	for _, m := range scaleNoteRE.FindAllStringSubmatchIndex(text, 32) {
		for g := 1; g < len(m)/2; g++ {
			if m[2*g] < 0 {
				continue
			}
			word := strings.ToLower(text[m[2*g]:m[2*g+1]])
			if s, ok := noteScales[word]; ok {
				t := strings.TrimSpace(text[m[0]:m[1]])
				if strings.HasPrefix(t, "(") {
					t += ")" // "(in millions, except per share data)" is shown as "(in millions)"
				}
				out = append(out, scaleNote{at: m[0], end: m[1], scale: s, text: t})
			}
			break
		}
	}
	return out
}

// applyScaleNotes gives each bare figure of the page (a number or an amount with no scale word of its own, not a
// percentage or a year) the readings its table's note gives it: the nearest note before it, or the page's first.
func (p *Page) applyScaleNotes() {
	notes := scaleNotes(p.text)
	if len(notes) == 0 {
		return
	}
	for i := range p.mentions {
		m := &p.mentions[i]
		if m.Scale > 0 || m.Percent || m.Kind == KindYear || m.Kind == KindDate || len(m.Values) == 0 {
			continue
		}
		n := notes[0]
		for _, o := range notes {
			if o.end <= m.Start {
				n = o
			}
		}
		if m.Start >= n.at && m.Start < n.end {
			continue // the note's own number ("'000")
		}
		// Only the usual reading is scaled: a table under "(in millions)" groups thousands with its commas.
		m.raw = len(m.Values)
		m.Values = append(m.Values, m.Values[0]*n.scale)
		m.note = n.text
		m.noteScale = n.scale
	}
}

// readings are the values of m that c is compared with: under a scale note, a claim with a scale word of its own
// ("$4.51 million") means the scaled figure, never the bare one (4,512,300 "in thousands" is not 4.51 million).
func (m *mention) readings(c Claim) Claim {
	if m.noteScale > 0 && c.Scale > 0 {
		r := m.Claim
		r.Values = m.Values[m.raw:]
		return r
	}
	return m.Claim
}

// layoutLines groups the page's words into lines (backend/wordlines); words without boxes are on no line.
func (p *Page) layoutLines() {
	p.lines = wordlines.Lines(p.Words)
	p.line = make([]int32, len(p.Words))
	for i := range p.line {
		p.line[i] = -1
	}
	for n, l := range p.lines {
		for _, i := range l {
			p.line[i] = int32(n)
		}
	}
}

// hasLetters reports whether a word holds a letter (a label's word, not a cell's figure).
func hasLetters(s string) bool {
	for _, c := range s {
		if unicode.IsLetter(c) {
			return true
		}
	}
	return false
}

// isYearWord reports whether a word is a year, as a column header writes it: 2023, FY2023, 2023A, (2023).
func isYearWord(s string) bool {
	return yearRE.MatchString(s)
}

var yearRE = regexp.MustCompile(`^[(（]?(?:FY|fy|Q[1-4]\s?)?(?:19|20)\d\d(?:[AEBFae]|年(?:度)?)?[)）:]?$`)

// columnHeader are the words heading the column of words first..last: walking up from their line, the first line
// whose words over the same x-extent are not all figures (a label or a year), and the line above it when it heads
// the same column too.
func (p *Page) columnHeader(first, last int) []int {
	if p.line == nil || p.line[first] < 0 {
		return nil
	}
	x0, x1 := p.Words[first].X0, p.Words[last].X1
	var out []int
	for l := int(p.line[first]) - 1; l >= 0 && int(p.line[first])-l <= 40; l-- {
		var over []int
		header := false
		for _, i := range p.lines[l] {
			w := p.Words[i]
			if w.X1 < x0 || w.X0 > x1 {
				continue
			}
			over = append(over, i)
			if hasLetters(w.Text) || isYearWord(w.Text) {
				header = true
			}
		}
		if len(over) == 0 {
			continue
		}
		if !header {
			if len(out) > 0 {
				break
			}
			continue // another row's cell
		}
		out = append(out, p.phrase(l, over)...)
		if !isYearWord(p.Words[over[0]].Text) {
			break // a label heads the column; a year may sit under a "Year ended" line, read next
		}
	}
	return out
}

// phrase widens words of line l to the phrase they are part of: the neighbours on the line closer than a word's
// height ("Vaginal delivery (677)" heads the column its first word stands over).
func (p *Page) phrase(l int, words []int) []int {
	line := p.lines[l]
	lo, hi := slices.Index(line, words[0]), slices.Index(line, words[len(words)-1])
	if lo < 0 || hi < 0 {
		return words
	}
	gap := func(a, b int) bool {
		wa, wb := p.Words[line[a]], p.Words[line[b]]
		return wb.X0-wa.X1 < (wa.Y1-wa.Y0)*0.8
	}
	for lo > 0 && gap(lo-1, lo) {
		lo--
	}
	for hi < len(line)-1 && gap(hi, hi+1) {
		hi++
	}
	return line[lo : hi+1]
}

// mentionContext is what stands around a mention: its distinctive words, and the years naming its row or column.
type mentionContext struct {
	words map[string]bool
	years map[string]bool
	// figures are the other figures beside it, as written ("0.198"): an answer that names them names the row.
	figures map[string]bool
	// label are the words of a table row's label: how much of it the answer names tells rows apart ("Dissatisfied"
	// from "Neither satisfied nor dissatisfied").
	label map[string]bool
}

// context is the mention's context, worked out once: the words of its line (a table row's label), the column
// header above it, and on a line of prose or a page without boxes the six words either side.
func (p *Page) context(m *mention) mentionContext {
	if m.ctx != nil {
		return *m.ctx
	}
	ctx := mentionContext{words: map[string]bool{}, years: map[string]bool{}, figures: map[string]bool{}}
	near := func(i int) {
		contextWords(p.Words[i].Text, ctx.words)
		figuresOf(p.Words[i].Text, ctx.figures)
	}
	own := func(i int) bool { return i >= m.first && i <= m.last }
	if p.prose(m) {
		from, to := p.sentence(m.first, m.last)
		for i := from; i <= to; i++ {
			if !own(i) {
				near(i)
			}
		}
		// The year written right beside a figure is its year: "$27,537 million in 2020".
		for d := 1; d <= 3; d++ {
			if i := m.last + d; d <= 2 && i <= to && isYearWord(strings.TrimRight(p.Words[i].Text, ",.;:")) {
				yearsOf(p.Words[i].Text, ctx.years)
				break
			}
			if i := m.first - d; i >= from && isYearWord(strings.TrimRight(p.Words[i].Text, ",.;:")) {
				yearsOf(p.Words[i].Text, ctx.years)
				break
			}
		}
	} else {
		// A table row: its label and the other words of the line, and the column's header.
		ctx.label = map[string]bool{}
		line := p.lines[p.line[m.first]]
		for k, i := range line {
			if k > 0 && p.wideGap(line[k-1], i) || own(i) {
				break // the label is the row's first cell
			}
			contextWords(p.Words[i].Text, ctx.label)
		}
		for _, i := range line {
			if own(i) {
				continue
			}
			near(i)
			if isYearWord(p.Words[i].Text) && p.Words[i].X1 <= p.Words[m.first].X0 {
				yearsOf(p.Words[i].Text, ctx.years) // a row labelled by its year
			}
		}
		for _, i := range p.columnHeader(m.first, m.last) {
			near(i)
			yearsOf(p.Words[i].Text, ctx.years)
		}
	}
	m.ctx = &ctx
	return ctx
}

// prose reports whether m stands in running text rather than a table's row. A row has a wide gap between its words
// (label, then cells) and few words of letters; a paragraph's short last line has neither gap nor cells. A page
// without boxes is read as text.
func (p *Page) prose(m *mention) bool {
	if p.line == nil || p.line[m.first] < 0 {
		return true
	}
	l := p.lines[p.line[m.first]]
	letters, gap := 0, false
	for k, i := range l {
		w := p.Words[i]
		if hasLetters(w.Text) {
			letters++
		}
		if k > 0 && p.wideGap(l[k-1], i) {
			gap = true
		}
	}
	return !gap || letters > 6
}

// figuresOf adds the figures written in s other than years, without their punctuation ("1,020", "0.198"), to into.
func figuresOf(s string, into map[string]bool) {
	for _, w := range strings.Fields(s) {
		f := strings.Trim(w, "()[]{},;:$€£¥%")
		f = strings.TrimSuffix(f, ".")
		if f == "" || strings.IndexFunc(f, func(r rune) bool { return r < '0' || r > '9' }) >= 0 &&
			strings.Trim(f, "0123456789.,-") != "" {
			continue
		}
		if len(f) == 4 && (strings.HasPrefix(f, "19") || strings.HasPrefix(f, "20")) {
			continue // a year counts as a year
		}
		if strings.ContainsAny(f, "0123456789") {
			into[f] = true
		}
	}
}

// cellName names a table cell's row and column as the page writes them (", row Net income, column 2023"); "" for a
// figure in running text.
func (p *Page) cellName(m *mention) string {
	if p.prose(m) {
		return ""
	}
	var row []string
	line := p.lines[p.line[m.first]]
	for k, i := range line {
		if k > 0 && p.wideGap(line[k-1], i) || i >= m.first && i <= m.last {
			break
		}
		row = append(row, p.Words[i].Text)
	}
	var col []string
	for _, i := range p.columnHeader(m.first, m.last) {
		col = append(col, p.Words[i].Text)
	}
	var out string
	if r := strings.TrimRight(strings.Join(row, " "), ":"); r != "" && hasLetters(r) {
		out += ", row " + r
	}
	if c := strings.Join(col, " "); c != "" {
		out += ", column " + c
	}
	return out
}

// wideGap reports whether words a and b of a line, left to right, stand further apart than a word is high: the gap
// between a table's cells.
func (p *Page) wideGap(a, b int) bool { return wordlines.WideGap(p.Words[a], p.Words[b]) }

// labelNamed is the share of m's row label (its first cell) the answer names; 0 where it has none.
func (p *Page) labelNamed(m *mention, a answerSide) float64 {
	label := p.context(m).label
	if len(label) == 0 {
		return 0
	}
	n := 0
	for w := range label {
		if a.words[w] {
			n++
		}
	}
	return float64(n) / float64(len(label))
}

// sentence is the window of words around first..last that stays in their sentence: up to eight words either side,
// not past a word that ends a sentence.
func (p *Page) sentence(first, last int) (int, int) {
	ends := func(i int) bool {
		w := p.Words[i].Text
		return strings.HasSuffix(w, ".") && len(w) > 4 || strings.HasSuffix(w, "。") || strings.HasSuffix(w, ";") ||
			strings.HasSuffix(w, "；") || strings.HasSuffix(w, "?") || strings.HasSuffix(w, "!")
	}
	from := first
	for from > 0 && first-from < 8 && !ends(from-1) {
		from--
	}
	to := last
	for to < len(p.Words)-1 && to-last < 8 && !ends(to) {
		to++
	}
	return from, to
}

// yearsOf adds the years written in s (2023, FY2023, 2023年) to into: runs of four digits from 1900 to 2099 that
// are not part of a longer number (2,012,020 or 20.12).
func yearsOf(s string, into map[string]bool) {
	digit := func(i int) bool { return i >= 0 && i < len(s) && s[i] >= '0' && s[i] <= '9' }
	for i := 0; i+4 <= len(s); i++ {
		if !digit(i) || digit(i-1) {
			continue
		}
		j := i
		for digit(j) {
			j++
		}
		partOf := func(k, next int) bool { return k >= 0 && k < len(s) && (s[k] == ',' || s[k] == '.') && digit(next) }
		if j-i == 4 && (s[i:i+2] == "19" || s[i:i+2] == "20") && !partOf(i-1, i-2) && !partOf(j, j+1) {
			into[s[i:j]] = true
		}
		i = j
	}
}

// fit is how well a mention's context agrees with what the answer says around its claim.
type fit int

const (
	fitConflict fit = iota // the mention's row or column names another year than the answer
	fitNone                // the answer names its subject, and nothing of it is near the mention
	fitBare                // nothing to judge by: the answer or the page gives no distinctive word
	fitContext             // a distinctive word of the answer is near the mention
)

// answerSide is what the answer says around one claim.
type answerSide struct {
	words   map[string]bool
	years   map[string]bool
	figures map[string]bool
}

// judge says how well m's context fits the answer's, and how closely: the words and years they share, and for a
// table row twice the share of its label that the answer names.
func (p *Page) judge(m *mention, a answerSide) (fit, float64) {
	ctx := p.context(m)
	if len(a.years) > 0 && len(ctx.years) > 0 {
		common := false
		for y := range a.years {
			if ctx.years[y] {
				common = true
				break
			}
		}
		if !common {
			return fitConflict, 0
		}
	}
	shared, years := 0, 0
	for w := range ctx.words {
		if a.words[w] {
			shared++
		}
	}
	for y := range ctx.years {
		if a.years[y] {
			years++ // a year agrees, but names no subject: it only ranks
		}
	}
	figures := 0
	for f := range ctx.figures {
		if a.figures[f] {
			figures++ // so does another figure of its row, but it can tell rows apart
		}
	}
	score := float64(shared) + 0.5*float64(years) + 0.5*float64(figures)
	if len(ctx.label) > 0 {
		named := 0
		for w := range ctx.label {
			if a.words[w] {
				named++
			}
		}
		score += 2 * float64(named) / float64(len(ctx.label))
	}
	switch {
	case shared > 0:
		return fitContext, score
	case len(a.words) == 0 || len(ctx.words) == 0 || !sameScript(a.words, ctx.words):
		return fitBare, 0 // a Chinese answer about an English table has no words to judge it by
	}
	return fitNone, 0
}

// sameScript reports whether two sets of context words share a script: Han (marked "·") or letters.
func sameScript(a, b map[string]bool) bool {
	scripts := func(ws map[string]bool) (han, latin bool) {
		for w := range ws {
			if strings.HasSuffix(w, "·") {
				han = true
			} else {
				latin = true
			}
		}
		return han, latin
	}
	ah, al := scripts(a)
	bh, bl := scripts(b)
	return ah && bh || al && bl
}

// sharedWords counts the answer's words in m's context.
func (p *Page) sharedWords(m *mention, a answerSide) int {
	n := 0
	for w := range p.context(m).words {
		if a.words[w] {
			n++
		}
	}
	return n
}

// nearestRel is how far apart the closest readings of two claims are, relative to the larger.
func nearestRel(as, bs []float64) (float64, float64) {
	best, bv := math.Inf(1), 0.0
	for _, a := range as {
		for _, b := range bs {
			if rel := math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-300); rel < best {
				best, bv = rel, b
			}
		}
	}
	return best, bv
}
