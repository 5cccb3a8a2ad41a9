// Package groundeval measures the grounding check: answers built from pages, each figure once as the page has it
// and once altered, and how often the check marks each kind green, a mismatch, or names the true value.
package groundeval

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"proofglass/backend/agent"
	"proofglass/backend/grounding"
	"proofglass/backend/kb"
)

// Alterations of a true figure. A case with no alteration states the figure as its page has it.
const (
	AlterNone   = ""
	AlterDigit  = "digit"  // one digit changed
	AlterSwap   = "swap"   // two neighbouring digits swapped
	AlterScale  = "scale"  // million for billion, 万 for 亿
	AlterDate   = "date"   // a day, month or year changed
	AlterColumn = "column" // the figure of another column of the same row
	AlterRow    = "row"    // the figure of another row of the same table
	AlterPage   = "page"   // the true figure, citing a page that does not hold it
)

// Doc is a document's pages, with their words and word boxes as ingest stores them.
type Doc struct {
	Name  string
	Pages []kb.Unit
}

// Case is one answer to check: its figure, where it says its evidence is, and the truth.
type Case struct {
	Set   string // the documents it comes from: "filings", "surveys", "zh-reports", or a real file's name
	Form  string // how the figure is written: "table-scaled", "share-label", "date", "prose", …
	Alter string
	// Answer is the answer's text; Claim the figure in it that is judged.
	Answer, Claim string
	// Truth is the figure as the evidence page writes it: what a mismatch should name.
	Truth string
	Doc   int // index in the docs
	Page  int // index of the cited page in the document
	// Region, when set, is the zoomed region on the cited page, 0..1.
	Region *[4]float64
	// Context says what a real page's answer names beside its figure: "words" (a label or a sentence's words) or
	// "figures only" (a row of numbers, code); "" for generated cases, which always name their subject.
	Context string
}

// Result is a case with the check's verdict on its claim.
type Result struct {
	Case
	Status string
	Found  string // the evidence text the check named
	Note   string
}

// Green reports whether the check marked the claim as on its evidence.
func (r Result) Green() bool {
	return r.Status == agent.GroundRegion || r.Status == agent.GroundCitedPage
}

// Caught reports whether the check flagged an altered claim: a mismatch, or for a true figure cited on the wrong
// page, found elsewhere.
func (r Result) Caught() bool {
	if r.Alter == AlterPage {
		return r.Status == agent.GroundElsewhere || r.Status == agent.GroundMismatch
	}
	return r.Status == agent.GroundMismatch
}

// NamedRight reports whether a mismatch named the true figure.
func (r Result) NamedRight() bool {
	return r.Status == agent.GroundMismatch && grounding.Equal(r.Truth, r.Found)
}

// Run checks every case against its documents: the cited page (and region), the rest of the document after it.
func Run(ctx context.Context, docs []Doc, cases []Case) ([]Result, error) {
	pages := make([][]*grounding.Page, len(docs))
	for i, d := range docs {
		for _, u := range d.Pages {
			pages[i] = append(pages[i], grounding.NewPage(u, d.Name))
		}
	}
	out := make([]Result, 0, len(cases))
	for _, c := range cases {
		if c.Doc < 0 || c.Doc >= len(docs) || c.Page < 0 || c.Page >= len(pages[c.Doc]) {
			return nil, fmt.Errorf("case %q: no page %d of document %d", c.Answer, c.Page, c.Doc)
		}
		ps := pages[c.Doc]
		cited := ps[c.Page]
		ev := grounding.Evidence{Cited: []*grounding.Page{cited}}
		if c.Region != nil {
			ev.Regions = []grounding.Area{{Page: cited, Region: c.Region}}
		}
		ev.Rest = func(yield func(*grounding.Page) bool) error {
			for i, p := range ps {
				if i != c.Page && !yield(p) {
					return nil
				}
			}
			return nil
		}
		info, err := grounding.Check(ctx, c.Answer, ev)
		if err != nil {
			return nil, fmt.Errorf("check %q: %w", c.Answer, err)
		}
		r := Result{Case: c, Status: "absent"}
		for _, g := range info.Claims {
			if strings.TrimSpace(g.Text) == c.Claim {
				r.Status, r.Note = g.Status, g.Note
				if g.Found != nil {
					r.Found = g.Found.Text
				}
				break
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// Rates are the counts behind the five rates the check is judged by.
type Rates struct {
	True, TrueGreen, FalseAlarm   int
	Altered, Caught, AlteredGreen int
	Mismatches, NamedRight        int
}

func (r *Rates) add(x Result) {
	if x.Alter == AlterNone {
		r.True++
		if x.Green() {
			r.TrueGreen++
		}
		if x.Status == agent.GroundMismatch {
			r.FalseAlarm++
		}
		return
	}
	r.Altered++
	if x.Caught() {
		r.Caught++
	}
	if x.Green() {
		r.AlteredGreen++
	}
	if x.Status == agent.GroundMismatch {
		r.Mismatches++
		if x.NamedRight() {
			r.NamedRight++
		}
	}
}

func pct(n, of int) string {
	if of == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(n)/float64(of))
}

// Tally is the rates of results, in all and by a key of each result.
func Tally(results []Result, key func(Result) string) (Rates, map[string]*Rates) {
	var all Rates
	by := map[string]*Rates{}
	for _, x := range results {
		all.add(x)
		k := key(x)
		if by[k] == nil {
			by[k] = &Rates{}
		}
		by[k].add(x)
	}
	return all, by
}

// TrueGreenRate and the others are the rates as fractions (0 where nothing was counted).
func (r Rates) TrueGreenRate() float64    { return frac(r.TrueGreen, r.True) }
func (r Rates) FalseAlarmRate() float64   { return frac(r.FalseAlarm, r.True) }
func (r Rates) CaughtRate() float64       { return frac(r.Caught, r.Altered) }
func (r Rates) AlteredGreenRate() float64 { return frac(r.AlteredGreen, r.Altered) }
func (r Rates) NamedRightRate() float64   { return frac(r.NamedRight, r.Mismatches) }

func frac(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// Print writes the rates by set and form, by alteration, and in all, as a Markdown table.
func Print(w io.Writer, results []Result) error {
	all, bySetForm := Tally(results, func(r Result) string { return r.Set + " · " + r.Form })
	_, byAlter := Tally(results, func(r Result) string {
		if r.Alter == AlterNone {
			return "(true)"
		}
		return r.Alter
	})
	var b strings.Builder
	b.WriteString("| set · form | true | true green | false alarm | altered | caught | altered green | true value named |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	row := func(name string, r Rates) {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %d | %s | %s | %s |\n", name, r.True, pct(r.TrueGreen, r.True),
			pct(r.FalseAlarm, r.True), r.Altered, pct(r.Caught, r.Altered), pct(r.AlteredGreen, r.Altered),
			pct(r.NamedRight, r.Mismatches))
	}
	for _, k := range sortedKeys(bySetForm) {
		row(k, *bySetForm[k])
	}
	for _, k := range sortedKeys(byAlter) {
		row("alteration: "+k, *byAlter[k])
	}
	_, byContext := Tally(results, func(r Result) string { return r.Context })
	if len(byContext) > 1 || byContext[""] == nil {
		for _, k := range sortedKeys(byContext) {
			row("answer names: "+k, *byContext[k])
		}
	}
	row("**all**", all)
	_, err := io.WriteString(w, b.String())
	return err
}

func sortedKeys(m map[string]*Rates) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
