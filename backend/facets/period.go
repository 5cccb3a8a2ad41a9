package facets

import (
	"fmt"
	"regexp"
	"strings"
)

const monthAlt = `jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?`

var (
	yearRE = regexp.MustCompile(`^(?:19[5-9]\d|20\d\d)$`)
	fyRE   = regexp.MustCompile(`(?i)^fy'?(\d{2}|\d{4})$`)
	// "For the fiscal year ended December 31, 2022"; "for the quarterly period ended September 30, 2022".
	fiscalEndedRE  = regexp.MustCompile(`(?i)fiscal\s+year\s+ended\s*:?\s*(` + monthAlt + `)\.?\s+\d{1,2},?\s+((?:19|20)\d\d)`)
	quarterEndedRE = regexp.MustCompile(`(?i)quarterly\s+period\s+ended\s*:?\s*(` + monthAlt + `)\.?\s+\d{1,2},?\s+((?:19|20)\d\d)`)
	// "third quarter 2022", "Q3 2022", "Q3 FY22", "third quarter of fiscal 2022".
	quarterWordRE = regexp.MustCompile(`(?i)\b(first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+quarter(?:\s+of)?(?:\s+(?:fiscal(?:\s+year)?|fy))?\s*'?((?:19|20)?\d\d)\b`)
	quarterQRE    = regexp.MustCompile(`(?i)\bq([1-4])[\s'-]*(?:fy|fiscal)?\s*'?((?:19|20)\d\d|\d\d)\b`)
	fiscalRE      = regexp.MustCompile(`(?i)\b(?:fiscal(?:\s+year)?|fy)\s*'?((?:19|20)\d\d|\d\d)\b`)
	annualYearRE  = regexp.MustCompile(`(?i)\b((?:19|20)\d\d)\s+annual\s+report\b|\bannual\s+report\s+(?:for\s+(?:the\s+year\s+)?)?((?:19|20)\d\d)\b`)
	anyYearRE     = regexp.MustCompile(`\b((?:19[5-9]|20\d)\d)\b`)
	quarterFileRE = regexp.MustCompile(`(?i)^q([1-4])$|^([1-4])q$`)
)

// canonicalQuarter reads "Q3", "3q", "third quarter" as "Q3".
func canonicalQuarter(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if m := quarterFileRE.FindStringSubmatch(s); m != nil {
		return "Q" + m[1] + m[2]
	}
	switch strings.TrimSuffix(s, " quarter") {
	case "first", "1st":
		return "Q1"
	case "second", "2nd":
		return "Q2"
	case "third", "3rd":
		return "Q3"
	case "fourth", "4th":
		return "Q4"
	}
	return ""
}

// fullYear reads "22" as 2022 and "1998" as itself.
func fullYear(s string) string {
	if len(s) == 2 {
		if s[0] >= '5' {
			return "19" + s
		}
		return "20" + s
	}
	return s
}

func monthNum(m string) int {
	m = strings.ToLower(m)
	for i, p := range []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"} {
		if strings.HasPrefix(m, p) {
			return i + 1
		}
	}
	return 0
}

