package grounding

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"proofglass/backend/kb"
)

// Page is one unit's words, indexed for checking claims: the numbers and dates on it, and its compact text.
type Page struct {
	UnitID       int64
	DocumentID   int64
	DocumentName string
	Ordinal      int
	W, H         float64 // the unit's size, in the space of its word boxes
	Words        []kb.Word

	text     string
	starts   []int // byte offset of each word in text
	mentions []mention
	compact  string
	cword    []int32 // word index of each byte of compact
	line     []int32 // line of each word (-1: no box)
	lines    [][]int // words of each line, left to right
}

type mention struct {
	Claim
	first, last int // word indices
	// note is the table note whose scale gave the mention its scaled readings ("(in millions)"), noteScale that
	// scale.
	note      string
	noteScale float64
	raw       int // the readings before the note's scale was applied
	ctx       *mentionContext
}

// NewPage indexes a unit's words. Words without boxes (zero boxes) are fine: only the boxes reported are missing.
func NewPage(u kb.Unit, documentName string) *Page {
	words := u.Words
	if len(words) == 0 && u.Text != "" {
		for _, f := range strings.Fields(u.Text) {
			words = append(words, kb.Word{Text: f})
		}
	}
	p := &Page{UnitID: u.ID, DocumentID: u.DocumentID, DocumentName: documentName, Ordinal: u.Ordinal, W: u.Width,
		H: u.Height, Words: words}
	var b, cb strings.Builder
	p.starts = make([]int, len(words))
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		p.starts[i] = b.Len()
		b.WriteString(w.Text)
		c := compact(w.Text)
		cb.WriteString(c)
		for range len(c) {
			p.cword = append(p.cword, int32(i))
		}
	}
	p.text, p.compact = b.String(), cb.String()
	for _, c := range extract(p.text, true) {
		p.mentions = append(p.mentions, mention{Claim: c, first: p.wordAt(c.Start), last: p.wordAt(c.End - 1)})
	}
	p.layoutLines()
	p.applyScaleNotes()
	return p
}

// wordAt is the index of the word holding byte offset off of the page's text.
func (p *Page) wordAt(off int) int {
	return max(sort.SearchInts(p.starts, off+1)-1, 0)
}

// region is a rectangle in a page's word space; the zero region is the whole page.
type region struct{ x0, y0, x1, y1 float64 }

func (r region) whole() bool { return r == region{} }

// inside reports whether word i's centre lies in r (always, for the whole page).
func (p *Page) inside(r region, i int) bool {
	if r.whole() {
		return true
	}
	w := p.Words[i]
	cx, cy := (w.X0+w.X1)/2, (w.Y0+w.Y1)/2
	return cx >= r.x0 && cx <= r.x1 && cy >= r.y0 && cy <= r.y1
}

// hit is words of a page a claim was compared with.
type hit struct {
	page        *Page
	first, last int
	m           *mention // the mention, for numbers
}

// find looks for a claim equal to c among the page's words within r. A figure may be there more than once: the
// mention whose context fits the answer's best wins, and its fit is returned (a phrase found is its own context).
func (p *Page) find(c Claim, r region, a answerSide) (hit, fit, bool) {
	if !c.Figure() {
		from := 0
		for {
			k := strings.Index(p.compact[from:], c.Phrase)
			if k < 0 || c.Phrase == "" {
				return hit{}, fitConflict, false
			}
			k += from
			first, last := int(p.cword[k]), int(p.cword[k+len(c.Phrase)-1])
			if p.inside(r, first) && p.inside(r, last) && p.wordBounded(k, k+len(c.Phrase)) {
				return hit{page: p, first: first, last: last}, fitContext, true
			}
			from = k + 1
		}
	}
	var best hit
	bestFit, bestShared, found := fitConflict, -1.0, false
	for i := range p.mentions {
		m := &p.mentions[i]
		if c.Percent && !m.Percent && !p.percentLine(m) {
			continue // "21 %" is not a bare 21, unless the page's line gives its unit as % (a table row)
		}
		if !p.inside(r, m.first) || !equal(c, m.readings(c)) {
			continue
		}
		f, shared := p.judge(m, a)
		if !found || f > bestFit || f == bestFit && shared > bestShared {
			best, bestFit, bestShared, found = hit{page: p, first: m.first, last: m.last, m: m}, f, shared, true
		}
	}
	if found && bestFit >= fitBare && !p.prose(best.m) && p.betterRow(c, a, r, best.m) {
		bestFit = fitNone // the answer speaks of another row: "very satisfied" is not "somewhat satisfied"
	}
	return best, bestFit, found
}

