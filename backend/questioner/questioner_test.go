package questioner

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"proofglass/backend/ingest/ingesttest"
	"proofglass/backend/kb"
	"proofglass/backend/pdf"
)

// TestMain lets the test binary serve as the pdf worker, as the proofglass binary does.
func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

// ingestUnits reads a shared PDF through Proofglass's own ingest (text layer, no OCR) and returns its pages with
// their word boxes.
func ingestUnits(t *testing.T, rel string) []kb.Unit { return ingesttest.Units(t, rel) }

func pagesOf(units []kb.Unit, name string, facets map[string]string) []Page {
	out := make([]Page, len(units))
	for i, u := range units {
		out[i] = Page{Unit: u, DocumentName: name, Facets: facets}
	}
	return out
}

var reportFacets = map[string]string{"org": "Kantonsspital", "year": "2020", "kind": "paper"}

func reportPages(t *testing.T) []Page {
	return pagesOf(ingestUnits(t, "pdf/real/blood_loss_report.pdf"), "blood_loss_report.pdf", reportFacets)
}

// checkPlacement fails for a question whose unit is not one of the pages or whose document and page numbers are
// not its unit's, and for a page with more than perPage questions.
func checkPlacement(t *testing.T, pages []Page, qs []Question, perPage int) {
	t.Helper()
	units := map[int64]kb.Unit{}
	for _, p := range pages {
		units[p.Unit.ID] = p.Unit
	}
	count := map[int64]int{}
	for _, q := range qs {
		u, ok := units[q.UnitID]
		if !ok {
			t.Errorf("question %q names unit %d, not one of the pages", q.Text, q.UnitID)
			continue
		}
		if q.DocumentID != u.DocumentID || q.Page != u.Ordinal {
			t.Errorf("question %q: document %d page %d, its unit is document %d page %d", q.Text, q.DocumentID,
				q.Page, u.DocumentID, u.Ordinal)
		}
		count[q.UnitID]++
	}
	for id, n := range count {
		if n > perPage {
			t.Errorf("unit %d has %d questions, at most %d wanted", id, n, perPage)
		}
	}
}

