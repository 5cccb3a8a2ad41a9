package summary

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"proofglass/backend/tables"
)

// figureUnitRE finds a figure stated with a unit, a currency or a percentage.
var figureUnitRE = regexp.MustCompile(`(?i)(?:[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:million|billion|trillion|thousand|bn|mn|m|k)\b)?)` +
	`|(?:\d[\d,]*(?:\.\d+)?\s?(?:%|％|percent\b|per cent\b|pp\b|bps\b|basis points\b|million\b|billion\b|trillion\b|thousand\b|bn\b|` +
	`usd\b|eur\b|gbp\b|rmb\b|cny\b|jpy\b|ml\b|mg\b|kg\b|g/l\b|mg/dl\b|iu/dl\b|mmol/l\b|tonnes\b|tons\b|km\b|cm\b|mm\b|kwh\b|mwh\b|mw\b|gw\b|` +
	`hours\b|days\b|weeks\b|months\b|years\b|minutes\b|seconds\b|patients\b|people\b|employees\b|users\b|customers\b|participants\b|` +
	`respondents\b|households\b|units\b|°c|°f|元|万元|亿元|万|亿|人|吨|千克|公斤|公里|平方米|家|项|倍))`)

// keyFigures reads the sentences of the key pages that state a figure with a unit, first ones first, at most
// MaxKeyFigures of them and one a sentence.
func (r *reader) keyFigures() []KeyFigure {
	out := []KeyFigure{}
	seen := map[string]bool{}
	for _, lines := range r.keyLines {
		for _, s := range sentences(lines) {
			if codeRE.MatchString(s.text) {
				continue
			}
			m := figureUnitRE.FindString(s.text)
			if m == "" || seen[s.text] {
				continue
			}
			seen[s.text] = true
			if len(out) >= MaxKeyFigures {
				r.cut++
				continue
			}
			out = append(out, KeyFigure{Figure: strings.TrimSpace(m), Text: clip(s.text, 300), Page: s.page,
				Region: boxRegion(s.box, s.pw, s.ph)})
		}
	}
	return out
}

type sentence struct {
	text   string
	page   int
	box    tables.Box
	pw, ph float64
}

// sentences joins a page's lines into sentences, each with the box of the lines it spans.
func sentences(lines []pline) []sentence {
	var out []sentence
	var cur sentence
	var sb strings.Builder
	flush := func() {
		t := strings.TrimSpace(sb.String())
		if t != "" {
			cur.text = t
			out = append(out, cur)
		}
		sb.Reset()
		cur = sentence{}
	}
	var prev *pline
	for i := range lines {
		l := lines[i]
		words := strings.Fields(l.text)
		if len(words) == 0 {
			continue
		}
		// A paragraph ends where the next line starts a page or stands apart from it by half a line's height or more
		// (wrapped lines touch, even at one and a half spacing; word boxes are taller than the type):
		// a heading, a table row or a letter's salutation is not the start of the sentence below it.
		if prev != nil && (l.page != prev.page || l.box.Y0-prev.box.Y1 > 0.5*max(prev.height, l.height)) {
			flush()
		}
		prev = &lines[i]
		if cur.page == 0 {
			cur.page, cur.pw, cur.ph = l.page, l.pw, l.ph
		}
		cur.box = union(cur.box, l.box)
		for _, w := range words {
			if sb.Len() > 0 {
				s := sb.String()
				last, _ := utf8.DecodeLastRuneInString(s)
				first, _ := utf8.DecodeRuneInString(w)
				if strings.HasSuffix(s, "-") && unicode.IsLower(first) {
					sb.Reset()
					sb.WriteString(strings.TrimSuffix(s, "-")) // a word broken at the line's end
				} else if !(isCJK(last) && isCJK(first)) {
					sb.WriteByte(' ')
				}
			}
			sb.WriteString(w)
			if endsSentence(w) {
				flush()
				cur.page, cur.pw, cur.ph, cur.box = l.page, l.pw, l.ph, l.box
			}
		}
		if sb.Len() > 600 {
			flush() // a run of text with no full stop (a list, a table the finder missed)
		}
	}
	flush()
	return out
}

// abbreviations end in a full stop without ending a sentence.
var abbreviations = map[string]bool{"al.": true, "e.g.": true, "i.e.": true, "fig.": true, "no.": true, "vs.": true,
	"etc.": true, "cf.": true, "approx.": true, "dr.": true, "mr.": true, "mrs.": true, "ms.": true, "st.": true}

func endsSentence(w string) bool {
	w = strings.TrimRight(w, `)"'”’]`)
	if strings.HasSuffix(w, "。") || strings.HasSuffix(w, "！") || strings.HasSuffix(w, "？") {
		return true
	}
	if !strings.HasSuffix(w, ".") && !strings.HasSuffix(w, "!") && !strings.HasSuffix(w, "?") {
		return false
	}
	if abbreviations[strings.ToLower(w)] {
		return false
	}
	core := strings.TrimSuffix(w, ".")
	if utf8.RuneCountInString(core) == 1 && unicode.IsUpper([]rune(core)[0]) {
		return false // an initial: "F. XIII"
	}
	return true
}