// betterRow reports whether a figure of c's form on another line within r shares more of the answer's words than m
// does: the row the answer names is elsewhere.
func (p *Page) betterRow(c Claim, a answerSide, r region, m *mention) bool {
	mine := p.sharedWords(m, a)
	for i := range p.mentions {
		o := &p.mentions[i]
		if o == m || !p.inside(r, o.first) || o.Kind == KindDate || (o.Kind == KindYear) != (c.Kind == KindYear) ||
			c.Percent != o.Percent && !p.percentLine(o) || p.sameLine(o, m) || p.prose(o) {
			continue
		}
		if f, _ := p.judge(o, a); f == fitContext {
			// More of the answer's words, or as many and the whole of its label where m's label is named only in
			// part ("Dissatisfied" against "Neither satisfied nor dissatisfied").
			theirs := p.sharedWords(o, a)
			if theirs > mine || theirs == mine && p.labelNamed(o, a) == 1 && p.labelNamed(m, a) < 1 {
				return true
			}
		}
	}
	return false
}

// sameColumn reports whether two mentions of a table stand one above the other (their boxes overlap across).
func (p *Page) sameColumn(a, b *mention) bool {
	if p.line == nil || p.line[a.first] < 0 || p.line[b.first] < 0 || p.prose(a) || p.prose(b) {
		return false
	}
	wa, wb := p.Words[a.first], p.Words[b.first]
	return wa.X0 <= p.Words[b.last].X1 && wb.X0 <= p.Words[a.last].X1 && wa.X1 > wa.X0
}

// sameLine reports whether two mentions stand on one line of the page (a table's row).
func (p *Page) sameLine(a, b *mention) bool {
	return p.line != nil && p.line[a.first] >= 0 && p.line[a.first] == p.line[b.first]
}

// wordBounded reports whether compact[from:to] starts and ends at word ends: "Mayor Tush" in "Mayor Tush's" but not
// "Mayor Tushs" in "Mayor Tush should". Han text has no word ends to check.
func (p *Page) wordBounded(from, to int) bool {
	if r, _ := utf8.DecodeRuneInString(p.compact[from:]); isHan(r) {
		return true
	}
	if from > 0 && p.cword[from-1] == p.cword[from] {
		return false
	}
	if to == len(p.compact) || p.cword[to] != p.cword[to-1] {
		return true
	}
	// The phrase ends inside a word: only a possessive's "s" may follow, as the word's last letter.
	lastOfWord := to+1 == len(p.compact) || p.cword[to+1] != p.cword[to]
	return p.compact[to] == 's' && lastOfWord && strings.ContainsAny(p.Words[p.cword[to]].Text, "'’")
}

// equal reports whether a page mention m states claim c: the same date, or the same value in any form (1.2 billion
// = 1,200 million; 12.5 % = 12.5 percent), a written value matching the page's rounded to as many decimals.
func equal(c, m Claim) bool {
	if c.Kind == KindYear && m.Kind == KindDate && len(c.Values) > 0 {
		// "2015" is on a page that says "December 31, 2015".
		return strings.HasPrefix(m.Date, strconv.Itoa(int(c.Values[0]))+"-")
	}
	if c.Kind == KindDate || m.Kind == KindDate {
		return c.Kind == m.Kind && c.Date == m.Date
	}
	if c.Currency != "" && m.Currency != "" && c.Currency != m.Currency {
		return false
	}
	if c.Kind == KindRange {
		return m.Kind == KindRange && sameValue(c.Values, m.Values, c) && sameValue(c.Hi, m.Hi, c)
	}
	if m.Kind == KindRange {
		return false
	}
	if c.Scale == 0 && m.Scale > 1 && !c.Percent && c.Kind != KindYear {
		// The answer left out the page's scale word: "12.8" for "12.8 billion years" says the page's digits.
		bare := make([]float64, len(m.Values))
		for i, v := range m.Values {
			bare[i] = v / m.Scale
		}
		if sameValue(c.Values, bare, c) {
			return true
		}
	}
	return sameValue(c.Values, m.Values, c)
}

