package eval

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// NotAnswerable is the prediction that says the document holds no answer (MMLongBench-Doc's spelling).
const NotAnswerable = "Not answerable"

// Rule-based answer scoring as MMLongBench-Doc scores a short answer by its answer_format: Int exactly, Float with
// a 1 % relative tolerance or to the shorter precision (also as a percentage), Str and None by ANLS (threshold 0.5)
// unless the reference is a kind that must match exactly (URLs, file names, pages, phone numbers, times, dates,
// e-mail addresses), List by length, then sorted items, exactly for numbers and exact kinds, else the least ANLS.
//
// MMLongBench-Doc first has GPT-4o extract a short answer from the model's reply; ExtractAnswer does that step by
// rule instead (see there). Two deliberate differences from its script: unit suffixes (mile, miles, million) are
// really stripped (the script computes the stripped string and drops it), and a reference "Not answerable or 0 or
// none" accepts each alternative.

// ScoreAnswer scores a short predicted answer against the reference, 0..1 (ANLS may give partial credit).
func ScoreAnswer(reference, predicted, format string) float64 {
	switch format {
	case "Int":
		g, err1 := strconv.Atoi(strings.TrimSpace(reference))
		p, err2 := strconv.ParseFloat(strings.TrimSpace(predicted), 64)
		if err1 != nil || err2 != nil {
			return 0
		}
		return b2f(g == int(p)) // Python's int(float(pred)) truncates toward zero, as int() does here
	case "Float":
		g, err1 := strconv.ParseFloat(cleanString(reference), 64)
		p, err2 := strconv.ParseFloat(cleanString(predicted), 64)
		if err1 != nil || err2 != nil {
			return 0
		}
		return b2f(floatEqual(g, p))
	case "List":
		return scoreList(reference, predicted)
	case "None":
		best := 0.0
		for _, alt := range strings.Split(reference, " or ") {
			best = math.Max(best, scoreString(alt, predicted))
		}
		return best
	default: // Str, and anything unknown
		return scoreString(reference, predicted)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func scoreString(reference, predicted string) float64 {
	g, p := cleanString(reference), cleanString(predicted)
	if exactKind(g) {
		return b2f(g == p)
	}
	return anls(g, p)
}

func scoreList(reference, predicted string) float64 {
	g, p := parseList(reference), parseList(predicted)
	if len(g) != len(p) || len(g) == 0 {
		return 0
	}
	for i := range g {
		g[i] = cleanString(g[i])
	}
	for i := range p {
		p[i] = cleanString(p[i])
	}
	sort.Strings(g)
	sort.Strings(p)
	if _, err := strconv.ParseFloat(g[0], 64); err == nil || exactKind(g[0]) {
		return b2f(strings.Join(g, "-") == strings.Join(p, "-"))
	}
	least := 1.0
	for i := range g {
		least = math.Min(least, anls(g[i], p[i]))
	}
	return least
}

var (
	parenRe = regexp.MustCompile(`\s*\([^)]*\)`)
	quoteRe = regexp.MustCompile(`^['"]|['"]$`)
)

// cleanString normalises an answer before comparison: lower case, unit suffixes, parentheses, surrounding quotes, a
// leading dollar and a trailing percent sign removed.
func cleanString(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, unit := range []string{"miles", "mile", "million"} {
		if strings.HasSuffix(s, unit) {
			s = strings.TrimSpace(strings.TrimSuffix(s, unit))
			break
		}
	}
	s = strings.TrimSpace(parenRe.ReplaceAllString(s, ""))
	s = strings.TrimSpace(quoteRe.ReplaceAllString(s, ""))
	s = strings.TrimSpace(strings.TrimPrefix(s, "$"))
	s = strings.TrimSpace(strings.TrimSuffix(s, "%"))
	return s
}

var (
	phoneRe = regexp.MustCompile(`^\d+(-\d+|\s\d+)?$`)
	dateRe  = regexp.MustCompile(`^\d{4}[-\s]\d{2}[-\s]\d{2}$`)
	monthRe = regexp.MustCompile(`^\d{4}[-\s]\d{2}$`)
	mailRe  = regexp.MustCompile(`^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$`)
)

// exactKind reports references that only an exact match answers: near misses are wrong, not partly right.
func exactKind(s string) bool {
	return strings.Contains(s, "https://") || strings.HasSuffix(s, ".py") || strings.HasSuffix(s, "ipynb") ||
		strings.HasPrefix(s, "page") || phoneRe.MatchString(s) || strings.Contains(s, "a.m.") ||
		strings.Contains(s, "p.m.") || dateRe.MatchString(s) || monthRe.MatchString(s) || mailRe.MatchString(s)
}

// anls is the normalised Levenshtein similarity, zero at or below 0.5.
func anls(g, p string) float64 {
	n := max(utf8.RuneCountInString(strings.ToUpper(g)), utf8.RuneCountInString(strings.ToUpper(p)))
	if n == 0 {
		return 1
	}
	v := 1 - float64(levenshtein([]rune(g), []rune(p)))/float64(n)
	if v <= 0.5 {
		return 0
	}
	return v
}

func levenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// floatEqual: the reference, or it read as a percentage either way, within 1 % or equal at the shorter precision
// (at least 2 decimals).
func floatEqual(ref, pred float64) bool {
	for _, g := range []float64{ref / 100, ref, ref * 100} {
		if math.Abs(g-pred) <= 0.01*math.Max(math.Abs(g), math.Abs(pred)) {
			return true
		}
		prec := max(min(decimals(pred), decimals(g)), 2)
		if roundTo(pred, prec) == roundTo(g, prec) {
			return true
		}
	}
	return false
}

// decimals counts the digits after the point of f's shortest form (at least 1, as Python prints 5.0).
func decimals(f float64) int {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 1
}

func roundTo(f float64, n int) float64 {
	p := math.Pow(10, float64(n))
	return math.RoundToEven(f*p) / p
}

// parseList reads a Python-style list literal (single or double quotes, bare numbers); anything else is a one-item
// list of the whole text.
func parseList(s string) []string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	body := s[1 : len(s)-1]
	var out []string
	var cur strings.Builder
	var quote rune
	started := false
	for _, c := range body {
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(c)
		case c == '\'' || c == '"':
			quote, started = c, true
		case c == ',':
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
			started = false
		default:
			if c != ' ' || started {
				cur.WriteRune(c)
				started = true
			}
		}
	}
	if t := strings.TrimSpace(cur.String()); t != "" || started {
		out = append(out, t)
	}
	return out
}

