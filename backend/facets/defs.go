package facets

import (
	"fmt"
	"strings"

	"proofglass/backend/kb"
)

// Facet names, as stored, shown and filtered.
const (
	Title   = "title"
	Org     = "org"
	Kind    = "kind"
	Year    = "year"    // the fiscal or calendar year the document covers (else the year of its date)
	Quarter = "quarter" // Q1–Q4 of a quarterly filing or release
	Date    = "date"    // YYYY-MM-DD, or YYYY-MM
	From    = "from"    // an e-mail's sender
	To      = "to"      // an e-mail's recipients
)

// def is what the package knows of one facet, but how Extract reads it from a document: a new facet is a row of
// defs, its field in Facets and its reader in Extract.
type def struct {
	name    string
	aliases []string              // other names a --where filter may use
	field   func(*Facets) *string // where Facets holds it
	// canonical spells a value the one way it is stored and matched ("10k" → "10-K"); nil or "" keeps the value.
	canonical func(string) string
	// filter turns a --where clause's alternatives into conditions, or says why a value cannot match.
	filter func(vals []string) ([]kb.FacetCond, error)
	// check turns a value the user sets into its stored form ("" clears); nil keeps it as given.
	check func(string) (string, error)
}

// defs are the facets, in the order they are shown.
var defs = []def{
	{name: Title, field: func(f *Facets) *string { return &f.Title }, filter: containsFilter(Title)},
	{name: Org, aliases: []string{"organisation", "organization", "company", "issuer", "institution"},
		field: func(f *Facets) *string { return &f.Org }, filter: containsFilter(Org)},
	{name: Kind, aliases: []string{"type"}, field: func(f *Facets) *string { return &f.Kind },
		canonical: CanonicalKind, filter: kindFilter, check: checkKind},
	{name: Year, aliases: []string{"fy"}, field: func(f *Facets) *string { return &f.Year },
		filter: yearFilter, check: checkYear},
	{name: Quarter, field: func(f *Facets) *string { return &f.Quarter }, canonical: canonicalQuarter,
		filter: quarterFilter, check: checkQuarter},
	{name: Date, field: func(f *Facets) *string { return &f.Date }, filter: dateFilter, check: checkDate},
	{name: From, aliases: []string{"sender"}, field: func(f *Facets) *string { return &f.From }, filter: containsFilter(From)},
	{name: To, aliases: []string{"recipient"}, field: func(f *Facets) *string { return &f.To }, filter: containsFilter(To)},
}

// Names lists the facets in the order they are shown.
var Names = func() []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.name
	}
	return out
}()

// byName indexes defs; filled by init, since defs' filters fold through it (a variable's initialiser could not).
var byName = map[string]def{}

func init() {
	for _, d := range defs {
		byName[d.name] = d
	}
}

// defOf is the facet called name.
func defOf(name string) (def, bool) {
	d, ok := byName[name]
	return d, ok
}

// containsFilter matches a name anywhere in the stored value, ignoring case.
func containsFilter(name string) func([]string) ([]kb.FacetCond, error) {
	return func(vals []string) ([]kb.FacetCond, error) {
		return []kb.FacetCond{{Name: name, Op: kb.FacetContains, Values: fold(name, vals)}}, nil
	}
}

func kindFilter(vals []string) ([]kb.FacetCond, error) {
	for _, v := range vals {
		if CanonicalKind(v) == "" {
			return nil, fmt.Errorf("kind %q: unknown (want one of %s)", v, strings.Join(Kinds, ", "))
		}
	}
	return []kb.FacetCond{{Name: Kind, Op: kb.FacetEq, Values: fold(Kind, vals)}}, nil
}

func yearFilter(vals []string) ([]kb.FacetCond, error) {
	years, err := yearValues(vals)
	if err != nil {
		return nil, err
	}
	return []kb.FacetCond{{Name: Year, Op: kb.FacetEq, Values: years}}, nil
}

func quarterFilter(vals []string) ([]kb.FacetCond, error) {
	for _, v := range vals {
		if canonicalQuarter(v) == "" {
			return nil, fmt.Errorf("quarter %q: want Q1, Q2, Q3 or Q4", v)
		}
	}
	return []kb.FacetCond{{Name: Quarter, Op: kb.FacetEq, Values: fold(Quarter, vals)}}, nil
}

func dateFilter(vals []string) ([]kb.FacetCond, error) {
	for _, v := range vals {
		if !realDate(v) {
			return nil, fmt.Errorf("date %q: want a real date as YYYY, YYYY-MM or YYYY-MM-DD", v)
		}
	}
	return []kb.FacetCond{{Name: Date, Op: kb.FacetPrefix, Values: vals}}, nil
}

func checkKind(value string) (string, error) {
	if k := CanonicalKind(value); k != "" {
		return k, nil
	}
	return value, nil // a kind of the user's own
}

func checkYear(value string) (string, error) {
	y, q := parsePeriod(value)
	if y == "" || q != "" {
		return "", fmt.Errorf("year %q: want a year such as 2022", value)
	}
	return y, nil
}

func checkQuarter(value string) (string, error) {
	if q := canonicalQuarter(value); q != "" {
		return q, nil
	}
	return "", fmt.Errorf("quarter %q: want Q1, Q2, Q3 or Q4", value)
}

func checkDate(value string) (string, error) {
	if !realDate(value) {
		return "", fmt.Errorf("date %q: want a real date as YYYY, YYYY-MM or YYYY-MM-DD", value)
	}
	return value, nil
}