func sameValue(as, bs []float64, c Claim) bool {
	for _, a := range as {
		for _, b := range bs {
			if close(a, b) {
				return true
			}
			// The answer rounds what the page has: 87 % for 86.6 %, 3.1 for 3.14 (only where the answer writes
			// decimals or a percentage: a bare integer is too easily matched by rounding).
			if (c.Decimals > 0 || c.Percent) && roundsTo(a, b, c.Decimals) && !close(a, 0) {
				return true
			}
			if roundsAtScale(a, b, c) {
				return true
			}
		}
	}
	return false
}

// roundsAtScale reports whether a, written with a scale word ("$14.7 billion"), is b rounded at that scale
// (14,694 million), where the rounding step is at most a tenth of the written number (so "$15 billion" may
// round 14.7 billion, but "$1 billion" rounds nothing).
func roundsAtScale(a, b float64, c Claim) bool {
	if c.Scale <= 1 || close(a, 0) {
		return false
	}
	ma, mb := a/c.Scale, b/c.Scale
	step := math.Pow(10, -float64(c.Decimals))
	return step <= math.Abs(ma)/10+1e-9 && roundsTo(ma, mb, c.Decimals)
}

// roundsTo reports whether a is b written with decimals digits: within half a step of it, so that a value half-way
// (2.295) may be written either way (2.29 or 2.30), as binary floating point and people round it.
func roundsTo(a, b float64, decimals int) bool {
	half := math.Pow(10, -float64(decimals)) / 2
	return math.Abs(a-b) <= half*(1+1e-9) && close(a, roundTo(a, decimals))
}