var (
	numberRe  = regexp.MustCompile(`[-+]?\$?\d[\d,]*(\.\d+)?%?|[-+]?\.\d+%?`)
	refusalRe = regexp.MustCompile(`(?i)not answerable|unanswerable|cannot (be )?(answer|determin|find)|can ?not (be )?(answer|determin|find|retriev)|unable to (answer|determine|find)|no (relevant )?information|not (mentioned|provided|stated|specified|available|found)|does not (contain|mention|provide|specify|state)|doesn't (contain|mention|provide)|^none\.?$|not enough information`)
	tagRe     = regexp.MustCompile(`(?s)</?answer>`)
)

// ExtractAnswer turns a model's free answer into the short answer the rules compare, by rule where MMLongBench-Doc
// asks GPT-4o: a refusal becomes "Not answerable"; for Int and Float the first number (thousands separators and a
// leading $ dropped, a % kept); for List a list literal, or the text split at commas, semicolons, line breaks and
// " and "; for Str the text, a closing full stop removed.
func ExtractAnswer(answer, format string) string {
	a := strings.TrimSpace(tagRe.ReplaceAllString(answer, ""))
	if a == "" || refusalRe.MatchString(a) {
		return NotAnswerable
	}
	switch format {
	case "Int", "Float":
		m := numberRe.FindString(a)
		if m == "" {
			return a
		}
		m = strings.NewReplacer(",", "", "$", "").Replace(m)
		if format == "Int" {
			return strings.TrimSuffix(m, "%")
		}
		return m
	case "List":
		if strings.HasPrefix(a, "[") && strings.HasSuffix(a, "]") {
			return a
		}
		parts := regexp.MustCompile(`\s*(?:[,;\n]|\band\b)\s*`).Split(strings.TrimSuffix(a, "."), -1)
		var items []string
		for _, p := range parts {
			if p = strings.TrimSpace(p); p != "" {
				items = append(items, strconv.Quote(p))
			}
		}
		return "[" + strings.Join(items, ", ") + "]"
	default:
		if strings.Count(a, ".") == 1 { // a sentence's full stop, not an abbreviation's ("M.A.")
			return strings.TrimSuffix(a, ".")
		}
		return a
	}
}

// Answerable reports whether a question has an answer in its document (format None means it has not).
func Answerable(q Question) bool { return q.AnswerFormat != "None" }

// AccuracyF1 is MMLongBench-Doc's pair: accuracy is the mean score; the generalised F1 combines recall (the mean
// score over answerable questions) and precision (the score on answerable questions over the predictions that are
// not "Not answerable"), so a system that refuses everything, or answers everything, is not rewarded.
type AccuracyF1 struct {
	N        int     `json:"n"`
	Accuracy float64 `json:"accuracy"`
	F1       float64 `json:"f1"`
}

// ScoredAnswer is one question's rule-based outcome, the input of AccAndF1.
type ScoredAnswer struct {
	Answerable bool
	Predicted  string // the short answer
	Score      float64
}

// AccAndF1 averages scored answers.
func AccAndF1(xs []ScoredAnswer) AccuracyF1 {
	r := AccuracyF1{N: len(xs)}
	if len(xs) == 0 {
		return r
	}
	var sum, ansSum float64
	var nAns, nPred int
	for _, x := range xs {
		sum += x.Score
		if x.Answerable {
			ansSum += x.Score
			nAns++
		}
		if x.Predicted != NotAnswerable {
			nPred++
		}
	}
	r.Accuracy = sum / float64(len(xs))
	if nAns > 0 && nPred > 0 {
		recall, precision := ansSum/float64(nAns), ansSum/float64(nPred)
		if recall+precision > 0 {
			r.F1 = 2 * recall * precision / (recall + precision)
		}
	}
	return r
}
