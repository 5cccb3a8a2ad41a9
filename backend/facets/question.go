package facets

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"proofglass/backend/kb"
)

// Named is what a question says about the document it is asking about.
type Named struct {
	Years    []string // "2022", from "in 2022", "FY22", "fiscal 2022"
	Quarters []string // "Q3"
	Kinds    []string // "10-K", "annual report"
}

// Empty reports whether the question names no year, quarter or kind.
func (n Named) Empty() bool { return len(n.Years) == 0 && len(n.Quarters) == 0 && len(n.Kinds) == 0 }

var (
	questionYearRE    = regexp.MustCompile(`\b((?:19[5-9]|20\d)\d)\b`)
	questionFYRE      = regexp.MustCompile(`(?i)\bfy\s*'?(\d{2}|\d{4})\b`)
	questionQuarterRE = regexp.MustCompile(`(?i)\b(?:q([1-4])|(first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+quarter)\b`)
)

// questionKinds are the kinds a question names by words specific enough to tell documents apart: "paper",
// "report" and "form" are said of any document.
var questionKinds = []string{Kind10K, Kind10Q, Kind8K, Kind20F, KindAnnual, KindEarnings, KindSlides, KindBrochure}

// InQuestion finds the years, quarters and kinds a question names.
func InQuestion(q string) Named {
	var n Named
	add := func(list *[]string, v string) {
		if v != "" && !slices.Contains(*list, v) {
			*list = append(*list, v)
		}
	}
	for _, m := range questionYearRE.FindAllStringSubmatch(q, -1) {
		add(&n.Years, m[1])
	}
	for _, m := range questionFYRE.FindAllStringSubmatch(q, -1) {
		add(&n.Years, fullYear(m[1]))
	}
	for _, m := range questionQuarterRE.FindAllStringSubmatch(q, -1) {
		if m[1] != "" {
			add(&n.Quarters, "Q"+m[1])
		} else {
			add(&n.Quarters, canonicalQuarter(m[2]))
		}
	}
	for _, kw := range kindWords {
		if slices.Contains(questionKinds, kw.kind) && kw.re.MatchString(q) {
			if kw.kind == KindAnnual && slices.Contains(n.Kinds, Kind10K) {
				continue // a 10-K is the annual report
			}
			add(&n.Kinds, kw.kind)
		}
	}
	return n
}

// orgNoise are the words of organisation names that do not tell one from another.
var orgNoise = map[string]bool{
	"inc": true, "incorporated": true, "corporation": true, "corp": true, "company": true, "co": true, "ltd": true,
	"limited": true, "llc": true, "lp": true, "plc": true, "holdings": true, "group": true, "ag": true, "se": true,
	"sa": true, "nv": true, "gmbh": true, "the": true, "of": true, "and": true, "for": true, "on": true, "&": true,
}

// orgWords are the words that name an organisation, folded: "ACME Corporation" → [acme].
func orgWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '&'
	}) {
		if !orgNoise[w] && w != "" {
			out = append(out, w)
		}
	}
	return out
}

// Orgs indexes organisations by the word a question names them by: the first distinctive word of their name.
type Orgs struct {
	byLead map[string][]orgEntry
}

type orgEntry struct {
	words []string // the distinctive words of the name, lead first
	docs  []int64
}

// NewOrgs indexes the organisations of a library (kb.FacetValues of the org facet).
func NewOrgs(values []kb.FacetValue) *Orgs {
	o := &Orgs{byLead: map[string][]orgEntry{}}
	for _, v := range values {
		ow := orgWords(v.Value)
		if len(ow) == 0 || len(ow) > 4 {
			continue // a long institution name is not what a question names it by
		}
		o.byLead[ow[0]] = append(o.byLead[ow[0]], orgEntry{ow, v.Documents})
	}
	return o
}

// InQuestion returns the documents whose organisation the question names: every distinctive word of the
// organisation's name stands in the question ("Globex Holdings" of "Globex Holdings plc"), or its first word does,
// capitalised as a name is ("Acme" of "ACME Robotics Inc."), unless that word is what many organisations are
// called ("University", "National"). Each question word is one map lookup, however many organisations there are.
func (o *Orgs) InQuestion(q string) []int64 {
	words := map[string]bool{}
	for _, w := range orgWords(strings.ReplaceAll(q, "'s", "")) {
		words[w] = true
	}
	capitalised := map[string]bool{}
	for _, w := range strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if r := []rune(w); unicode.IsUpper(r[0]) {
			capitalised[strings.ToLower(w)] = true
		}
	}
	var out []int64
	for lead := range words {
		for _, e := range o.byLead[lead] {
			all := true
			for _, w := range e.words {
				all = all && words[w]
			}
			byLead := len(e.words) > 1 && len([]rune(lead)) >= 3 && capitalised[lead] && !orgWordRE.MatchString(lead) && !genericLead[lead]
			if all || byLead {
				out = append(out, e.docs...)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// OrgsInQuestion is NewOrgs(orgs).InQuestion(q).
func OrgsInQuestion(q string, orgs []kb.FacetValue) []int64 { return NewOrgs(orgs).InQuestion(q) }

// genericLead are first words many organisations share, too common to name one by.
var genericLead = map[string]bool{
	"united": true, "national": true, "american": true, "international": true, "global": true, "general": true,
	"first": true, "new": true, "royal": true, "federal": true, "state": true, "european": true, "china": true,
	"british": true, "north": true, "south": true, "east": true, "west": true, "central": true,
}
