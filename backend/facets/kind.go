package facets

import (
	"regexp"
	"strings"
)

// Kinds of documents, as shown and stored.
const (
	Kind10K      = "10-K"
	Kind10Q      = "10-Q"
	Kind8K       = "8-K"
	Kind20F      = "20-F"
	KindAnnual   = "annual report"
	KindEarnings = "earnings release"
	KindPaper    = "paper"
	KindManual   = "manual"
	KindSlides   = "slide deck"
	KindBrochure = "brochure"
	KindForm     = "form"
	KindBook     = "book"
	KindReport   = "report"
	KindCourt    = "court opinion"
	KindHearing  = "hearing"
)

// Kinds lists every kind extraction gives, for pickers.
var Kinds = []string{Kind10K, Kind10Q, Kind8K, Kind20F, KindAnnual, KindEarnings, KindPaper, KindManual, KindSlides,
	KindBrochure, KindForm, KindBook, KindReport, KindCourt, KindHearing}

// PeriodicKinds are the kinds whose year is the period they report on, not when they appeared.
var PeriodicKinds = []string{Kind10K, Kind10Q, Kind8K, Kind20F, KindAnnual, KindEarnings}

func isFiling(kind string) bool {
	return kind == Kind10K || kind == Kind10Q || kind == Kind8K || kind == Kind20F
}

// kindWords are the ways a kind is written in names, questions and filters: each kind's pattern, most specific
// first ("annual report" is also written on a 10-K's cover).
var kindWords = []struct {
	kind string
	re   *regexp.Regexp
}{
	{Kind10K, regexp.MustCompile(`(?i)\b(?:form\s*)?10[\s-]?k(?:405)?\b`)},
	{Kind10Q, regexp.MustCompile(`(?i)\b(?:form\s*)?10[\s-]?q\b`)},
	{Kind8K, regexp.MustCompile(`(?i)\b(?:form\s*)?8[\s-]?k\b`)},
	{Kind20F, regexp.MustCompile(`(?i)\b(?:form\s*)?20[\s-]?f\b`)},
	{KindEarnings, regexp.MustCompile(`(?i)\bearnings(?:\s+press)?\s+release|\bearnings\s+report|\bquarterly\s+results\b|\breports?\s+(?:first|second|third|fourth|full[\s-]year|q[1-4])\s+(?:quarter\s+)?(?:fiscal\s+)?(?:\d{4}\s+)?(?:results|earnings)`)},
	{KindAnnual, regexp.MustCompile(`(?i)\bannual\s+report\b|\bannual[\s_-]?rpt\b|\bar\s?20\d\d\b`)},
	{KindSlides, regexp.MustCompile(`(?i)\b(?:slide\s*deck|slides|investor\s+presentation|presentation|deck)\b`)},
	{KindBrochure, regexp.MustCompile(`(?i)\bbrochure\b|\bleaflet\b|\bflyer\b`)},
	{KindManual, regexp.MustCompile(`(?i)\b(?:user(?:'s)?\s+guide|user\s+manual|manual|reference\s+(?:index|guide|manual)|handbook\s+for|documentation|installation\s+guide|readthedocs)\b`)},
	{KindPaper, regexp.MustCompile(`(?i)\b(?:paper|preprint|arxiv)\b`)},
	{KindForm, regexp.MustCompile(`(?i)\b(?:application\s+form|form\s+[a-z]?-?\d+[a-z]?|form)\b`)},
	{KindBook, regexp.MustCompile(`(?i)\b(?:book|handbook|edition)\b`)},
	{KindHearing, regexp.MustCompile(`(?i)\bhearing\b`)},
	{KindReport, regexp.MustCompile(`(?i)\breport\b`)},
}

// CanonicalKind reads a kind as a person writes it ("10k", "Annual Report", "slides") and returns its stored
// spelling, or "" when it names none.
func CanonicalKind(s string) string {
	s = strings.TrimSpace(s)
	for _, k := range Kinds {
		if strings.EqualFold(s, k) {
			return k
		}
	}
	for _, kw := range kindWords {
		if loc := kw.re.FindStringIndex(s); loc != nil && loc[0] == 0 && loc[1] == len(s) {
			return kw.kind
		}
	}
	return ""
}

var (
	// The cover of an SEC filing says which form it is, in the words of the form.
	secCoverRE = []struct {
		kind string
		re   *regexp.Regexp
	}{
		{Kind10K, regexp.MustCompile(`(?i)annual\s+report\s+pursuant\s+to\s+section\s+13|form\s+10-?k\b`)},
		{Kind10Q, regexp.MustCompile(`(?i)quarterly\s+report\s+pursuant\s+to\s+section\s+13|form\s+10-?q\b`)},
		{Kind8K, regexp.MustCompile(`(?i)current\s+report\s+pursuant\s+to\s+section\s+13|form\s+8-?k\b`)},
		{Kind20F, regexp.MustCompile(`(?i)form\s+20-?f\b`)},
	}
	abstractRE = regexp.MustCompile(`(?im)^\s*(?:abstract|a\s?b\s?s\s?t\s?r\s?a\s?c\s?t)\b`)
	paperRE    = regexp.MustCompile(`(?i)\bproceedings\b|\bassociation for computational linguistics\b|\barxiv\b|\bjournal\b|\btransactions\b|\bconference\b|\bintroduction\b|\bet al\.`)
	courtRE    = regexp.MustCompile(`(?i)\b(?:court of appeals|supreme court|district court)\b`)
	pressRE    = regexp.MustCompile(`(?i)\b(?:press release|for immediate release|news release)\b`)
)

// kindOf tells the kind from, in order of trust: an SEC cover, the file name, the metadata, what the cover and
// running lines say, and the shape of the pages.
func kindOf(fileWords, info, cover, running string, pages []string) string {
	head := cover[:min(len(cover), 3000)]
	for _, c := range secCoverRE {
		if c.re.MatchString(head) {
			return c.kind
		}
	}
	if k := firstKind(fileWords); k != "" && k != KindReport && k != KindForm && k != KindBook {
		return k
	}
	if pressRE.MatchString(head) && regexp.MustCompile(`(?i)\bresults\b|\bearnings\b`).MatchString(head) {
		return KindEarnings
	}
	if k := firstKind(info); k != "" && k != KindPaper {
		return k
	}
	if abstractRE.MatchString(head) && paperRE.MatchString(head) {
		return KindPaper
	}
	if courtRE.MatchString(head) {
		return KindCourt
	}
	firstPage := head
	if len(pages) > 0 {
		firstPage = pages[0][:min(len(pages[0]), 1500)]
	}
	if k := firstKind(firstPage + "\n" + running); k != "" && k != KindPaper && k != KindForm {
		return k
	}
	if k := firstKind(fileWords); k != "" {
		return k
	}
	return ""
}

// firstKind is the most specific kind s names.
func firstKind(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	for _, kw := range kindWords {
		if kw.re.MatchString(s) {
			return kw.kind
		}
	}
	return ""
}
