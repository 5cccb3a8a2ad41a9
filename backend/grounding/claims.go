// Package grounding checks an answer's figures, dates, quoted phrases and names against the words of the regions and pages it cites, with no model call.
package grounding

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Claim kinds. Numbers, percentages, amounts, ranges, dates and years are figures; quotes and names are names.
const (
	KindNumber   = "number"
	KindPercent  = "percent"
	KindCurrency = "currency"
	KindRange    = "range"
	KindDate     = "date"
	KindYear     = "year"
	KindQuote    = "quote"
	KindName     = "name"
)

// Claim is one checkable statement found in a text: a figure with its value(s) or a phrase.
type Claim struct {
	Text  string // as written
	Kind  string
	Start int // byte offsets in the text it was found in
	End   int
	// Values are the readings of a number, scale words and signs applied, the usual one first ("1.200" is 1.2 or
	// 1200); for a range, its low end.
	Values []float64
	Hi     []float64 // a range's high end
	// Decimals is the number of digits written after the decimal point (0 for integers).
	Decimals int
	// Scale is what the claim's own scale word multiplied it by (1e6 for "million", 1e4 for 万); 0 without one.
	// An answer rounds at its scale: "$14.7 billion" for 14,694 million.
	Scale    float64
	Percent  bool
	Currency string // "$", "€", "¥", "USD" … as written, normalised to a symbol where there is one
	Date     string // dates: yyyy-mm-dd, or yyyy-mm without a day
	Phrase   string // quotes and names: the compact form compared with pages (see compact)
}

// Figure reports whether c is a numeric claim (anything but a quote or a name).
func (c Claim) Figure() bool { return c.Kind != KindQuote && c.Kind != KindName }

// Extract finds the checkable claims of an answer, in order.
func Extract(text string) []Claim { return extract(text, false) }

// text is a string read rune by rune with full-width forms folded to ASCII, remembering each rune's byte offset.
type scanText struct {
	r   []rune
	off []int // byte offset of r[i] in the original; off[len(r)] = len(original)
	src string
	// decimalComma: the text writes decimals with a comma (1.234,5 or 12,5 %), so "1,500" may be 1.5 there.
	decimalComma bool
	// reads counts the digit groups the number reader has read, so a test can check the work stays linear.
	reads int
}

func newScanText(s string) *scanText {
	t := &scanText{src: s, r: make([]rune, 0, len(s)), off: make([]int, 0, len(s)+1)}
	for i, c := range s {
		switch {
		case c >= 0xFF01 && c <= 0xFF5E: // full-width ASCII: digits, ％, ．, ，, letters
			c -= 0xFEE0
		case c == 0x3000 || c == 0x00A0 || c == 0x202F || c == 0x2009:
			c = ' '
		case c == 0xFFE5:
			c = '¥'
		case c == 0x2212: // minus sign
			c = '-'
		}
		t.r = append(t.r, c)
		t.off = append(t.off, i)
	}
	t.off = append(t.off, len(s))
	return t
}

func (t *scanText) at(i int) rune {
	if i < 0 || i >= len(t.r) {
		return 0
	}
	return t.r[i]
}

// hasWordAt reports whether the ASCII word w (lower case) starts at i, case-insensitively, and ends at a word end.
func (t *scanText) hasWordAt(i int, w string) bool {
	n := 0
	for _, c := range w {
		if unicode.ToLower(t.at(i+n)) != c {
			return false
		}
		n++
	}
	return !isLetter(t.at(i + n))
}

func isDigit(c rune) bool  { return c >= '0' && c <= '9' }
func isLetter(c rune) bool { return unicode.IsLetter(c) && !isHan(c) }
func isHan(c rune) bool    { return unicode.Is(unicode.Han, c) }

const cjkDigits = "〇零一二两三四五六七八九"
const cjkUnits = "十百千万亿"

func isCJKNumeral(c rune) bool { return strings.ContainsRune(cjkDigits+cjkUnits, c) }

// refWords are words after which a number names a part of a document, not a figure ("Table 1", "page 3").
var refWords = map[string]bool{"page": true, "pages": true, "p": true, "pp": true, "table": true, "tab": true,
	"figure": true, "fig": true, "section": true, "chapter": true, "eq": true, "equation": true, "appendix": true,
	"step": true, "no": true, "item": true, "line": true, "column": true, "row": true, "picture": true, "text": true, "video": true}

// decimalCommaRE finds a number only a decimal-comma writer writes: 1.234,5, or 12,5 before a percent sign or a
// currency or scale word.
var decimalCommaRE = regexp.MustCompile(`\d\.\d{3},\d|\d,\d{1,2}\s?(?:%|€|EUR|Mio|Mrd|Prozent|procent|millions?\b|milliards?\b)`)