// periodOf finds the fiscal year (and quarter) a document covers: the wording of a filing's cover, a release's
// quarter, a report's year, the file name.
func periodOf(kind, cover string, running []string, info, fileWords string) (year, quarter string) {
	head := cover[:min(len(cover), 4000)]
	if m := quarterEndedRE.FindStringSubmatch(head); m != nil && kind != Kind10K {
		return m[2], fmt.Sprintf("Q%d", (monthNum(m[1])+2)/3)
	}
	if m := fiscalEndedRE.FindStringSubmatch(head); m != nil {
		return m[2], ""
	}
	texts := []string{info, strings.Join(running, "\n"), head}
	for _, t := range texts {
		if m := quarterWordRE.FindStringSubmatch(t); m != nil {
			return fullYear(m[2]), canonicalQuarter(m[1])
		}
		if m := quarterQRE.FindStringSubmatch(t); m != nil {
			return fullYear(m[2]), "Q" + m[1]
		}
	}
	for _, t := range texts {
		if m := annualYearRE.FindStringSubmatch(t); m != nil {
			return m[1] + m[2], ""
		}
		if m := fiscalRE.FindStringSubmatch(t); m != nil {
			return fullYear(m[1]), ""
		}
	}
	// The file name: "ACME_10K_2021", "acme-q3-2022", "AR_FY22".
	for _, w := range strings.Fields(fileWords) {
		if yearRE.MatchString(w) {
			year = w
		} else if m := fyRE.FindStringSubmatch(w); m != nil {
			year = fullYear(m[1])
		} else if q := canonicalQuarter(w); q != "" {
			quarter = q
		}
	}
	if year != "" {
		return year, quarter
	}
	if kind == KindAnnual || kind == KindEarnings || kind == Kind10K || kind == Kind10Q {
		// A report's cover states the year it reports on before any other.
		if m := anyYearRE.FindStringSubmatch(head[:min(len(head), 1500)]); m != nil {
			return m[1], quarter
		}
	}
	return "", ""
}

var (
	mdyRE     = regexp.MustCompile(`(?i)\b(` + monthAlt + `)\.?\s+(\d{1,2})(?:\s*[-–]\s*\d{1,2})?(?:st|nd|rd|th)?,?\s+((?:19|20)\d\d)\b`)
	dmyRE     = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(` + monthAlt + `)\.?,?\s+((?:19|20)\d\d)\b`)
	ymdRE     = regexp.MustCompile(`\b((?:19|20)\d\d)[/-](\d{1,2})[/-](\d{1,2})\b`)
	myRE      = regexp.MustCompile(`(?i)\b(` + monthAlt + `)\.?\s+((?:19|20)\d\d)\b`)
	pdfDateRE = regexp.MustCompile(`^(?:D:)?((?:19|20)\d\d)(\d\d)?(\d\d)?`)
)

// dateOf is the first date the first page states (covers date themselves), else the file's creation date.
func dateOf(first, created string) string {
	head := first[:min(len(first), 2500)]
	type found struct {
		at   int
		date string
	}
	var best *found
	try := func(at int, y string, m, d int) {
		if m < 1 || m > 12 || d < 0 || d > 31 || (best != nil && best.at <= at) {
			return
		}
		s := fmt.Sprintf("%s-%02d", y, m)
		if d > 0 {
			s += fmt.Sprintf("-%02d", d)
		}
		if !realDate(s) {
			return // "2022-13-45" on a page is a code, not a date
		}
		best = &found{at, s}
	}
	if m := mdyRE.FindStringSubmatchIndex(head); m != nil {
		try(m[0], head[m[6]:m[7]], monthNum(head[m[2]:m[3]]), atoi(head[m[4]:m[5]]))
	}
	if m := dmyRE.FindStringSubmatchIndex(head); m != nil {
		try(m[0], head[m[6]:m[7]], monthNum(head[m[4]:m[5]]), atoi(head[m[2]:m[3]]))
	}
	// Every numeric date in turn: the first may be a code shaped like one ("2022-13-45").
	for _, m := range ymdRE.FindAllStringSubmatchIndex(head, -1) {
		try(m[0], head[m[2]:m[3]], atoi(head[m[4]:m[5]]), atoi(head[m[6]:m[7]]))
	}
	if m := myRE.FindStringSubmatchIndex(head); m != nil && !(best != nil && best.at <= m[0]) {
		try(m[0], head[m[4]:m[5]], monthNum(head[m[2]:m[3]]), 0)
	}
	if best != nil {
		return best.date
	}
	if m := pdfDateRE.FindStringSubmatch(strings.TrimSpace(created)); m != nil {
		// The most precise of the date's forms that names a real day, month or year.
		for _, s := range []string{m[1] + "-" + m[2] + "-" + m[3], m[1] + "-" + m[2], m[1]} {
			if realDate(s) {
				return s
			}
		}
	}
	return ""
}
