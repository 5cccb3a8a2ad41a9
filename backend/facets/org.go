package facets

import (
	"regexp"
	"strings"
	"unicode"
)

var (
	registrantRE  = regexp.MustCompile(`(?i)\(?\s*exact name of (?:the )?registrant`)
	companyRE     = regexp.MustCompile(`\b(?:[A-Z][\w&'.-]*,?\s+){0,5}?(?:[A-Z][\w&'.-]*,?\s+)(?i:Inc\.?|Incorporated|Corporation|Corp\.?|Company|Co\.|Ltd\.?|Limited|LLC|L\.P\.|PLC|Holdings|Group|AG|SE|S\.A\.|N\.V\.|GmbH)(?:,?\s+(?i:Inc\.?|Ltd\.?|Limited|LLC|PLC|AG|SE|S\.A\.|N\.V\.|GmbH))?(?:\W|$)`)
	institutionRE = regexp.MustCompile(`\b(?:[A-Z][\w&'.-]*\s+){0,4}(?:University|Institute|Association|Society|Commission|Agency|Department|Program|Programme|Council|Court|Committee|Foundation|Bank|Office|Ministry|Authority|Administration|Laboratory|Team|Authors)(?:\s+(?:of|for|on)\s+(?:the\s+)?[A-Z][\w'-]*(?:\s+(?:of\s+|and\s+)?[A-Z][\w'-]*){0,4})?`)
	courtNameRE   = regexp.MustCompile(`\b(?:[A-Z][\w.'-]*\s+){0,4}(?:Court|COURT)(?:\s+(?:of|for|OF|FOR)\s+(?:the\s+|THE\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,3})?`)
	copyrightRE   = regexp.MustCompile(`(?:©|\(c\)|[Cc]opyright)\s*(?:\(c\)\s*)?(?:\d{4}(?:[-–]\d{2,4})?,?\s*)?(?:by\s+)?([A-Z][^\n]{2,80})`)
	orgWordRE     = regexp.MustCompile(`(?i)\b(?:inc|incorporated|corporation|corp|company|ltd|limited|llc|plc|group|holdings|gmbh|university|institute|association|society|commission|agency|department|program|council|court|committee|foundation|bank|office|ministry|team|authors|authority|administration|laboratory|engineers)\b`)
	reservedRE    = regexp.MustCompile(`(?i)[.,;]?\s*all rights reserved.*$`)
	abbrevEndRE   = regexp.MustCompile(`(?i)\s(?:inc|corp|co|ltd)$`)
	// Leading words of a sentence are not part of a name ("The", "By", "For").
	leadRE = regexp.MustCompile(`^(?i:the|by|for|from|of|and|to|at|in|on|with|a|an)\s+`)
)

// orgOf finds the issuer, company or institution: an SEC cover's registrant, a company named in the running
// headers or on the first page, a copyright holder, an organisation as the metadata's author, an institution on
// the cover, and last the file name.
func orgOf(kind, first, cover string, running []string, author, fileWords string) string {
	lines := nonEmptyLines(cover)
	for i, l := range lines {
		j := registrantRE.FindStringIndex(l)
		if j == nil {
			continue
		}
		name := l[:j[0]] // "ACME CORP (Exact name …)" on one line
		if strings.TrimSpace(name) == "" && i > 0 {
			name = lines[i-1]
		}
		if n := tidyOrg(name); n != "" {
			return n
		}
	}
	firstLines := nonEmptyLines(first)
	if kind == KindCourt { // the parties are companies; the court issued it
		for _, l := range firstLines[:min(len(firstLines), 40)] {
			if m := courtNameRE.FindString(l); m != "" {
				return tidyOrg(m)
			}
		}
	}
	for _, l := range running {
		if m := companyRE.FindString(l); m != "" {
			return tidyOrg(m)
		}
	}
	for _, l := range firstLines[:min(len(firstLines), 40)] {
		if m := companyRE.FindString(l); m != "" && !boilerplateRE.MatchString(l) {
			return tidyOrg(m)
		}
	}
	if m := copyrightRE.FindStringSubmatch(cover); m != nil {
		if n := tidyOrg(reservedRE.ReplaceAllString(m[1], "")); n != "" && orgWordRE.MatchString(n) {
			return n
		}
	}
	if a := strings.TrimSpace(author); a != "" && orgWordRE.MatchString(a) && !strings.Contains(a, "@") {
		return tidyOrg(a)
	}
	for _, l := range running {
		if m := institutionRE.FindString(l); m != "" && len(strings.Fields(m)) >= 2 {
			return tidyOrg(m)
		}
	}
	body := withoutRunning(firstLines[:min(len(firstLines), 40)], running)
	for i, l := range body {
		j := institutionRE.FindStringIndex(l)
		if j == nil {
			continue
		}
		m := l[j[0]:j[1]]
		if j[0] == 0 && i > 0 {
			// A name broken by the line end ("…registered with the Care" / "Quality Commission to…") is joined.
			if lead := trailingCapitals(body[i-1], 4-len(strings.Fields(m))+1); lead != "" {
				m = lead + " " + m
			}
		}
		if len(strings.Fields(m)) >= 2 {
			return tidyOrg(m)
		}
	}
	return orgFromFileName(fileWords)
}