func TestReportQuestions(t *testing.T) {
	pages := reportPages(t)
	qs := Generate(pages, Options{Seed: 7})
	if len(qs) < 15 {
		t.Fatalf("%d questions from %d pages, want at least 15", len(qs), len(pages))
	}
	checkPlacement(t, pages, qs, 2)
	for i := range 15 {
		q := qs[i*len(qs)/15]
		t.Logf("p%-2d %-10s %s", q.Page, q.Kind, q.Text)
	}
	// The report has tables, figure captions, headings and prose: every seed asks about each.
	for seed := uint64(1); seed <= 5; seed++ {
		kinds := map[string]int{}
		for _, q := range Generate(pages, Options{Seed: seed}) {
			kinds[q.Kind]++
		}
		for _, k := range []string{kindTableCell, kindCaption, kindHeading, kindSentence} {
			if kinds[k] == 0 {
				t.Errorf("seed %d: no %s question (%v)", seed, k, kinds)
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	pages := reportPages(t)
	a, b := Generate(pages, Options{Seed: 11}), Generate(pages, Options{Seed: 11})
	if !reflect.DeepEqual(a, b) {
		t.Errorf("seed 11 gave different questions on two runs")
	}
	if c := Generate(pages, Options{Seed: 12}); reflect.DeepEqual(a, c) {
		t.Errorf("seeds 11 and 12 gave the same questions")
	}
}

var figureTokenRE = regexp.MustCompile(`[0-9][0-9.,]*[0-9]|[0-9]`)

// figureTokens are the numbers a text writes, each whole ("350.0", "1,100").
func figureTokens(s string) map[string]bool {
	out := map[string]bool{}
	for _, f := range figureTokenRE.FindAllString(s, -1) {
		out[f] = true
	}
	return out
}

// A table-cell question never holds the cell it asks for, and the cell is on its page.
func TestTableCellsHideTheirValue(t *testing.T) {
	pages := reportPages(t)
	text := map[int64]string{}
	for _, p := range pages {
		text[p.Unit.ID] = p.Unit.Text
	}
	cells := 0
	for seed := uint64(1); seed <= 5; seed++ {
		for _, g := range generate(pages, Options{Seed: seed, PerPage: 6}) {
			if g.Kind != kindTableCell {
				continue
			}
			cells++
			if g.value == "" || !strings.Contains(text[g.UnitID], strings.Fields(g.value)[0]) {
				t.Errorf("%q: its value %q is not on page %d", g.Text, g.value, g.Page)
			}
			asked := figureTokens(g.Text)
			for f := range figureTokens(g.value) {
				if asked[f] {
					t.Errorf("%q holds %s of the value %q it asks for", g.Text, f, g.value)
				}
			}
		}
	}
	if cells < 10 {
		t.Errorf("%d table-cell questions over five seeds, want at least 10", cells)
	}
}

var spaceRE = regexp.MustCompile(`\s+`)

func normalised(s string) string {
	return strings.ToLower(spaceRE.ReplaceAllString(s, " "))
}

// Sentence and caption questions are paraphrases, not copies of the page.
func TestParaphrased(t *testing.T) {
	pages := reportPages(t)
	text := map[int64]string{}
	for _, p := range pages {
		text[p.Unit.ID] = normalised(p.Unit.Text)
	}
	total, copied := 0, 0
	for _, q := range Generate(pages, Options{Seed: 5, PerPage: 4}) {
		if q.Kind != kindSentence && q.Kind != kindCaption {
			continue
		}
		total++
		if strings.Contains(text[q.UnitID], strings.TrimSuffix(normalised(q.Text), "?")) {
			copied++
		}
	}
	if total == 0 || 2*copied > total {
		t.Errorf("%d of %d sentence and caption questions copy their page, want at most half", copied, total)
	}
}

// About half the questions name the document by its facets.
func TestFacetsNamedSometimes(t *testing.T) {
	named, plain := 0, 0
	for _, q := range Generate(reportPages(t), Options{Seed: 3}) {
		if strings.Contains(q.Text, "Kantonsspital") {
			named++
		} else {
			plain++
		}
	}
	if named == 0 || plain == 0 || named > 3*plain || plain > 3*named {
		t.Errorf("%d questions name the document's facets and %d do not, want about half each", named, plain)
	}
}

// A limit samples pages through the whole document, not its first pages.
func TestMaxSpreadsOverPages(t *testing.T) {
	pages := reportPages(t)
	qs := Generate(pages, Options{Seed: 9, Max: 6})
	if len(qs) == 0 || len(qs) > 6 {
		t.Fatalf("%d questions with Max 6", len(qs))
	}
	checkPlacement(t, pages, qs, 1)
	if last := qs[len(qs)-1].Page; last <= len(pages)/2 {
		t.Errorf("with Max 6 the last question is on page %d of %d: the first pages were taken", last, len(pages))
	}
}

func hasHanRune(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
}

func TestChineseQuestions(t *testing.T) {
	pages := pagesOf(ingestUnits(t, "pdf/cjk/zhnumber.pdf"), "zhnumber.pdf", map[string]string{"year": "2022", "kind": "manual"})
	qs := Generate(pages, Options{Seed: 2})
	if len(qs) < 5 {
		t.Fatalf("%d questions from %d Chinese pages, want at least 5", len(qs), len(pages))
	}
	checkPlacement(t, pages, qs, 2)
	for i, q := range qs {
		if !hasHanRune(q.Text) {
			t.Errorf("question %q on a Chinese page has no Han character", q.Text)
		}
		if i < 8 {
			t.Logf("p%-2d %-10s %s", q.Page, q.Kind, q.Text)
		}
	}
}

// incomeUnit is a page with a small income statement, laid out as word boxes, and a sentence below it.
func incomeUnit() kb.Unit {
	var ws []kb.Word
	put := func(y float64, x float64, words ...string) {
		for _, w := range words {
			x1 := x + 6*float64(len(w))
			ws = append(ws, kb.Word{Text: w, X0: x, Y0: y, X1: x1, Y1: y + 10})
			x = x1 + 3
		}
	}
	put(100, 72, "Table", "4:", "Consolidated", "income", "statement", "of", "Northwind")
	put(130, 300, "2023")
	put(130, 400, "2022")
	put(145, 72, "Revenue")
	put(145, 296, "1,250")
	put(145, 396, "1,100")
	put(160, 72, "Net", "income")
	put(160, 302, "312")
	put(160, 402, "287")
	put(175, 72, "Total", "assets")
	put(175, 296, "4,800")
	put(175, 396, "4,650")
	put(210, 72, "Northwind", "expanded", "its", "warehouse", "network", "across", "northern", "regions", "during",
		"the", "year.")
	var lines []string
	for _, l := range pageLines(ws) {
		lines = append(lines, l.text())
	}
	return kb.Unit{ID: 41, DocumentID: 4, Ordinal: 3, Width: 595, Height: 842, Text: strings.Join(lines, "\n\n"),
		Words: ws}
}

func TestIncomeTable(t *testing.T) {
	page := Page{Unit: incomeUnit(), DocumentName: "northwind-2023.pdf",
		Facets: map[string]string{"org": "Northwind", "year": "2023", "kind": "annual report"}}
	for seed := uint64(1); seed <= 6; seed++ {
		found := false
		for _, g := range generate([]Page{page}, Options{Seed: seed, PerPage: 20}) {
			low := strings.ToLower(g.Text)
			if g.Kind != kindTableCell || !strings.Contains(low, "net income") {
				continue
			}
			found = true
			if !strings.Contains(low, "2023") && !strings.Contains(low, "2022") {
				t.Errorf("%q names no year", g.Text)
			}
			if strings.Contains(g.Text, "312") || strings.Contains(g.Text, "287") {
				t.Errorf("%q gives away the net income", g.Text)
			}
			if g.value != "312" && g.value != "287" {
				t.Errorf("%q asks for %q, not a net income", g.Text, g.value)
			}
			if seed == 1 {
				t.Logf("%s [%s]", g.Text, g.value)
			}
		}
		if !found {
			t.Errorf("seed %d: no table-cell question about the net income", seed)
		}
	}
}

// A page of a few words gets no question; a page without word boxes is asked about from its text.
func TestShortAndTextOnlyPages(t *testing.T) {
	short := Page{Unit: kb.Unit{ID: 1, Ordinal: 1, Text: "Annual report 2023. Northwind Ltd."}}
	if qs := Generate([]Page{short}, Options{Seed: 1}); len(qs) != 0 {
		t.Errorf("a page of five words got %v", qs)
	}
	u := incomeUnit()
	u.Words = nil
	u.Text += "\n\nThe board approved a dividend of 45 cents per share after reviewing the regional expansion results."
	qs := Generate([]Page{{Unit: u}}, Options{Seed: 1, PerPage: 5})
	if len(qs) == 0 {
		t.Fatal("no question from a page with text but no word boxes")
	}
	for _, q := range qs {
		if q.Kind == kindTableCell {
			t.Errorf("table-cell question %q from a page without word boxes", q.Text)
		}
	}
}

// A Chinese income table gets Chinese table-cell questions.
func TestChineseTable(t *testing.T) {
	var ws []kb.Word
	// As the text layer gives Chinese: a word for each Han character, a word for a run of digits.
	put := func(y, x float64, words ...string) {
		for _, w := range words {
			for _, part := range regexp.MustCompile(`\p{Han}|[^\p{Han}]+`).FindAllString(w, -1) {
				wd := 10 * float64(utf8.RuneCountInString(part))
				ws = append(ws, kb.Word{Text: part, X0: x, Y0: y, X1: x + wd, Y1: y + 10})
				x += wd + 0.5
			}
			x += 3
		}
	}
	put(100, 72, "表", "3：合并利润表")
	put(130, 300, "2023年")
	put(130, 400, "2022年")
	put(145, 72, "营业收入")
	put(145, 296, "1250")
	put(145, 396, "1100")
	put(160, 72, "净利润")
	put(160, 302, "312")
	put(160, 402, "287")
	var lines []string
	for _, l := range pageLines(ws) {
		lines = append(lines, l.text())
	}
	u := kb.Unit{ID: 7, DocumentID: 2, Ordinal: 1, Text: strings.Join(lines, "\n\n"), Words: ws}
	found := 0
	for _, q := range Generate([]Page{{Unit: u}}, Options{Seed: 4, PerPage: 10}) {
		t.Logf("%s %s", q.Kind, q.Text)
		if q.Kind != kindTableCell {
			continue
		}
		if !hasHanRune(q.Text) || !strings.Contains(q.Text, "年") {
			t.Errorf("%q is not a Chinese question about a year's column", q.Text)
		}
		if strings.Contains(q.Text, "净利润") {
			found++
		}
	}
	if found == 0 {
		t.Error("no table-cell question about 净利润")
	}
}

// Near neighbours are words of the same meaning where GloVe has one, never an opposite.
func TestNeighbours(t *testing.T) {
	if got := near.of("methods"); got != "techniques" {
		t.Errorf("neighbour of methods = %q, want techniques", got)
	}
	for w, not := range map[string]string{"increase": "decrease", "larger": "small", "higher": "lower"} {
		if got := near.of(w); got == not {
			t.Errorf("neighbour of %s = its opposite %s", w, got)
		}
	}
	if got := near.of("patients"); got == "patient" || got == "doctors" {
		t.Errorf("neighbour of patients = %q", got)
	}
}
