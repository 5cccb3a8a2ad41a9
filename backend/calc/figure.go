package calc

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// currencyPrefixes are stripped before the number; longer forms first so
// "US$" is not read as "US" followed by "$".
var currencyPrefixes = []string{
	"US$", "HK$", "A$", "C$", "NZ$", "S$", "R$", "CN¥", "RMB", "USD", "EUR", "GBP", "JPY", "CNY", "CHF",
	"$", "€", "£", "¥", "￥", "₩", "₹", "₽", "₺", "₫",
}

// currencySuffixes cover figures written as "4.1 USD" or "3.2 元".
var currencySuffixes = []string{"USD", "EUR", "GBP", "JPY", "CNY", "RMB", "CHF", "元", "円", "€"}

// scaleSuffixes are matched case-insensitively, longest first, so "mn" wins over "m".
var scaleSuffixes = []struct {
	word   string
	factor float64
}{
	{"trillion", 1e12}, {"billion", 1e9}, {"million", 1e6}, {"thousand", 1e3},
	{"bn", 1e9}, {"tn", 1e12}, {"mn", 1e6}, {"mm", 1e6},
	{"k", 1e3}, {"m", 1e6}, {"b", 1e9}, {"t", 1e12},
	{"万", 1e4}, {"亿", 1e8},
}

// ParseFigure reads a figure as a document writes it: "1,234.5", "(12.3)",
// "−4.1", "18.2%", "$4.1 billion", "€3.2m", "3.2亿", "12 万". A percentage
// keeps its written number (18.2, not 0.182) and reports isPercent.
func ParseFigure(s string) (value float64, isPercent bool, err error) {
	orig := s
	bad := func(why string) (float64, bool, error) {
		return 0, false, fmt.Errorf("%w: %q %s", ErrBadFigure, orig, why)
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return bad("is empty")
	}
	neg := false
	s, isPercent = cutPercent(s)
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		// Accounting negatives: "(12.3)".
		neg = true
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	if !isPercent {
		s, isPercent = cutPercent(s)
	}
	s, neg = cutSign(s, neg)
	for _, c := range currencyPrefixes {
		if rest, ok := cutPrefixFold(s, c); ok {
			s = strings.TrimSpace(rest)
			break
		}
	}
	s, neg = cutSign(s, neg)
	for _, c := range currencySuffixes {
		if rest, ok := cutSuffixFold(s, c); ok {
			s = strings.TrimSpace(rest)
			break
		}
	}
	factor := 1.0
	for _, sc := range scaleSuffixes {
		rest, ok := cutSuffixFold(s, sc.word)
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		// A scale word must follow a digit: "4.1m" yes, a bare "m" no.
		if rest == "" || !isDigit(rest[len(rest)-1]) {
			continue
		}
		factor, s = sc.factor, rest
		break
	}
	if isPercent && factor != 1 {
		return bad("mixes a percentage with a scale word")
	}
	var digits strings.Builder
	seenDigit, seenDot := false, false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			seenDigit = true
			digits.WriteRune(r)
		case r == '.' && !seenDot:
			seenDot = true
			digits.WriteRune(r)
		case r == ',' || r == '\u00a0' || r == '\u202f' || r == '\u2009' || r == ' ' || r == '\'':
			// Thousands separators, including the thin spaces typesetters use.
			if !seenDigit {
				return bad("has a separator before its first digit")
			}
		default:
			return bad(fmt.Sprintf("has an unexpected character %q; write the number alone, e.g. \"1,234.5\", \"(12.3)\", \"18.2%%\" or \"$4.1 billion\"", r))
		}
	}
	if !seenDigit {
		return bad("has no digits")
	}
	v, perr := strconv.ParseFloat(digits.String(), 64)
	if perr != nil {
		return bad(fmt.Sprintf("is not a number: %v", perr))
	}
	v *= factor
	if neg {
		v = -v
	}
	return v, isPercent, nil
}

func cutPercent(s string) (string, bool) {
	for _, p := range []string{"%", "％"} {
		if rest, ok := strings.CutSuffix(s, p); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return s, false
}

// cutSign accepts ASCII and typographic minus signs; each one flips the sign.
func cutSign(s string, neg bool) (string, bool) {
	for _, m := range []string{"-", "−", "–", "+"} {
		if rest, ok := strings.CutPrefix(s, m); ok {
			if m != "+" {
				neg = !neg
			}
			return strings.TrimSpace(rest), neg
		}
	}
	return s, neg
}

func cutPrefixFold(s, p string) (string, bool) {
	if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
		return s[len(p):], true
	}
	return s, false
}

func cutSuffixFold(s, p string) (string, bool) {
	if len(s) < len(p) || !strings.EqualFold(s[len(s)-len(p):], p) {
		return s, false
	}
	rest := s[:len(s)-len(p)]
	// Latin words must stand apart from letters before them: "4.1bn", not "4.1abn".
	if r := []rune(rest); len(r) > 0 && unicode.IsLetter(r[len(r)-1]) && unicode.IsLetter([]rune(p)[0]) {
		return s, false
	}
	return rest, true
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
