package facets

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"proofglass/backend/kb"
)

// WhereSyntax is the filter syntax every face documents.
const WhereSyntax = `facet=value[,facet=value…] with facets title, org, kind, year, quarter, period, date, from, to; ` +
	`value|value for either; year=2019..2022 for a range (e.g. org=acme,year=2022,kind=10-K)`

// aliases are the names a filter may use for a facet: its own, its defs' aliases, and "period" (year and quarter).
var aliases = func() map[string]string {
	m := map[string]string{"period": "period"}
	for _, d := range defs {
		m[d.name] = d.name
		for _, a := range d.aliases {
			m[a] = d.name
		}
	}
	return m
}()

// clauseStartRE finds where a clause begins: a facet name and "=" at the start or after a comma, so a value may
// hold commas ("org=Acme, Inc.,year=2022").
var clauseStartRE = regexp.MustCompile(`(?i)(?:^|,)\s*(` + aliasAlt() + `)\s*=`)

func aliasAlt() string {
	var names []string
	for a := range aliases {
		names = append(names, a)
	}
	return strings.Join(names, "|")
}

// ParseWhere reads a filter such as "org=acme,year=2022,kind=10-K": every clause must hold; a clause's values
// separated by "|" are alternatives. Organisations and titles match anywhere in the name, ignoring case; kinds,
// years and quarters match exactly (in their canonical spelling: 10k is 10-K); a date matches by prefix
// (date=2022-03). An empty string is no filter.
func ParseWhere(s string) (kb.FacetFilter, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if len(s) > MaxWhereBytes {
		return nil, fmt.Errorf("where: the filter is %d bytes; at most %d", len(s), MaxWhereBytes)
	}
	starts := clauseStartRE.FindAllStringSubmatchIndex(s, -1)
	if len(starts) == 0 || strings.TrimSpace(s[:starts[0][0]]) != "" {
		first, _, _ := strings.Cut(s, ",")
		return nil, fmt.Errorf("where %q: %q is not facet=value (%s)", s, first, WhereSyntax)
	}
	var out kb.FacetFilter
	for i, m := range starts {
		end := len(s)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		name := aliases[strings.ToLower(s[m[2]:m[3]])]
		value := strings.TrimSpace(s[m[1]:end])
		conds, err := clause(name, value)
		if err != nil {
			return nil, fmt.Errorf("where %q: %w", s, err)
		}
		out = append(out, conds...)
	}
	n := 0
	for _, c := range out {
		n += len(c.Values)
	}
	if n > MaxWhereValues {
		return nil, fmt.Errorf("where: the filter names %d values; at most %d (SQLite cannot match more in one search)", n, MaxWhereValues)
	}
	return out, nil
}

// Bounds of a filter: beyond them it is refused with a clear error rather than reaching SQLite, whose expression
// tree overflows at a few hundred alternatives ("Expression tree is too large").
const (
	MaxWhereBytes  = 1024
	MaxWhereValues = 64
)

// clause reads one facet's values.
func clause(name, value string) ([]kb.FacetCond, error) {
	var vals []string
	for _, v := range strings.Split(value, "|") {
		if v = strings.Trim(strings.TrimSpace(v), `"'`); v != "" {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nil, fmt.Errorf("%s: no value", name)
	}
	if d, ok := defOf(name); ok {
		return d.filter(vals)
	}
	switch name {
	case "period":
		if len(vals) != 1 {
			return nil, fmt.Errorf("period %q: give one period (2022, FY2022, 2022Q3, Q3 2022)", value)
		}
		y, q := parsePeriod(vals[0])
		if y == "" {
			return nil, fmt.Errorf("period %q: want 2022, FY2022, 2022Q3 or Q3 2022", vals[0])
		}
		conds := []kb.FacetCond{{Name: Year, Op: kb.FacetEq, Values: []string{y}}}
		if q != "" {
			conds = append(conds, kb.FacetCond{Name: Quarter, Op: kb.FacetEq, Values: []string{strings.ToLower(q)}})
		}
		return conds, nil
	}
	return nil, fmt.Errorf("unknown facet %q (%s)", name, WhereSyntax)
}

// realDate reports whether s is a date of the calendar written YYYY, YYYY-MM or YYYY-MM-DD: "2022-13" and
// "2022-02-31" have the shape but name no day, so they are neither facets nor filters.
func realDate(s string) bool {
	if !datePrefixRE.MatchString(s) {
		return false
	}
	layout := "2006-01-02"
	switch len(s) {
	case 4:
		layout = "2006"
	case 7:
		layout = "2006-01"
	}
	_, err := time.Parse(layout, s)
	return err == nil
}

var (
	datePrefixRE = regexp.MustCompile(`^(?:19|20)\d\d(?:-\d\d(?:-\d\d)?)?$`)
	yearRangeRE  = regexp.MustCompile(`^((?:19|20)\d\d)\s*\.\.\s*((?:19|20)\d\d)$`)
	periodRE     = regexp.MustCompile(`(?i)^(?:fy\s*'?)?((?:19|20)\d\d|\d\d)\s*[-_ ]?\s*(q[1-4])?$|^(q[1-4])\s*[-_ ]?\s*(?:fy\s*'?)?((?:19|20)\d\d|\d\d)$`)
)

func fold(name string, vals []string) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = Fold(name, v)
	}
	return out
}

// yearValues reads years, FY22 and ranges 2019..2022.
func yearValues(vals []string) ([]string, error) {
	var out []string
	for _, v := range vals {
		if m := yearRangeRE.FindStringSubmatch(v); m != nil {
			a, _ := strconv.Atoi(m[1])
			b, _ := strconv.Atoi(m[2])
			if b < a || b-a > 200 {
				return nil, fmt.Errorf("year %q: want an increasing range such as 2019..2022", v)
			}
			for y := a; y <= b; y++ {
				out = append(out, strconv.Itoa(y))
			}
			continue
		}
		y, q := parsePeriod(v)
		if y == "" || q != "" {
			return nil, fmt.Errorf("year %q: want a year such as 2022, FY22 or 2019..2022", v)
		}
		out = append(out, y)
	}
	return out, nil
}

// parsePeriod reads "2022", "FY22", "2022Q3", "Q3 2022" as a year and an optional quarter.
func parsePeriod(s string) (year, quarter string) {
	m := periodRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", ""
	}
	if m[1] != "" {
		return fullYear(m[1]), strings.ToUpper(m[2])
	}
	return fullYear(m[4]), strings.ToUpper(m[3])
}

// normalise checks a value the user gives a facet and returns it as stored: kinds and quarters in their canonical
// spelling, years as four digits, dates as YYYY[-MM[-DD]]; "" clears.
func normalise(name, value string) (string, error) {
	value = strings.Join(strings.Fields(value), " ")
	if value == "" {
		return "", nil
	}
	if len([]rune(value)) > 300 {
		return "", fmt.Errorf("%s: longer than 300 characters", name)
	}
	if d, ok := defOf(name); ok && d.check != nil {
		return d.check(value)
	}
	return value, nil
}