func extract(s string, page bool) []Claim {
	t := newScanText(s)
	t.decimalComma = page || decimalCommaRE.MatchString(s)
	var out []Claim
	add := func(c Claim, from, to int) {
		c.Start, c.End = t.off[from], t.off[to]
		c.Text = s[c.Start:c.End]
		out = append(out, c)
	}
	for i := 0; i < len(t.r); {
		c := t.r[i]
		switch {
		case !page && isQuoteOpen(c):
			if end, ok := t.quote(i); ok {
				inner := string(t.r[i+1 : end])
				if p := compact(inner); utf8.RuneCountInString(p) >= 4 {
					add(Claim{Kind: KindQuote, Phrase: p}, i, end+1)
					i = end + 1
					continue
				}
			}
		case isDigit(c) || c == '$' || c == '€' || c == '£' || c == '¥' || c == '(' || c == '-' ||
			(isCJKNumeral(c) && !isCJKNumeral(t.at(i-1))) || c == '百':
			if isDigit(c) && (isLetter(t.at(i-1)) || isDigit(t.at(i-1)) || t.at(i-1) == '-' && isLetter(t.at(i-2))) {
				break // part of a word: A4, H2O, COVID-19
			}
			if end, ok := t.clock(i); ok {
				i = end // a time of day (12:16, 09:30:15) is no figure of the text
				continue
			}
			if d, end, ok := t.date(i); ok {
				add(d, i, end)
				i = end
				continue
			}
			if n, from, end, ok := t.number(i, page); ok {
				if !page && t.isReference(from) {
					i = end
					continue
				}
				add(n, from, end)
				if page && n.Kind == KindRange {
					// Pages also offer a range's ends as numbers of their own.
					for _, part := range t.rangeEnds(from, end) {
						add(part.c, part.from, part.to)
					}
				}
				i = end
				continue
			}
		case isLetter(c) && !isLetter(t.at(i-1)):
			if d, end, ok := t.quarter(i); ok {
				add(d, i, end)
				i = end
				continue
			}
			if y, end, ok := t.fiscalYear(i + 2); ok {
				add(Claim{Kind: KindYear, Values: []float64{float64(y)}}, i, end)
				i = end
				continue
			}
			if d, end, ok := t.dateFromMonth(i); ok {
				add(d, i, end)
				i = end
				continue
			}
			if page || !unicode.IsUpper(c) {
				break
			}
			if end, ok := t.name(i); ok {
				add(Claim{Kind: KindName, Phrase: compact(string(t.r[i:end]))}, i, end)
				i = end
				continue
			}
		case !page && (c == '《' || c == '〈'):
			// Chinese has no capitals to mark a name; it marks the names of works (reports, books, laws) with
			// title marks. A run of Han text elsewhere is a paraphrase, which no page holds word for word (and
			// never the page of an English document the answer translates).
			closing := '》'
			if c == '〈' {
				closing = '〉'
			}
			end := i + 1
			for end < len(t.r) && end-i <= 60 && t.r[end] != closing && t.r[end] != '\n' {
				end++
			}
			if end < len(t.r) && t.r[end] == closing && utf8.RuneCountInString(compact(string(t.r[i+1:end]))) >= 2 {
				add(Claim{Kind: KindName, Phrase: compact(string(t.r[i+1 : end]))}, i+1, end)
				i = end + 1
				continue
			}
		case !page && isHan(c) && !isCJKNumeral(c):
			// Skip the run, so a number never starts inside it.
			end := i
			for end < len(t.r) && isHan(t.r[end]) && !isCJKNumeral(t.r[end]) && !(t.r[end] == '百' && t.at(end+1) == '分') {
				end++
			}
			i = end
			continue
		}
		// Skip the rest of a word of letters or digits, so a number never starts inside one.
		if isLetter(c) || isDigit(c) {
			for i < len(t.r) && (isLetter(t.r[i]) || isDigit(t.r[i])) {
				i++
			}
			continue
		}
		i++
	}
	return out
}

var quarterWords = []string{"first", "second", "third", "fourth"}

