package tables

import (
	"regexp"
	"strconv"
	"strings"
)

// Number is a cell's text read as a number: "3,370.0", "(1,234)" (negative), "−5", "12.5%", "$1,020".
type Number struct {
	Value float64
	// Format is the spreadsheet number format that shows Value as the cell wrote it ("#,##0.0", "0.0%",
	// "#,##0;(#,##0)").
	Format string
}

var numberRE = regexp.MustCompile(`^([(]?)([-−–+]?)([$€£¥]?)(\d{1,3}(?:,\d{3})+|\d+)?(?:\.(\d+))?(%?)([)]?)$`)

// ParseNumber reads s as a number when it is one, and nothing else: a cell of a figure and its interval
// ("350.0 (300.0-500.0)"), a year range or a word is none.
func ParseNumber(s string) (Number, bool) {
	s = strings.TrimSpace(s)
	m := numberRE.FindStringSubmatch(s)
	if m == nil || m[4] == "" && m[5] == "" || (m[1] == "(") != (m[7] == ")") {
		return Number{}, false
	}
	paren, sign, cur, whole, frac, pct := m[1] == "(", m[2], m[3], m[4], m[5], m[6] == "%"
	if paren && sign != "" {
		return Number{}, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(whole, ",", "")+"."+frac+"0", 64)
	if err != nil {
		return Number{}, false
	}
	if paren || sign == "-" || sign == "−" || sign == "–" {
		v = -v
	}
	f := "0"
	if strings.Contains(whole, ",") {
		f = "#,##0"
	}
	if frac != "" {
		f += "." + strings.Repeat("0", len(frac))
	}
	if pct {
		v /= 100
		f += "%"
	}
	if cur != "" {
		f = `"` + cur + `"` + f
	}
	if paren {
		f = f + ";(" + f + ")"
	}
	return Number{Value: v, Format: f}, true
}