// withoutRunning drops the running headers and footers (digits ignored) that a page's text can carry in the middle
// of a sentence.
func withoutRunning(lines, running []string) []string {
	skip := map[string]bool{}
	for _, r := range running {
		skip[digitsRE.ReplaceAllString(strings.ToLower(r), "#")] = true
	}
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if !skip[digitsRE.ReplaceAllString(strings.ToLower(l), "#")] {
			out = append(out, l)
		}
	}
	return out
}

// trailingCapitals is the run of at most n capitalised words that ends a sentence's line ("…with the Care" →
// "Care"); a line of capitalised words only (an author's name above an affiliation) gives none.
func trailingCapitals(l string, n int) string {
	w := strings.Fields(l)
	i := len(w)
	for i > 0 && len(w)-i < n {
		r := []rune(w[i-1])
		if !unicode.IsUpper(r[0]) || strings.ContainsAny(w[i-1], ".,;:") {
			break
		}
		i--
	}
	if i == 0 || i == len(w) || !unicode.IsLower([]rune(w[i-1])[0]) {
		return "" // not a sentence running into a name ("Ada Lovelace, Alan Turing" is a list of authors)
	}
	return strings.Join(w[i:], " ")
}

// tidyOrg trims a found name to the name: no leading article, no trailing punctuation, no line noise.
func tidyOrg(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimRight(s, " ,;:.-–—|")
	if abbrevEndRE.MatchString(s) {
		s += "." // the trim took the abbreviation's own dot
	}
	for {
		t := leadRE.ReplaceAllString(s, "")
		if t == s {
			break
		}
		s = t
	}
	if !hasLetters(s, 2) || len([]rune(s)) > 100 {
		return ""
	}
	return s
}

// fileNameNoise are the words of file names that name no organisation.
var fileNameNoise = map[string]bool{
	"final": true, "draft": true, "report": true, "annual": true, "quarterly": true, "filing": true, "form": true,
	"copy": true, "v1": true, "v2": true, "v3": true, "rev": true, "scan": true, "scanned": true, "doc": true,
	"the": true, "of": true, "and": true, "fy": true, "full": true, "year": true, "results": true, "earnings": true,
	"release": true, "press": true, "presentation": true, "slides": true, "deck": true, "investor": true, "new": true,
	"q1": true, "q2": true, "q3": true, "q4": true, "10k": true, "10q": true, "8k": true, "20f": true, "k": true,
	"q": true, "ar": true, "sec": true, "statement": true, "statements": true, "financial": true,
}

// orgFromFileName takes the leading words of a file name that are neither a kind, a period nor noise
// ("ACME_10K_2021" → "ACME", "acme-annual-report-2022-final" → "Acme"); a file name of digits and hashes has none.
func orgFromFileName(fileWords string) string {
	// Only a name that also says a period or a specific kind is named the way filings are ("ACME_10K_2021");
	// "blood_loss_report" names a subject, not an issuer.
	says := false
	for _, w := range strings.Fields(fileWords) {
		k := firstKind(w)
		says = says || yearRE.MatchString(w) || fyRE.MatchString(w) || canonicalQuarter(w) != "" ||
			(k != "" && k != KindReport && k != KindForm && k != KindBook && k != KindPaper)
	}
	if !says && !strings.Contains(strings.ToLower(fileWords), "annual report") {
		return ""
	}
	var words []string
	for _, w := range strings.Fields(fileWords) {
		l := strings.ToLower(w)
		if fileNameNoise[l] || yearRE.MatchString(w) || fyRE.MatchString(w) || strings.ContainsFunc(w, unicode.IsDigit) {
			if len(words) > 0 {
				break
			}
			continue
		}
		if firstKind(w) != "" {
			if len(words) > 0 {
				break
			}
			continue
		}
		words = append(words, w)
		if len(words) == 3 {
			break
		}
	}
	if len(words) == 0 || !hasLetters(strings.Join(words, ""), 2) {
		return ""
	}
	for i, w := range words {
		if w == strings.ToLower(w) {
			r := []rune(w)
			r[0] = unicode.ToUpper(r[0])
			words[i] = string(r)
		}
	}
	return strings.Join(words, " ")
}