// quarter reads a quarter at i: "Q3 2015", "Q3 FY2015", "Q3'15" is not read; "third quarter of 2015", "third
// quarter 2015". Its date is yyyy-Qn.
func (t *scanText) quarter(i int) (Claim, int, bool) {
	q, j := 0, i
	switch {
	case (t.at(i) == 'Q' || t.at(i) == 'q') && t.at(i+1) >= '1' && t.at(i+1) <= '4' && !isLetter(t.at(i+2)) && !isDigit(t.at(i+2)):
		q, j = int(t.at(i+1)-'0'), i+2
	default:
		for n, w := range quarterWords {
			if t.hasWordAt(i, w) && t.at(i+len(w)) == ' ' && t.hasWordAt(i+len(w)+1, "quarter") {
				q, j = n+1, i+len(w)+1+len("quarter")
				break
			}
		}
		if q == 0 {
			return Claim{}, 0, false
		}
		if t.at(j) == ' ' && t.hasWordAt(j+1, "of") {
			j += 3
		}
	}
	if t.at(j) != ' ' {
		return Claim{}, 0, false
	}
	j++
	if unicode.ToUpper(t.at(j)) == 'F' && unicode.ToUpper(t.at(j+1)) == 'Y' {
		j += 2
	}
	y, e := t.digits(j, 4)
	if e != j+4 || y < 1900 || y > 2100 || isLetter(t.at(e)) {
		return Claim{}, 0, false
	}
	return Claim{Kind: KindDate, Date: strconv.Itoa(y) + "-Q" + strconv.Itoa(q)}, e, true
}

// clock reads a time of day at i: one or two digits, a colon, two digits (and again for seconds).
func (t *scanText) clock(i int) (int, bool) {
	h, j := t.digits(i, 2)
	if j == i || h > 24 || t.at(j) != ':' {
		return 0, false
	}
	m, k := t.digits(j+1, 2)
	if k != j+3 || m > 59 {
		return 0, false
	}
	if t.at(k) == ':' {
		if _, e := t.digits(k+1, 2); e == k+3 {
			k = e
		}
	}
	return k, true
}

// fiscalYear reads the year of "FY2015" whose digits start at i: the year a fiscal year is named by.
func (t *scanText) fiscalYear(i int) (int, int, bool) {
	if unicode.ToUpper(t.at(i-1)) != 'Y' || unicode.ToUpper(t.at(i-2)) != 'F' || isLetter(t.at(i-3)) {
		return 0, 0, false
	}
	y, end := t.digits(i, 4)
	if end != i+4 || y < 1900 || y > 2100 || isLetter(t.at(end)) {
		return 0, 0, false
	}
	return y, end, true
}

func isQuoteOpen(c rune) bool {
	return c == '"' || c == '“' || c == '「' || c == '『' || c == '‘'
}

func quoteClose(c rune) rune {
	switch c {
	case '“':
		return '”'
	case '「':
		return '」'
	case '『':
		return '』'
	case '‘':
		return '’'
	}
	return c
}

// quote finds the closing mark of a quotation opened at i, within 300 runes and one paragraph.
func (t *scanText) quote(i int) (int, bool) {
	want := quoteClose(t.r[i])
	for j := i + 1; j < len(t.r) && j < i+300; j++ {
		if t.r[j] == want {
			return j, j > i+1
		}
		if t.r[j] == '\n' && t.at(j+1) == '\n' {
			return 0, false
		}
	}
	return 0, false
}

// nameStop are capitalised words that start sentences rather than names.
var nameStop = map[string]bool{"The": true, "A": true, "An": true, "In": true, "On": true, "At": true, "For": true,
	"And": true, "But": true, "This": true, "That": true, "These": true, "Those": true, "It": true, "Its": true,
	"We": true, "According": true, "Based": true, "Table": true, "Figure": true, "Page": true, "As": true, "If": true,
	"From": true, "By": true, "With": true, "Of": true, "To": true, "I": true, "Yes": true, "No": true, "So": true,
	"Both": true, "Each": true, "See": true, "Note": true, "However": true, "Thus": true, "Overall": true, "All": true, "There": true, "Here": true, "Their": true, "His": true, "Her": true}

var nameJoin = map[string]bool{"of": true, "de": true, "&": true, "for": true, "von": true, "van": true, "der": true, "la": true}

// name reads a run of capitalised words from i (joined by small words such as "of"); it is a name when at least two
// capitalised words remain after leading sentence words.
func (t *scanText) name(i int) (int, bool) {
	type word struct {
		from, to int
		cap      bool
	}
	var ws []word
	j := i
	for {
		from := j
		for j < len(t.r) && (isLetter(t.r[j]) || isDigit(t.r[j]) || t.r[j] == '-' || t.r[j] == '\'' || t.r[j] == '&') {
			j++
		}
		if j == from {
			break
		}
		w := string(t.r[from:j])
		capital := unicode.IsUpper(t.r[from])
		if m, _ := t.month(from); m > 0 || refWords[strings.ToLower(w)] {
			// A date or a reference ("April 25", "Table 2") ends a name.
			if _, _, ok := t.dateFromMonth(from); ok || m == 0 {
				j = from
				break
			}
		}
		if !capital && !nameJoin[w] {
			j = from
			break
		}
		ws = append(ws, word{from, j, capital})
		if t.at(j) != ' ' || !(isLetter(t.at(j+1)) || t.at(j+1) == '&') {
			break
		}
		j++
	}
	for len(ws) > 0 && !ws[len(ws)-1].cap { // no trailing "of"
		ws = ws[:len(ws)-1]
	}
	start := 0
	for start < len(ws) && nameStop[string(t.r[ws[start].from:ws[start].to])] {
		start++
	}
	caps := 0
	for _, w := range ws[start:] {
		if w.cap {
			caps++
		}
	}
	if caps < 2 || start > 0 {
		// After a sentence word ("The Planned Cesarean"), the scanner finds the name at its next word.
		return 0, false
	}
	return ws[len(ws)-1].to, true
}

