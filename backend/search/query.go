package search

import (
	"regexp"
	"strconv"
	"strings"
)

// question is what a question says besides its content words: the instructions about the answer's form, which no
// page holds, are cut off; the figure/table/section labels and page references it names become signals of their own.
type question struct {
	text   string  // the question without answer-format instructions, for the indexes and the embedders
	labels []label // "Figure 2", "Table 1", "Section 3.3", in order of mention
	pages  []pageRef
}

// label is a numbered element of a document: kind is lower-case and singular ("figure", "table", "section").
type label struct {
	kind string
	num  string
}

// pageRef is a page the question names: a 1-based number, or the first or last page of its document.
type pageRef struct {
	n    int
	last bool
}

// instruction matches a sentence that only tells how to write the answer ("Please write down the answer in
// integer format.", "Directly answer 'yes' or 'no'.", "Format your answer as YYYY-MM-DD.", "For example: ...").
var instruction = regexp.MustCompile(`(?i)^\s*(please\b|kindly\b|(directly\s+)?answer\b|write\b|give\s+(me\s+)?(the\s+|an?\s+)?(answer|integer|number|float|list)|` +
	`format\b|your\s+answer\b|the\s+answers?\s+(should|shall|must|needs?)\b|return\b|output\b|respond\b|round\b|` +
	`express\b|for\s+example\b|e\.g\.|example\s*:|note\s*:|only\s+(answer|give|write|return)\b)`)

// sentenceEnd splits after ".", "?" or "!" followed by a space, leaving decimals and "e.g." alone.
var sentenceEnd = regexp.MustCompile(`[.?!]\s+`)

var (
	labelRE = regexp.MustCompile(`(?i)\b(figures?|figs?\.?|tables?|tabs?\.|sections?|secs?\.|§|chapters?|appendix|appendices|algorithms?|equations?|eqs?\.)\s*` +
		`(\d+(?:\.\d+)*|[A-Z](?:\.\d+)*\b)((?:\s*(?:-|–|to|and|,|&)\s*(?:\d+(?:\.\d+)*))*)`)
	labelMore = regexp.MustCompile(`\d+(?:\.\d+)*`)
	rangeSep  = regexp.MustCompile(`^\s*(-|–|to)\s*\d`)
	pageNumRE = regexp.MustCompile(`(?i)\bpages?\s*(?:no\.?|number|#)?\s*\(?\s*(\d{1,5})\s*\)?`)
	// "the first figure", "the second table": ordinals that name a label by its number.
	ordinalRE = regexp.MustCompile(`(?i)\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\s+(figure|table)s?\b`)
	pageEndRE = regexp.MustCompile(`(?i)\b(first|last|final|cover|front|title|opening|closing)\s+page\b`)
)

// parseQuestion reads a query as a question. Text that is nothing but instructions is kept as it is.
func parseQuestion(q string) question {
	var keep []string
	for _, s := range splitSentences(q) {
		if !instruction.MatchString(s) {
			keep = append(keep, s)
		}
	}
	out := question{text: strings.TrimSpace(strings.Join(keep, " "))}
	if out.text == "" {
		out.text = q
	}
	seen := map[label]bool{}
	add := func(l label) {
		if !seen[l] && len(out.labels) < 8 {
			seen[l] = true
			out.labels = append(out.labels, l)
		}
	}
	for _, m := range labelRE.FindAllStringSubmatch(out.text, -1) {
		kind := labelKind(m[1])
		add(label{kind, strings.ToLower(m[2])})
		more := labelMore.FindAllString(m[3], -1)
		// "figures 1-4" is a range; "Table 1 and 2" a list.
		if len(more) == 1 && rangeSep.MatchString(m[3]) {
			a, err1 := strconv.Atoi(m[2])
			b, err2 := strconv.Atoi(more[0])
			if err1 == nil && err2 == nil && b > a && b-a <= 10 {
				for n := a + 1; n <= b; n++ {
					add(label{kind, strconv.Itoa(n)})
				}
				continue
			}
		}
		for _, n := range more {
			add(label{kind, n})
		}
	}
	for _, m := range ordinalRE.FindAllStringSubmatch(out.text, -1) {
		add(label{labelKind(m[2]), strconv.Itoa(ordinals[strings.ToLower(m[1])])})
	}
	for _, m := range pageNumRE.FindAllStringSubmatch(out.text, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			out.pages = append(out.pages, pageRef{n: n})
		}
	}
	for _, m := range pageEndRE.FindAllStringSubmatch(out.text, -1) {
		switch strings.ToLower(m[1]) {
		case "last", "final", "closing":
			out.pages = append(out.pages, pageRef{last: true})
		default:
			out.pages = append(out.pages, pageRef{n: 1})
		}
	}
	return out
}

var ordinals = map[string]int{"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
	"eighth": 8, "ninth": 9, "tenth": 10}

func splitSentences(q string) []string {
	var out []string
	start := 0
	for _, loc := range sentenceEnd.FindAllStringIndex(q, -1) {
		out = append(out, q[start:loc[0]+1])
		start = loc[1]
	}
	return append(out, q[start:])
}

func labelKind(s string) string {
	s = strings.ToLower(strings.TrimRight(s, "."))
	switch {
	case strings.HasPrefix(s, "fig"):
		return "figure"
	case strings.HasPrefix(s, "tab"):
		return "table"
	case strings.HasPrefix(s, "sec"), s == "§":
		return "section"
	case strings.HasPrefix(s, "chap"):
		return "chapter"
	case strings.HasPrefix(s, "app"):
		return "appendix"
	case strings.HasPrefix(s, "alg"):
		return "algorithm"
	}
	return "equation"
}
