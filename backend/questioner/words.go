package questioner

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"proofglass/backend/glove"
)

// table is the built-in GloVe table, or nil where it cannot be read: questions are then written without its
// frequencies and neighbours.
func table() *glove.Table {
	t, err := glove.Default()
	if err != nil {
		return nil
	}
	return t
}

// knownWord reports whether GloVe knows w (lower-case).
func knownWord(w string) bool {
	t := table()
	if t == nil {
		return false
	}
	_, ok := t.Rank(w)
	return ok
}

// rarity is how uncommon w (lower-case) is in general English: its GloVe rank, and a rare one for a word GloVe
// lacks (a name, a term of the field).
func rarity(w string) int {
	if t := table(); t != nil {
		if r, ok := t.Rank(w); ok {
			return r
		}
	}
	return 40000
}

// dullWords are words that pass as content words by their length yet say nothing a page could be found by, and the
// words the question templates use themselves.
var dullWords = map[string]bool{
	"also": true, "based": true, "using": true, "used": true, "uses": true, "shown": true, "show": true, "shows": true,
	"given": true, "gives": true, "within": true, "upon": true, "since": true, "thus": true, "hence": true,
	"respectively": true, "following": true, "further": true, "however": true, "whereas": true, "several": true,
	"which": true, "there": true, "their": true, "these": true, "those": true, "would": true, "could": true,
	"should": true, "about": true, "other": true, "such": true, "well": true, "make": true, "made": true,
	"document": true, "section": true, "table": true, "figure": true, "page": true, "says": true, "said": true,
	"what": true, "does": true, "into": true, "like": true, "many": true, "more": true, "most": true, "much": true,
	"only": true, "same": true, "than": true, "then": true, "they": true, "this": true, "very": true, "when": true,
	"will": true, "with": true, "from": true, "have": true, "been": true, "were": true, "being": true, "each": true,
	"where": true, "while": true, "both": true, "either": true, "onto": true, "over": true, "some": true,
	"furthermore": true, "moreover": true, "therefore": true, "seems": true, "seem": true, "although": true,
	"indeed": true, "rather": true, "another": true, "among": true, "addition": true, "thereby": true,
	"whereby": true, "namely": true, "overall": true, "possible": true, "various": true, "certain": true,
}

func isStop(lower string) bool {
	return glove.IsStopWord(lower) || dullWords[lower]
}

// contentWord is a word's bare form when it is a content word (letters, at least four, maybe hyphenated, not a
// stop word), else "".
func contentWord(w string) string {
	t := trimPunct(w)
	if utf8.RuneCountInString(t) < 4 || isStop(strings.ToLower(t)) {
		return ""
	}
	for _, r := range t {
		if !unicode.IsLetter(r) && r != '-' && r != '\'' {
			return ""
		}
		if unicode.Is(unicode.Han, r) {
			return ""
		}
	}
	return t
}

// display writes a word of a title, a label or a header as a question does: a capitalised word in lower case
// ("Results" → "results"), an acronym or a symbol as it stands ("PPH", "Hb.prae").
func display(w string) string {
	core := strings.TrimRight(w, ",:;!?)”’\"")
	rs := []rune(core)
	if len(rs) < 2 || !unicode.IsUpper(rs[0]) {
		return w
	}
	for _, r := range rs[1:] {
		if !unicode.IsLower(r) && r != '-' && r != '\'' {
			return w // an acronym, a symbol ("F.", "Hb.prae") or a name with inner capitals
		}
	}
	return strings.ToLower(core) + w[len(core):]
}

// displayPhrase writes each word of a title, a label or a header with display: they capitalise words that prose
// would not.
func displayPhrase(s string) string {
	f := strings.Fields(s)
	for i, w := range f {
		f[i] = display(w)
	}
	return strings.Join(f, " ")
}

// sentenceCase writes a phrase of prose as a question quotes it: its first word with display, the rest as they
// stand, since a capital inside a sentence marks a name ("of Northwind").
func sentenceCase(s string) string {
	f := wordsOf(s)
	if len(f) > 0 {
		f[0] = display(f[0])
	}
	return strings.Join(f, " ")
}

// keywords are a text's n most distinctive content words (rarest in general English first), each once, as the
// text writes them but for a first word's capital. Adverbs
// ("unfortunately") are left out and participles ("stratified", "using") count as commoner than they are: a page
// is found by its nouns.
func keywords(words []string, n int) []string {
	type kw struct {
		w    string
		rank int
	}
	var ks []kw
	seen := map[string]bool{}
	for i, w := range words {
		c := contentWord(w)
		if c == "" {
			continue
		}
		shown := c
		if i == 0 {
			shown = display(c) // a capital that starts a sentence marks no name
		}
		low := strings.ToLower(c)
		stem := strings.TrimSuffix(low, "s")
		if seen[stem] {
			continue
		}
		seen[stem] = true
		if strings.HasSuffix(low, "ly") {
			continue
		}
		rank := rarity(low)
		if strings.HasSuffix(low, "ed") || strings.HasSuffix(low, "ing") {
			rank /= 4
		}
		ks = append(ks, kw{shown, rank})
	}
	slices.SortStableFunc(ks, func(a, b kw) int { return b.rank - a.rank })
	var out []string
	for _, k := range ks[:min(n, len(ks))] {
		out = append(out, k.w)
	}
	return out
}

// figureChars are what a figure is written with beside its digits.
const figureChars = "0123456789.,-–−+%$€£<>"

// isFigure reports whether a word is a figure: digits with a sign, separators, a percent or currency sign, maybe in
// brackets ("350.0", "(300.0-500.0)", "12%", "-3.2").
func isFigure(w string) bool {
	t := strings.Trim(w, "()[]{},;:*")
	if t == "" || strings.IndexFunc(t, unicode.IsDigit) < 0 {
		return false
	}
	return strings.Trim(t, figureChars) == ""
}

var yearRE = regexp.MustCompile(`^(19|20)\d\d$`)

// isYear reports a four-digit year of the last two centuries.
func isYear(w string) bool { return yearRE.MatchString(strings.Trim(w, "()[],;:.")) }

var numberRE = regexp.MustCompile(`\d+(?:[.,]\d+)*`)

// holdsFigure reports whether the text writes any of the numbers of value, as a whole number: a question must not
// give away the cell it asks for.
func holdsFigure(text, value string) bool {
	if value == "" {
		return false
	}
	have := map[string]bool{}
	for _, n := range numberRE.FindAllString(text, -1) {
		have[n] = true
	}
	for _, n := range numberRE.FindAllString(value, -1) {
		if have[n] {
			return true
		}
	}
	return false
}

// lowerFirst lower-cases a question's first letter when it starts a template word ("What" → "what"), for a question
// that a phrase now leads.
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsUpper(r) {
		return s
	}
	next, _ := utf8.DecodeRuneInString(s[n:])
	if unicode.IsUpper(next) {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// joinList writes words as a list: "a", "a and b", "a, b and c"; Chinese lists join with "、" and "和".
func joinList(ws []string, zh bool) string {
	sep, and := ", ", " and "
	if zh {
		sep, and = "、", "和"
	}
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], sep) + and + ws[len(ws)-1]
}