// isReference reports whether the number at i follows a word such as "page" or "Table".
func (t *scanText) isReference(i int) bool {
	j := i - 1
	for j >= 0 && (t.r[j] == ' ' || t.r[j] == '.' || t.r[j] == '#') {
		j--
	}
	if t.at(j) == '第' {
		return true
	}
	end := j + 1
	for j >= 0 && isLetter(t.r[j]) {
		j--
	}
	if w := strings.ToLower(string(t.r[j+1 : end])); refWords[w] {
		return true
	}
	// A list marker: digits at the start of a line followed by "." or ")" and a space.
	k := i
	for k < len(t.r) && isDigit(t.r[k]) {
		k++
	}
	if t.at(i-1) == '[' && t.at(k) == ']' {
		return true // a citation mark: [1]
	}
	lineStart := i == 0 || t.at(i-1) == '\n' || (t.at(i-1) == ' ' && (i == 1 || t.at(i-2) == '\n'))
	return lineStart && (t.at(k) == '.' || t.at(k) == ')') && t.at(k+1) == ' '
}

var months = []string{"january", "february", "march", "april", "may", "june", "july", "august", "september",
	"october", "november", "december"}

// month reads a month name (or its three-letter abbreviation, with an optional dot) at i.
func (t *scanText) month(i int) (int, int) {
	if i > 0 && isLetter(t.at(i-1)) {
		return 0, i
	}
	for m, name := range months {
		if t.hasWordAt(i, name) {
			return m + 1, i + len(name)
		}
		if len(name) > 3 && t.hasWordAt(i, name[:3]) {
			end := i + 3
			if t.at(end) == '.' {
				end++
			}
			return m + 1, end
		}
	}
	return 0, i
}

// digits reads up to max digits at i.
func (t *scanText) digits(i, max int) (int, int) {
	v, j := 0, i
	for j < len(t.r) && j < i+max && isDigit(t.r[j]) {
		v = v*10 + int(t.r[j]-'0')
		j++
	}
	if isDigit(t.at(j)) {
		return 0, i
	}
	return v, j
}

