package grounding

import (
	"fmt"
	"math"
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
}

type mention struct {
	Claim
	first, last int // word indices
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

// find looks for a claim equal to c among the page's words within r.
func (p *Page) find(c Claim, r region) (hit, bool) {
	if !c.Figure() {
		from := 0
		for {
			k := strings.Index(p.compact[from:], c.Phrase)
			if k < 0 || c.Phrase == "" {
				return hit{}, false
			}
			k += from
			first, last := int(p.cword[k]), int(p.cword[k+len(c.Phrase)-1])
			if p.inside(r, first) && p.inside(r, last) && p.wordBounded(k, k+len(c.Phrase)) {
				return hit{page: p, first: first, last: last}, true
			}
			from = k + 1
		}
	}
	for i := range p.mentions {
		m := &p.mentions[i]
		if c.Percent && !m.Percent && !p.percentLine(m) {
			continue // "21 %" is not a bare 21, unless the page's line gives its unit as % (a table row)
		}
		if p.inside(r, m.first) && equal(c, m.Claim) {
			return hit{page: p, first: m.first, last: m.last, m: m}, true
		}
	}
	return hit{}, false
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
			if (c.Decimals > 0 || c.Percent) && close(a, roundTo(b, c.Decimals)) && !close(a, 0) {
				return true
			}
		}
	}
	return false
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
	"which": true, "about": true, "page": true, "table": true, "figure": true, "than": true, "into": true, "their": true,
	"there": true, "been": true, "also": true, "all": true, "not": true, "but": true, "our": true, "med": true}

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
		case isHan(c) && !isCJKNumeral(c):
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

// answerContext are the distinctive words around a claim of an answer, within its clause: up to 80 bytes before it
// and 40 after.
func answerContext(text string, c Claim) map[string]bool {
	from := max(0, c.Start-80)
	for _, e := range clauseEnds {
		if k := strings.LastIndex(text[from:c.Start], e); k >= 0 {
			from += k + len(e)
		}
	}
	to := min(len(text), c.End+40)
	for _, e := range clauseEnds {
		if k := strings.Index(text[c.End:to], e); k >= 0 {
			to = c.End + k
		}
	}
	out := map[string]bool{}
	contextWords(text[from:c.Start], out)
	contextWords(text[c.End:to], out)
	return out
}

// pageContext are the distinctive words on the same line as a mention (boxes overlapping it vertically), and the
// six words before and after it.
func (p *Page) pageContext(m *mention) map[string]bool {
	out := map[string]bool{}
	for i := max(0, m.first-6); i <= min(len(p.Words)-1, m.last+6); i++ {
		contextWords(p.Words[i].Text, out)
	}
	w := p.Words[m.first]
	if w.Y1 > w.Y0 {
		for _, o := range p.Words {
			cy := (o.Y0 + o.Y1) / 2
			if cy >= w.Y0 && cy <= w.Y1 {
				contextWords(o.Text, out)
			}
		}
	}
	return out
}

// percentLine reports whether the line of a mention holds a "%" word: a table row whose unit column is %.
func (p *Page) percentLine(m *mention) bool {
	w := p.Words[m.first]
	for _, o := range p.Words {
		if cy := (o.Y0 + o.Y1) / 2; cy >= w.Y0 && cy <= w.Y1 && w.Y1 > w.Y0 && strings.Contains(o.Text, "%") {
			return true
		}
	}
	return false
}

// differing looks, within r, for a figure of the same form as c in the same context (sharing a distinctive word
// with ctx) whose value differs: the figure the page has where the answer has c. The closest value wins.
func (p *Page) differing(c Claim, ctx map[string]bool, r region) (hit, bool) {
	if len(ctx) == 0 {
		return hit{}, false
	}
	if c.Kind == KindDate {
		return p.differingDate(c, ctx, r)
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
		a, b := c.Values[0], m.Values[0]
		rel := math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b))
		if rel >= 0.5 || (a < 0) != (b < 0) {
			continue
		}
		shared := 0
		for w := range p.pageContext(m) {
			if ctx[w] {
				shared++
			}
		}
		if shared == 0 {
			continue
		}
		score := float64(shared)*10 - rel*5
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

// differingDate is differing for a date: another date of the same precision (a day, or a month) in the same context;
// the one sharing the most context words wins, then the nearest in time.
func (p *Page) differingDate(c Claim, ctx map[string]bool, r region) (hit, bool) {
	best, bestShared, bestGap := -1, 0, 0
	for i := range p.mentions {
		m := &p.mentions[i]
		if m.Kind != KindDate || m.Date == c.Date || len(m.Date) != len(c.Date) || !p.inside(r, m.first) {
			continue
		}
		shared := 0
		for w := range p.pageContext(m) {
			if ctx[w] {
				shared++
			}
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
		// The mention's own text, without the rest of its first and last words (a parenthesis, a neighbour).
		text = strings.TrimSpace(h.m.Text)
	}
	return text, boxes
}

func unitRef(id int64) string { return strconv.FormatInt(id, 10) }
