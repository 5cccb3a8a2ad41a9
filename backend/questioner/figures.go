package questioner

import (
	"strings"
	"unicode"
)

// referenceWords come before a number that names a part of the document or a version, not a figure it states.
var referenceWords = map[string]bool{
	"table": true, "figure": true, "fig.": true, "section": true, "chapter": true, "eq.": true, "equation": true,
	"version": true, "page": true, "p.": true, "pp.": true, "step": true, "model": true, "appendix": true,
}

// figureAt is the index of the first word of a sentence that states a figure: a number, not a year, a range or a
// reference, with words before it; -1 when there is none.
func figureAt(ws []string) int {
	for i, w := range ws {
		t := strings.Trim(w, "()[],;:.")
		if i < 2 || !isFigure(t) || isYear(t) || strings.ContainsAny(t, "–-−<>") {
			continue
		}
		if referenceWords[strings.ToLower(ws[i-1])] || strings.HasSuffix(ws[i-1], ",") || strings.HasPrefix(w, "(") {
			continue
		}
		return i
	}
	return -1
}

// units are words after a number that measure it rather than name what is counted.
var units = map[string]bool{
	"ml": true, "mg": true, "kg": true, "cm": true, "mm": true, "km": true, "percent": true, "per": true,
	"million": true, "millions": true, "billion": true, "billions": true, "thousand": true, "times": true,
}

// countedNoun is the one or two words after a number that name what it counts ("1100 evaluable patients"), ending
// in a plural; nil when the number counts nothing named.
func countedNoun(ws []string, i int) []string {
	var np []string
	for j := i + 1; j < len(ws) && len(np) < 2; j++ {
		t := trimPunct(ws[j])
		low := strings.ToLower(t)
		if len(t) < 3 || isStop(low) || units[low] || strings.ContainsFunc(t, func(r rune) bool {
			return !unicode.IsLetter(r) && r != '-'
		}) {
			break
		}
		np = append(np, display(t))
		if t != ws[j] {
			break
		}
	}
	for len(np) > 0 && !plural(np[len(np)-1]) {
		np = np[:len(np)-1]
	}
	if len(np) == 0 {
		return nil
	}
	return np
}

// plural reports an English plural noun by its ending: "patients", not "class", "status" or "analysis".
func plural(w string) bool {
	return strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") &&
		!strings.HasSuffix(w, "is")
}

// auxiliaries start the verb of a counted subject: "54 patients with PPH were needed".
var auxiliaries = map[string]bool{"was": true, "were": true, "is": true, "are": true, "had": true, "have": true,
	"has": true, "did": true, "will": true, "would": true, "could": true}

// verbTail is the words after a counted noun up to the end of its clause, when they reach its verb within five
// words ("with PPH were needed"); "" otherwise.
func verbTail(ws []string, from int) string {
	var tail []string
	verb := false
	for j := from; j < len(ws) && j < from+5; j++ {
		w := ws[j]
		t := strings.TrimRight(w, ".,;:)")
		if strings.ContainsAny(t, "()[]") || strings.IndexFunc(t, unicode.IsDigit) >= 0 {
			return ""
		}
		tail = append(tail, t)
		verb = verb || auxiliaries[strings.ToLower(t)]
		if t != w {
			break
		}
	}
	if !verb || len(tail) < 2 || auxiliaries[strings.ToLower(tail[len(tail)-1])] {
		return ""
	}
	return strings.Join(tail, " ")
}

// joiners may stand inside a noun phrase before a figure ("activity prior to delivery").
var joiners = map[string]bool{"of": true, "to": true, "for": true, "in": true, "prior": true, "on": true}

// linkWords stand between a noun phrase and its figure ("power of 80%", "activity was 83").
var linkWords = map[string]bool{"of": true, "was": true, "were": true, "is": true, "are": true, "to": true,
	"at": true, "=": true, "about": true, "approximately": true, "by": true, "reached": true, "totalled": true}

// phraseBefore is the noun phrase that a figure measures: up to five words before it (and its link word), back to
// a stop word, a punctuation mark or an abbreviation; nil when it holds no content word.
func phraseBefore(ws []string, i int) []string {
	j := i - 1
	if j >= 0 && linkWords[strings.ToLower(ws[j])] {
		j--
	}
	var np []string
	for ; j >= 0 && len(np) < 5; j-- {
		w := ws[j]
		low := strings.ToLower(w)
		if w != strings.TrimRight(w, ".,;:)") || strings.ContainsAny(w, "()[]") || !hasLetter(w) ||
			strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			break
		}
		if isStop(low) && !joiners[low] {
			break
		}
		np = append([]string{display(w)}, np...)
	}
	for len(np) > 0 && joiners[strings.ToLower(np[0])] {
		np = np[1:]
	}
	for len(np) > 0 && joiners[strings.ToLower(np[len(np)-1])] {
		np = np[:len(np)-1]
	}
	if len(np) == 0 || len(keywords(np, 1)) == 0 {
		return nil
	}
	// A phrase is named by its last word, a noun: "pronounced" or "built" before a figure ends a clause.
	head := strings.ToLower(np[len(np)-1])
	for _, end := range []string{"ed", "ing", "ly", "lt"} {
		if strings.HasSuffix(head, end) {
			return nil
		}
	}
	return np
}

// prepositions may open the phrase after a figure that says where it holds ("4.9% in our patients").
var prepositions = map[string]bool{"in": true, "for": true, "at": true, "among": true, "with": true,
	"during": true, "across": true, "between": true}

// contextAfter is the phrase after a figure (and its unit) that says where it holds, up to a punctuation mark or
// another figure: "in our patients", "at a level of significance"; "" when there is none.
func contextAfter(ws []string, i int) string {
	j := i + 1
	if j < len(ws) && units[strings.ToLower(trimPunct(ws[j]))] && ws[i] == strings.TrimRight(ws[i], ",;:.") {
		j++
	}
	if j >= len(ws) || !prepositions[strings.ToLower(ws[j])] || ws[j-1] != strings.TrimRight(ws[j-1], ",;:.") {
		return ""
	}
	var ctx []string
	for ; j < len(ws) && len(ctx) < 6; j++ {
		t := strings.TrimRight(ws[j], ",;:.)")
		if strings.IndexFunc(t, unicode.IsDigit) >= 0 || strings.ContainsAny(t, "()[]") {
			break
		}
		ctx = append(ctx, display(t))
		if t != ws[j] {
			break
		}
	}
	for len(ctx) > 1 && isStop(strings.ToLower(ctx[len(ctx)-1])) {
		ctx = ctx[:len(ctx)-1]
	}
	if len(ctx) < 2 {
		return ""
	}
	return strings.Join(ctx, " ")
}