func dateKey(y, m, d int) string {
	if d == 0 {
		return strconv.Itoa(y) + "-" + twoDigits(m)
	}
	return strconv.Itoa(y) + "-" + twoDigits(m) + "-" + twoDigits(d)
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// date reads a date starting at i: 2022-04-25, 2022年4月25日, 25 April 2022, 25. April 2022. Dates that start with a
// month name are read by dateFromMonth when the scanner meets the month.
func (t *scanText) date(i int) (Claim, int, bool) {
	if !isDigit(t.at(i)) {
		return Claim{}, 0, false
	}
	if y, j := t.digits(i, 4); j == i+4 && y >= 1000 {
		if t.at(j) == '-' {
			if m, k := t.digits(j+1, 2); k > j+1 && m >= 1 && m <= 12 && t.at(k) == '-' {
				if d, e := t.digits(k+1, 2); e > k+1 && d >= 1 && d <= 31 {
					return Claim{Kind: KindDate, Date: dateKey(y, m, d)}, e, true
				}
			}
		}
		// 2012年5月21日, also as a text layer spaces it: 2012 年 5 月 21 日.
		sp := func(k int) int {
			if t.at(k) == ' ' {
				return k + 1
			}
			return k
		}
		if j = sp(j); t.at(j) == '年' {
			j = sp(j + 1)
			// 2015年第三季度, 2015年三季度
			q := j
			if t.at(q) == '第' {
				q++
			}
			if n := strings.IndexRune("一二三四", t.at(q)); n >= 0 && t.at(q+1) == '季' && t.at(q+2) == '度' {
				return Claim{Kind: KindDate, Date: strconv.Itoa(y) + "-Q" + strconv.Itoa(n/3+1)}, q + 3, true
			}
			if m, k := t.digits(j, 2); k > j && m >= 1 && m <= 12 && t.at(sp(k)) == '月' {
				after := sp(k) + 1
				dayAt := sp(after)
				if d, e := t.digits(dayAt, 2); e > dayAt && d >= 1 && d <= 31 && (t.at(sp(e)) == '日' || t.at(sp(e)) == '号') {
					return Claim{Kind: KindDate, Date: dateKey(y, m, d)}, sp(e) + 1, true
				}
				return Claim{Kind: KindDate, Date: dateKey(y, m, 0)}, after, true
			}
		}
		return Claim{}, 0, false
	}
	d, j := t.digits(i, 2)
	if j == i || d < 1 || d > 31 {
		return Claim{}, 0, false
	}
	k := j
	if t.at(k) == '.' {
		k++
	}
	if t.hasWordAt(k, "st") || t.hasWordAt(k, "nd") || t.hasWordAt(k, "rd") || t.hasWordAt(k, "th") {
		k += 2
	}
	if t.at(k) != ' ' {
		return Claim{}, 0, false
	}
	m, k2 := t.month(k + 1)
	if m == 0 || t.at(k2) != ' ' {
		return Claim{}, 0, false
	}
	if y, e := t.digits(k2+1, 4); e == k2+5 && y >= 1000 {
		return Claim{Kind: KindDate, Date: dateKey(y, m, d)}, e, true
	}
	return Claim{}, 0, false
}

// dateFromMonth reads "April 25, 2022" or "April 2022" at i.
func (t *scanText) dateFromMonth(i int) (Claim, int, bool) {
	m, j := t.month(i)
	if m == 0 || t.at(j) != ' ' {
		return Claim{}, 0, false
	}
	if y, e := t.digits(j+1, 4); e == j+5 && y >= 1000 {
		return Claim{Kind: KindDate, Date: dateKey(y, m, 0)}, e, true
	}
	d, k := t.digits(j+1, 2)
	if k == j+1 || d < 1 || d > 31 {
		return Claim{}, 0, false
	}
	if t.hasWordAt(k, "st") || t.hasWordAt(k, "nd") || t.hasWordAt(k, "rd") || t.hasWordAt(k, "th") {
		k += 2
	}
	if t.at(k) == ',' {
		k++
	}
	if t.at(k) != ' ' {
		return Claim{}, 0, false
	}
	if y, e := t.digits(k+1, 4); e == k+5 && y >= 1000 {
		return Claim{Kind: KindDate, Date: dateKey(y, m, d)}, e, true
	}
	return Claim{}, 0, false
}

// scales are words multiplying the number before them.
var scales = []struct {
	word  string
	mul   float64
	after bool // needs a space or nothing before it; CJK scale words never take a space
}{
	{"thousand", 1e3, true}, {"million", 1e6, true}, {"billion", 1e9, true}, {"trillion", 1e12, true},
	{"bn", 1e9, true}, {"mn", 1e6, true}, {"万亿", 1e12, false}, {"千万", 1e7, false}, {"百万", 1e6, false},
	{"亿", 1e8, false}, {"万", 1e4, false}, {"千", 1e3, false},
}

var currencyWords = []struct{ word, sym string }{
	{"usd", "$"}, {"us$", "$"}, {"eur", "€"}, {"gbp", "£"}, {"chf", "CHF"}, {"cny", "¥"}, {"rmb", "¥"}, {"jpy", "¥"},
	{"dollars", "$"}, {"dollar", "$"}, {"euros", "€"}, {"euro", "€"}, {"pounds", "£"},
}

// number reads a number starting at or after i (through a currency mark, a sign or an opening parenthesis), with
// its percent sign, scale word and currency, and a range when another number follows a dash. from is where the
// claim starts.
func (t *scanText) number(i int, page bool) (c Claim, from, end int, ok bool) {
	pre := t.numberPrefix(i)
	vals, dec, k := t.numeral(pre.digits, page)
	if len(vals) == 0 {
		return Claim{}, 0, 0, false
	}
	c = Claim{Kind: KindNumber, Decimals: dec, Currency: pre.cur}
	e, scale := t.scaleWord(k, vals)
	c.Scale = scale
	e = t.unitSuffix(&c, e, pre.percent)
	year := dec == 0 && len(vals) == 1 && vals[0] >= 1000 && vals[0] <= 2100 && k-pre.digits == 4 && e == k && c.Currency == ""
	vals, from, e, neg := t.signed(pre, i, e, vals, page)
	if neg && pre.paren && year {
		// "(1996)" after an author is a year, not an accounting negative.
		return Claim{Kind: KindYear, Values: []float64{math.Abs(vals[0])}}, from, e, true
	}
	if neg && pre.paren && c.Percent && c.Currency == "" {
		// "(51 %)" labels a share; it is a negative only in an accounting column, which pages still offer.
		neg = false
		if page {
			vals = append(vals[len(vals)/2:], vals[:len(vals)/2]...)
		} else {
			for n := range vals {
				vals[n] = -vals[n]
			}
		}
	}
	c.Values = finite(vals)
	if len(c.Values) == 0 {
		return c, from, e, true // too large to hold: a claim that is never found, and says so
	}
	switch {
	case c.Percent:
		c.Kind = KindPercent
	case c.Currency != "":
		c.Kind = KindCurrency
	case dec == 0 && len(vals) == 1 && vals[0] >= 1000 && vals[0] <= 2100 && k-pre.digits == 4 && e == k:
		c.Kind = KindYear
	}
	if !pre.paren || !neg {
		e = t.withRange(&c, from, e, pre.cur, page)
	}
	return c, from, e, true
}

// finite keeps the readings that fit a float64: a 310-digit number or 一亿亿… is no value at all, rather than +Inf,
// which no event can encode.
func finite(vals []float64) []float64 {
	out := vals[:0]
	for _, v := range vals {
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

// numberPrefix is what may stand before a number's digits.
type numberPrefix struct {
	cur     string // a currency mark: US$, $, €, £, ¥
	paren   bool   // an opening parenthesis: an accounting negative if it closes after the number
	neg     bool   // a minus sign (not a hyphen after a word or a number)
	percent bool   // 百分之, "per hundred"
	digits  int    // where the digits start
}

// numberPrefix reads the currency mark, parenthesis, minus sign and percent prefix at i, in that order.
func (t *scanText) numberPrefix(i int) numberPrefix {
	var p numberPrefix
	j := i
	if strings.HasPrefix(strings.ToLower(string(t.r[j:min(j+3, len(t.r))])), "us$") {
		p.cur, j = "$", j+3
	}
	if t.at(j) == '(' {
		p.paren = true
		j++
	}
	switch t.at(j) {
	case '$', '€', '£', '¥':
		p.cur = string(t.at(j))
		j++
		if t.at(j) == ' ' {
			j++
		}
	}
	if t.at(j) == '-' && !isLetter(t.at(j-1)) && !isDigit(t.at(j-1)) {
		p.neg = true
		j++
	}
	if t.at(j) == '百' && t.at(j+1) == '分' && t.at(j+2) == '之' {
		p.percent = true
		j += 3
	}
	p.digits = j
	return p
}

// numeral reads the Arabic or CJK numeral at j: its values (a page's figure may read more than one way), its
// decimals and where it ends; no values where there is none.
func (t *scanText) numeral(j int, page bool) (vals []float64, dec, end int) {
	switch {
	case isDigit(t.at(j)):
		return t.arabic(j, page)
	case isCJKNumeral(t.at(j)):
		v, k := t.cjkNumber(j)
		if k > j {
			return []float64{v}, 0, k
		}
		return nil, 0, k
	}
	return nil, 0, 0
}

// scaleWord multiplies vals by the scale word at e (thousand, million, bn, 万, 亿…; the English ones after a space)
// and returns where the claim ends and the scale (0 without a scale word).
func (t *scanText) scaleWord(e int, vals []float64) (int, float64) {
	sp := e
	if t.at(sp) == ' ' {
		sp++
	}
	for _, s := range scales {
		at := e
		if s.after {
			at = sp
		}
		n := utf8.RuneCountInString(s.word)
		if at+n <= len(t.r) && string(t.r[at:at+n]) == s.word && (!s.after || t.hasWordAt(at, s.word)) {
			for n := range vals {
				vals[n] *= s.mul
			}
			return at + n, s.mul
		}
	}
	return e, 0
}

// unitSuffix reads what follows the number at e into c, a percent sign or word, or a currency (元, 美元, USD,
// euros…), and returns where the claim ends; after a percent prefix it reads nothing.
func (t *scanText) unitSuffix(c *Claim, e int, percentPrefix bool) int {
	sp := e
	if t.at(sp) == ' ' {
		sp++
	}
	switch {
	case percentPrefix:
		c.Percent = true
	case t.at(e) == '%' || t.at(sp) == '%':
		c.Percent = true
		e = max(e, sp) + 1
	case t.hasWordAt(sp, "percent"):
		c.Percent, e = true, sp+7
	case t.hasWordAt(sp, "per") && t.hasWordAt(sp+4, "cent"):
		c.Percent, e = true, sp+8
	case t.at(e) == '元':
		c.Currency, e = "¥", e+1
	case t.at(e) == '美' && t.at(e+1) == '元':
		c.Currency, e = "$", e+2
	default:
		for _, cw := range currencyWords {
			if c.Currency == "" && t.hasWordAt(sp, cw.word) {
				c.Currency, e = cw.sym, sp+len(cw.word)
				break
			}
		}
	}
	return e
}

// signed gives vals their sign: an accounting negative, (1,234), when the parenthesis closes at e (pages also read
// it as the bare number: a note mark, an enumeration); otherwise a minus sign's, and an unclosed parenthesis is not
// the number's. It returns the values, where the claim starts and ends, and whether it is negative.
func (t *scanText) signed(pre numberPrefix, from, e int, vals []float64, page bool) ([]float64, int, int, bool) {
	if pre.paren && t.at(e) == ')' {
		alt := append([]float64(nil), vals...)
		for n := range vals {
			vals[n] = -vals[n]
		}
		if page {
			vals = append(vals, alt...)
		}
		return vals, from, e + 1, true
	}
	if pre.paren {
		from = pre.digits // the parenthesis is not the number's
		if pre.cur != "" {
			from--
		}
	}
	if pre.neg {
		for n := range vals {
			vals[n] = -vals[n]
		}
	}
	return vals, from, e, pre.neg
}

// withRange makes c a range when another, larger number follows at e after a dash, a tilde, 至 or "to" (or the
// same currency mark as the claim's at from), and returns where the claim ends.
func (t *scanText) withRange(c *Claim, from, e int, cur string, page bool) int {
	r := e
	switch {
	case t.at(r) == '-' || t.at(r) == '–' || t.at(r) == '—' || t.at(r) == '~' || t.at(r) == '～' || t.at(r) == '至':
		r++
	case t.at(r) == ' ' && (t.at(r+1) == '-' || t.at(r+1) == '–') && t.at(r+2) == ' ':
		r += 3
	case t.at(r) == ' ' && t.hasWordAt(r+1, "to") && t.at(r+3) == ' ':
		r += 4
	default:
		return e
	}
	if !isDigit(t.at(r)) && (t.at(r) != t.at(from) || cur == "") {
		return e
	}
	hi, _, hiEnd, ok := t.number(r, page)
	if !ok || hi.Kind == KindRange || hi.Kind == KindDate || len(hi.Values) == 0 || len(c.Values) == 0 || hi.Values[0] <= c.Values[0] {
		return e
	}
	c.Kind = KindRange
	c.Hi = hi.Values
	if hi.Percent {
		c.Percent = true
	}
	return hiEnd
}

type span struct {
	c        Claim
	from, to int
}

// rangeEnds reads both ends of a range found at [from, end) as numbers.
func (t *scanText) rangeEnds(from, end int) []span {
	var out []span
	i := from
	for i < end {
		if isDigit(t.r[i]) && (i == from || !isDigit(t.r[i-1]) && t.r[i-1] != '.' && t.r[i-1] != ',') {
			vals, dec, k := t.arabic(i, true)
			if len(vals) > 0 {
				out = append(out, span{Claim{Kind: KindNumber, Values: vals, Decimals: dec}, i, k})
				i = k
				continue
			}
		}
		i++
	}
	return out
}

// arabic reads digits with thousands separators and a decimal part at i, and returns the readings, the decimals
// and the end. "1,200" is 1200 (or 1.2 where a comma is the decimal mark); "1.200" is 1.2 (or 1200); "1.200,5" and
// "1,200.5" are 1200.5; "1 200 000" is 1200000 (on pages only where a single word holds it).
func (t *scanText) arabic(i int, page bool) ([]float64, int, int) {
	type group struct {
		from, to int
		sep      rune // the separator before this group
	}
	j := i
	for j < len(t.r) && isDigit(t.r[j]) {
		j++
	}
	groups := []group{{i, j, 0}}
	// Eight groups hold any real figure (10^24); reading on would make "1,1,1,…" quadratic, each number read
	// again from every comma.
	const maxGroups = 8
	for len(groups) < maxGroups {
		t.reads++
		s := t.at(j)
		if s != ',' && s != '.' && s != ' ' && s != '\'' {
			break
		}
		k := j + 1
		for k < len(t.r) && isDigit(t.r[k]) {
			k++
		}
		if k == j+1 {
			break
		}
		if s == ' ' || s == '\'' {
			// Space grouping: groups of exactly three after a first group of one to three digits.
			if page || k-j-1 != 3 || groups[0].to-groups[0].from > 3 || t.r[groups[0].from] == '0' || groups[len(groups)-1].sep == ',' || groups[len(groups)-1].sep == '.' {
				break
			}
		}
		groups = append(groups, group{j + 1, k, s})
		j = k
	}
	num := func(g group) string { return string(t.r[g.from:g.to]) }
	parse := func(intPart []group, frac string) float64 {
		var b strings.Builder
		for _, g := range intPart {
			b.WriteString(num(g))
		}
		if frac != "" {
			b.WriteString("." + frac)
		}
		v, _ := strconv.ParseFloat(b.String(), 64)
		return v
	}
	allThree := func(gs []group) bool {
		for _, g := range gs {
			if g.to-g.from != 3 {
				return false
			}
		}
		return true
	}
	if len(groups) == 1 {
		return []float64{parse(groups, "")}, 0, j
	}
	last := groups[len(groups)-1]
	mid := groups[1 : len(groups)-1]
	sameSeps := true
	for _, g := range groups[1:] {
		if g.sep != groups[1].sep {
			sameSeps = false
		}
	}
	firstLen := groups[0].to - groups[0].from
	if !sameSeps {
		// The last separator is the decimal mark; the others group thousands.
		if firstLen > 3 || !allThree(mid) || (last.sep != '.' && last.sep != ',') {
			return []float64{parse(groups[:1], "")}, 0, groups[0].to
		}
		for _, g := range mid {
			if g.sep == last.sep {
				return []float64{parse(groups[:1], "")}, 0, groups[0].to
			}
		}
		return []float64{parse(groups[:len(groups)-1], num(last))}, last.to - last.from, last.to
	}
	sep := groups[1].sep
	rest := groups[1:]
	switch {
	case len(rest) == 1 && (sep == '.' || sep == ','):
		frac := num(last)
		asDecimal := parse(groups[:1], frac)
		if len(frac) == 3 && firstLen <= 3 && t.r[groups[0].from] != '0' {
			asThousands := parse(groups, "")
			if sep == ',' {
				if !page && !t.decimalComma {
					return []float64{asThousands}, 0, last.to // "2,000" in an English answer is never 2
				}
				return []float64{asThousands, asDecimal}, 0, last.to
			}
			return []float64{asDecimal, asThousands}, 3, last.to
		}
		if sep == ',' && (page || firstLen > 3 || len(frac) != 3) {
			// "12,5": a decimal comma; but "3,4" in an English list is two numbers, so an answer reads only
			// the first unless the comma cannot be a list's (no space follows it).
			return []float64{asDecimal}, len(frac), last.to
		}
		return []float64{asDecimal}, len(frac), last.to
	case allThree(rest) && firstLen <= 3:
		return []float64{parse(groups, "")}, 0, last.to
	}
	return []float64{parse(groups[:1], "")}, 0, groups[0].to
}

// cjkNumber reads a Chinese numeral (三千五百, 一百二十万, 二〇二二) at i. A single character that is not a
// multiplier-bearing number (一 alone) is not read: it is a word more often than a figure.
func (t *scanText) cjkNumber(i int) (float64, int) {
	j := i
	for j < len(t.r) && isCJKNumeral(t.r[j]) {
		j++
	}
	if j-i < 2 || strings.ContainsRune("百千万亿", t.r[i]) {
		return 0, i
	}
	run := t.r[i:j]
	digit := func(c rune) int {
		switch c {
		case '〇', '零':
			return 0
		case '一':
			return 1
		case '二', '两':
			return 2
		case '三':
			return 3
		case '四':
			return 4
		case '五':
			return 5
		case '六':
			return 6
		case '七':
			return 7
		case '八':
			return 8
		case '九':
			return 9
		}
		return -1
	}
	hasUnit := false
	for _, c := range run {
		if strings.ContainsRune(cjkUnits, c) {
			hasUnit = true
		}
	}
	if !hasUnit { // digit by digit: 二〇二二
		v := 0.0
		for _, c := range run {
			v = v*10 + float64(digit(c))
		}
		return v, j
	}
	var total, section, cur float64
	for _, c := range run {
		if d := digit(c); d >= 0 {
			cur = float64(d)
			continue
		}
		switch c {
		case '十':
			if cur == 0 {
				cur = 1
			}
			section += cur * 10
		case '百':
			section += cur * 100
		case '千':
			section += cur * 1000
		case '万':
			total += (section + cur) * 1e4
			section = 0
		case '亿':
			total = (total + section + cur) * 1e8
			section = 0
		}
		cur = 0
	}
	return total + section + cur, j
}

// compact folds a phrase for comparison: lower case, letters, digits and Han characters only.
func compact(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c >= 0xFF01 && c <= 0xFF5E {
			c -= 0xFEE0
		}
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			b.WriteRune(unicode.ToLower(c))
		}
	}
	return b.String()
}