func close(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func roundTo(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}

// Equal reports whether two written figures state the same value ("1.2 billion" and "1,200 million"), reading
// each as Extract does; false when either holds no figure.
func Equal(a, b string) bool {
	ca, cb := Extract(a), extract(b, true)
	if len(ca) == 0 || len(cb) == 0 {
		return false
	}
	return equal(ca[0], cb[0])
}

// stop are words too common to tie a figure to its context.
var stop = map[string]bool{"the": true, "and": true, "was": true, "were": true, "are": true, "for": true, "with": true,
	"that": true, "this": true, "from": true, "has": true, "had": true, "have": true, "per": true, "its": true,
	"which": true, "about": true, "table": true, "figure": true, "than": true, "into": true, "their": true,
	"there": true, "been": true, "also": true, "all": true, "not": true, "but": true, "our": true, "med": true,
	// Verbs an answer states a figure with name nothing the figure is of.
	"lists": true, "list": true, "listed": true, "shows": true, "show": true, "shown": true, "reports": true,
	"reported": true, "says": true, "said": true, "states": true, "stated": true, "gives": true, "given": true,
	"notes": true, "noted": true, "amounted": true, "came": true, "stood": true, "reached": true, "totalled": true,
	"totaled": true, "respectively": true, "approximately": true, "around": true, "nearly": true, "roughly": true,
	"some": true, "over": true, "under": true, "more": true, "less": true, "least": true, "most": true,
	"is": true, "be": true, "being": true, "document": true, "report": true, "according": true}

// contextWords are the distinctive words of s, lower case (letters only, three or more; Han characters one by one).
func contextWords(s string, into map[string]bool) {
	word := func(w string) {
		if len(w) >= 3 && !stop[w] {
			into[w] = true
		}
	}
	var cur []rune
	for _, c := range s {
		switch {
		case isCJKNumeral(c):
			word(string(cur)) // a numeral is the figure, not its context
			cur = cur[:0]
		case isHan(c):
			word(string(cur))
			cur = cur[:0]
			into[string(c)+"·"] = true // Han characters count one by one; the mark keeps len >= 3 out of play
		case unicode.IsLetter(c):
			cur = append(cur, unicode.ToLower(c))
		default:
			word(string(cur))
			cur = cur[:0]
		}
	}
	word(string(cur))
}

// clauseEnds end a clause of an answer: the context of a figure stays inside its own.
var clauseEnds = []string{"\n", ". ", "; ", "。", "；", "！", "？", "! ", "? "}

// abbreviations end with a period that ends no clause.
var abbreviations = map[string]bool{"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "inc": true,
	"co": true, "corp": true, "ltd": true, "jr": true, "sr": true, "st": true, "vs": true, "al": true, "fig": true,
	"no": true, "vol": true, "eds": true, "ed": true, "approx": true, "jan": true, "feb": true, "mar": true,
	"apr": true, "jun": true, "jul": true, "aug": true, "sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
	"e.g": true, "i.e": true, "u.s": true}

// endsClause reports whether the end mark e found at text[k:] ends a clause: a period after an initial ("E. R.
// Tufte") or an abbreviation ("Dec. 31", "et al.") does not.
func endsClause(text string, k int, e string) bool {
	if e != ". " {
		return true
	}
	w := k
	for w > 0 && (isWordByte(text[w-1]) || text[w-1] == '.') {
		w--
	}
	word := strings.ToLower(text[w:k])
	return word == "" || len(word) > 1 && !abbreviations[word] // after a quote, a bracket or a figure it ends one
}

// clauseFrom is where the clause holding text[:at] starts, at most back to from.
func clauseFrom(text string, from, at int) int {
	for _, e := range clauseEnds {
		for hi := at; hi > from; {
			k := strings.LastIndex(text[from:hi], e)
			if k < 0 {
				break
			}
			if endsClause(text, from+k, e) {
				from += k + len(e)
				break
			}
			hi = from + k
		}
	}
	return from
}

// clauseTo is where the clause holding text[at:] ends, at most at to.
func clauseTo(text string, at, to int) int {
	for _, e := range clauseEnds {
		for lo := at; lo < to; {
			k := strings.Index(text[lo:to], e)
			if k < 0 {
				break
			}
			if endsClause(text, lo+k, e) {
				to = lo + k
				break
			}
			lo += k + len(e)
		}
	}
	return to
}

// answerContext is what an answer says around a claim, within its clause (up to 80 bytes either side):
// its distinctive words and the years it names.
func answerContext(text string, c Claim) answerSide {
	from := clauseFrom(text, max(0, c.Start-80), c.Start)
	to := clauseTo(text, c.End, min(len(text), c.End+80))
	// Whole words only: a word cut by the window is not the answer's ("dissatisf").
	for from > 0 && from < c.Start && isWordByte(text[from-1]) {
		from++
	}
	for to < len(text) && isWordByte(text[to]) && to > c.End && isWordByte(text[to-1]) {
		to++
	}
	out := answerSide{words: map[string]bool{}, years: map[string]bool{}, figures: map[string]bool{}}
	for _, part := range []string{text[from:c.Start], text[c.End:to]} {
		contextWords(part, out.words)
		yearsOf(part, out.years)
		figuresOf(part, out.figures)
	}
	return out
}

func isWordByte(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// percentLine reports whether the line of a mention holds a "%" word: a table row whose unit column is %.
func (p *Page) percentLine(m *mention) bool {
	if p.prose(m) {
		return false // a sentence's "%" is its own figure's, not a unit column's
	}
	for _, i := range p.lines[p.line[m.first]] {
		if strings.Contains(p.Words[i].Text, "%") {
			return true
		}
	}
	return false
}

// differing looks, within r, for a figure of the same form as c in the same context (its row or column shares a
// distinctive word or a year with the answer's, and names no other year) whose value differs: the figure the page
// has where the answer has c. The best fitting, then the closest value, wins; a value whose digits are the answer's
// at another scale (million for billion) is a difference too.
func (p *Page) differing(c Claim, a answerSide, r region, wrong *mention) (hit, bool) {
	if len(a.words) == 0 && len(a.years) == 0 {
		return hit{}, false
	}
	if c.Kind == KindDate {
		return p.differingDate(c, a, r)
	}
	if len(c.Values) == 0 {
		return hit{}, false
	}
	best, bestScore := -1, math.Inf(-1)
	for i := range p.mentions {
		m := &p.mentions[i]
		if !p.inside(r, m.first) || m.Kind == KindDate || len(m.Values) == 0 || (m.Kind == KindYear) != (c.Kind == KindYear) {
			continue
		}
		if (c.Kind == KindRange) != (m.Kind == KindRange) {
			continue
		}
		if c.Percent != m.Percent && !p.percentLine(m) {
			continue // a percentage differs from a count, unless the page's line gives its unit as % (a table row)
		}
		if equal(c, m.readings(c)) {
			continue // the answer's own value, out of its context: not what the page has there
		}
		vals := m.readings(c).Values
		rel, b := nearestRel(c.Values, vals)
		if rel >= 0.5 && (c.Scale > 0 && scaleSlip(c, vals) || sameDigits(c.Text, m.Text) || wrong != nil && (p.sameLine(wrong, m) || p.sameColumn(wrong, m))) {
			rel = 0.45
		} else if rel >= 0.5 || (c.Values[0] < 0) != (b < 0) {
			continue
		}
		f, shared := p.judge(m, a)
		if f != fitContext {
			continue
		}
		score := shared*10 - rel*20
		if m.Percent == c.Percent {
			score += 3
		}
		if m.Decimals == c.Decimals {
			score++
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return hit{}, false
	}
	m := &p.mentions[best]
	return hit{page: p, first: m.first, last: m.last, m: m}, true
}

// sameDigits reports whether two figures are written with the same digits in another order (15 % for 51 %, 1,084
// for 1,048): a typo, however far apart the values.
func sameDigits(a, b string) bool {
	digits := func(s string) string {
		var out []rune
		for _, c := range s {
			if c >= '0' && c <= '9' {
				out = append(out, c)
			}
		}
		return string(out)
	}
	da, db := digits(a), digits(b)
	if da == db || len(da) != len(db) || da == "" {
		return false
	}
	sa, sb := []rune(da), []rune(db)
	slices.Sort(sa)
	slices.Sort(sb)
	return string(sa) == string(sb)
}

// scaleSlip reports whether c, written with a scale word, is a reading of bs at another scale (a thousand, ten thousand, a million… times over
// or under, rounded as c is written): the same digits, the wrong scale word.
func scaleSlip(c Claim, bs []float64) bool {
	for _, a := range c.Values {
		for _, b := range bs {
			if b == 0 {
				continue
			}
			for _, k := range []float64{1e3, 1e4, 1e6, 1e8, 1e9, 1e-3, 1e-4, 1e-6, 1e-8, 1e-9} {
				if close(a, b*k) || roundsAtScale(a, b*k, c) {
					return true
				}
			}
		}
	}
	return false
}

// differingDate is differing for a date: another date of the same precision (a day, or a month) in the same context;
// the one sharing the most context words wins, then the nearest in time.
func (p *Page) differingDate(c Claim, a answerSide, r region) (hit, bool) {
	best, bestShared, bestGap := -1, 0.0, 0
	for i := range p.mentions {
		m := &p.mentions[i]
		if m.Kind != KindDate || m.Date == c.Date || len(m.Date) != len(c.Date) || !p.inside(r, m.first) ||
			strings.Contains(m.Date, "Q") != strings.Contains(c.Date, "Q") {
			continue
		}
		f, shared := p.judge(m, answerSide{words: a.words})
		if f != fitContext {
			continue
		}
		gap := dateGap(c.Date, m.Date)
		if shared > bestShared || shared == bestShared && shared > 0 && gap < bestGap {
			best, bestShared, bestGap = i, shared, gap
		}
	}
	if best < 0 {
		return hit{}, false
	}
	m := &p.mentions[best]
	return hit{page: p, first: m.first, last: m.last, m: m}, true
}

// dateGap is how far apart two dates written yyyy-mm[-dd] are, in rough days.
func dateGap(a, b string) int {
	day := func(d string) int {
		var y, m, dd int
		if k := strings.Index(d, "-Q"); k > 0 {
			fmt.Sscanf(d, "%d-Q%d", &y, &m)
			return y*372 + m*3*31
		}
		fmt.Sscanf(d, "%d-%d-%d", &y, &m, &dd)
		return y*372 + m*31 + dd
	}
	g := day(a) - day(b)
	if g < 0 {
		g = -g
	}
	return g
}

// words returns the hit's words as on the page and their boxes, 0..1 of the page.
func (h hit) words() (string, [][4]float64) {
	p := h.page
	var texts []string
	var boxes [][4]float64
	for i := h.first; i <= h.last && i < len(p.Words); i++ {
		w := p.Words[i]
		texts = append(texts, w.Text)
		if p.W > 0 && p.H > 0 && w.X1 > w.X0 {
			boxes = append(boxes, [4]float64{w.X0 / p.W, w.Y0 / p.H, w.X1 / p.W, w.Y1 / p.H})
		}
	}
	text := strings.Join(texts, " ")
	if h.m != nil {
		// The mention's own text, without the rest of its first and last words (a parenthesis, a neighbour), and
		// the note that scales it.
		text = strings.TrimSpace(h.m.Text)
		if h.m.note != "" {
			text += " " + h.m.note
		}
	}
	return text, boxes
}

func unitRef(id int64) string { return strconv.FormatInt(id, 10) }
