package facets_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"proofglass/backend/facets"
	"proofglass/backend/fixture"
	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/search"
)

// writePDF writes a text PDF of Letter pages, each a list of lines in Helvetica, with an info dictionary.
func writePDF(t testing.TB, path string, info map[string]string, pages [][]string) {
	t.Helper()
	esc := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace
	var objs []string
	// 1 catalog, 2 pages, 3 font, 4 info, then page/content pairs.
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 5+2*i)
	}
	objs = append(objs, "<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	var in strings.Builder
	in.WriteString("<<")
	for k, v := range info {
		fmt.Fprintf(&in, " /%s (%s)", k, esc(v))
	}
	in.WriteString(" >>")
	objs = append(objs, in.String())
	for i, lines := range pages {
		var c bytes.Buffer
		y := 740.0
		for _, l := range lines {
			fmt.Fprintf(&c, "BT /F1 11 Tf 60 %.1f Td (%s) Tj ET\n", y, esc(l))
			y -= 16
		}
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 6+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", c.Len(), c.String()))
	}
	if err := os.WriteFile(path, fixture.PDF(objs, "/Info 4 0 R "), 0o600); err != nil {
		t.Fatal(err)
	}
}

// company is a made-up issuer whose filings say the same things every year, with that year's figures.
type company struct {
	name, short string
	revenue     map[int]int // fiscal year → revenue in millions
}

// body is the pages every filing of a company shares, with the year's figures and the prior year's for
// comparison, under a running header: what makes one year's filing hard to tell from the next by its words.
func (c company) body(form string, year int) [][]string {
	header := c.name + " | Form " + form
	rev, prior := c.revenue[year], c.revenue[year-1]
	return [][]string{
		{header, "Item 1. Business", "We design, manufacture and sell industrial robots and service contracts.",
			"Our customers are manufacturers of cars, electronics and packaged food.", fmt.Sprintf("Page %d", 2)},
		{header, "Item 7. Management's Discussion and Analysis of Financial Condition",
			fmt.Sprintf("Total revenue for fiscal %d was $%d million, compared with $%d million in fiscal %d.", year, rev, prior, year-1),
			"Revenue grew with service contracts and robot shipments to new customers.",
			"Gross margin improved on lower component costs.", fmt.Sprintf("Page %d", 3)},
		{header, "Item 8. Financial Statements and Supplementary Data",
			"Consolidated statements of operations, balance sheets and cash flows follow.",
			"Research and development expense rose with the new robot arm programme.", fmt.Sprintf("Page %d", 4)},
		{header, "Item 1A. Risk Factors", "Supply of semiconductors and the cost of steel may affect our margins.",
			"We depend on a small number of large customers.", fmt.Sprintf("Page %d", 5)},
	}
}

func (c company) tenK(year int) [][]string {
	cover := []string{"UNITED STATES", "SECURITIES AND EXCHANGE COMMISSION", "Washington, D.C. 20549", "FORM 10-K",
		"ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
		fmt.Sprintf("For the fiscal year ended December 31, %d", year), "Commission file number 001-12345",
		strings.ToUpper(c.name), "(Exact name of registrant as specified in its charter)", "Delaware"}
	return append([][]string{cover}, c.body("10-K", year)...)
}

func (c company) tenQ(year, quarter int) [][]string {
	month := []string{"", "March 31", "June 30", "September 30"}[quarter]
	cover := []string{"UNITED STATES", "SECURITIES AND EXCHANGE COMMISSION", "Washington, D.C. 20549", "FORM 10-Q",
		"QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
		fmt.Sprintf("For the quarterly period ended %s, %d", month, year), strings.ToUpper(c.name),
		"(Exact name of registrant as specified in its charter)"}
	return append([][]string{cover}, c.body("10-Q", year)...)
}

func (c company) annual(year int) [][]string {
	cover := []string{c.name, fmt.Sprintf("Annual Report %d", year), "Building the robots that build the world",
		fmt.Sprintf("Letter to shareholders, March %d", year+1)}
	return append([][]string{cover}, c.body("Annual Report", year)...)
}

var (
	acme   = company{"Acme Robotics Inc.", "acme", map[int]int{2019: 410, 2020: 452, 2021: 517, 2022: 603, 2023: 655}}
	globex = company{"Globex Holdings plc", "globex", map[int]int{2019: 120, 2020: 131, 2021: 149, 2022: 170, 2023: 188}}
)

// filing is one generated file with the facets it should get.
type filing struct {
	file  string
	info  map[string]string
	pages [][]string
	want  facets.Facets
}

// filings are two made-up companies' 10-Ks, 10-Qs and annual reports across several years, named the way people
// name their files.
func filings() []filing {
	var out []filing
	for _, y := range []int{2020, 2021, 2022, 2023} {
		out = append(out, filing{
			file: fmt.Sprintf("ACME_10K_%d.pdf", y), info: map[string]string{"Producer": "EDGAR filer", "CreationDate": fmt.Sprintf("D:%d0301090000Z", y+1)},
			pages: acme.tenK(y),
			want:  facets.Facets{Org: "ACME ROBOTICS INC.", Kind: "10-K", Year: fmt.Sprint(y), Title: fmt.Sprintf("ACME ROBOTICS INC. Form 10-K %d", y)},
		})
	}
	for _, y := range []int{2021, 2022} {
		out = append(out, filing{
			file:  fmt.Sprintf("acme-annual-report-%d-final.pdf", y),
			pages: acme.annual(y),
			want:  facets.Facets{Org: "Acme Robotics Inc.", Kind: "annual report", Year: fmt.Sprint(y), Title: "Acme Robotics Inc."},
		})
	}
	for _, y := range []int{2021, 2022, 2023} {
		out = append(out, filing{
			file:  fmt.Sprintf("globex %d annual report.pdf", y),
			info:  map[string]string{"Title": fmt.Sprintf("Globex Holdings plc Annual Report %d", y), "Author": "Globex Holdings plc"},
			pages: globex.annual(y),
			want: facets.Facets{Org: "Globex Holdings plc", Kind: "annual report", Year: fmt.Sprint(y),
				Title: fmt.Sprintf("Globex Holdings plc Annual Report %d", y)},
		})
	}
	for _, q := range []int{1, 3} {
		out = append(out, filing{
			file:  fmt.Sprintf("Globex_10-Q_Q%d_2022.pdf", q),
			pages: globex.tenQ(2022, q),
			want: facets.Facets{Org: "GLOBEX HOLDINGS PLC", Kind: "10-Q", Year: "2022", Quarter: fmt.Sprintf("Q%d", q),
				Title: fmt.Sprintf("GLOBEX HOLDINGS PLC Form 10-Q 2022 Q%d", q)},
		})
	}
	return out
}

// ingestFilings writes the filings and ingests them into a fresh knowledge base.
func ingestFilings(t *testing.T) (*kb.KB, map[string]int64) {
	k, ids, _ := ingestFilingsWith(t)
	return k, ids
}

func ingestFilingsWith(t *testing.T) (*kb.KB, map[string]int64, *ingest.Ingester) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	var paths []string
	for _, f := range filings() {
		p := filepath.Join(dir, f.file)
		writePDF(t, p, f.info, f.pages)
		paths = append(paths, p)
	}
	k, err := kb.Open(ctx, filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	in := ingest.New(k, nil, ingest.Options{NoOCR: true, Workers: 1})
	t.Cleanup(func() { in.Close() })
	res, err := in.Add(ctx, "filings", paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	for _, r := range res {
		if r.Error != "" {
			t.Fatalf("%s: %s", r.Document.Name, r.Error)
		}
		ids[r.Document.Name] = r.Document.ID
	}
	return k, ids, in
}

func TestGeneratedFilingsFacets(t *testing.T) {
	ctx := context.Background()
	k, ids := ingestFilings(t)
	for _, f := range filings() {
		got, _, err := facets.Of(ctx, k, ids[f.file])
		if err != nil {
			t.Fatal(err)
		}
		got.Date = "" // checked below for one
		if got != f.want {
			t.Errorf("%s:\n got %+v\nwant %+v", f.file, got, f.want)
		}
	}
	// A cover's own date comes first: a 10-K's period end, an annual report's letter.
	for file, want := range map[string]string{"ACME_10K_2021.pdf": "2021-12-31", "globex 2022 annual report.pdf": "2023-03"} {
		if got, _, _ := facets.Of(ctx, k, ids[file]); got.Date != want {
			t.Errorf("date of %s: %q, want %q", file, got.Date, want)
		}
	}
}

func TestFilingRanksFirstForItsYear(t *testing.T) {
	ctx := context.Background()
	k, _ := ingestFilings(t)
	s := search.New(k, search.Options{})
	off := search.DefaultStructure
	off.Facet = 0
	cases := []struct {
		question string
		want     string
	}{
		{"What was Acme's total revenue in its 2021 10-K?", "ACME_10K_2021.pdf"},
		{"What was Acme's total revenue in its 2022 10-K?", "ACME_10K_2022.pdf"},
		{"Acme 10-K 2020: total revenue for the fiscal year", "ACME_10K_2020.pdf"},
		{"Acme total revenue fiscal 2023 annual report", "ACME_10K_2023.pdf"},
		{"In Acme Robotics' 2022 annual report, how much did revenue grow?", "acme-annual-report-2022-final.pdf"},
		{"What did Globex report as total revenue for 2021?", "globex 2021 annual report.pdf"},
		{"Globex revenue in the Q3 2022 10-Q", "Globex_10-Q_Q3_2022.pdf"},
	}
	better := 0
	for _, c := range cases {
		res, err := s.Search(ctx, search.Query{Text: c.question, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) < 3 || res.Hits[0].Doc != c.want || res.Hits[1].Doc != c.want || res.Hits[2].Doc != c.want {
			t.Errorf("%q: first hits %v, want three pages of %s", c.question, docsOf(res.Hits), c.want)
		}
		before, err := s.Search(ctx, search.Query{Text: c.question, K: 5, Structure: &off})
		if err != nil {
			t.Fatal(err)
		}
		if len(before.Hits) == 0 || before.Hits[0].Doc != c.want {
			better++
		}
		t.Logf("%q: without facets %v, with %v", c.question, docsOf(before.Hits), docsOf(res.Hits))
	}
	if better == 0 {
		t.Errorf("the facet signal changed no first hit: these cases do not test it")
	}
}

func TestQuestionNamingNoFacetRanksAsBefore(t *testing.T) {
	ctx := context.Background()
	k, _ := ingestFilings(t)
	s := search.New(k, search.Options{})
	off := search.DefaultStructure
	off.Facet = 0
	for _, q := range []string{"total revenue compared with the prior fiscal year", "risk factors semiconductors steel",
		"who are the customers of the robots", "research and development expense robot arm"} {
		with, err := s.Search(ctx, search.Query{Text: q, K: 20})
		if err != nil {
			t.Fatal(err)
		}
		without, err := s.Search(ctx, search.Query{Text: q, K: 20, Structure: &off})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(unitsOf(with.Hits)) != fmt.Sprint(unitsOf(without.Hits)) || len(with.Hits) == 0 {
			t.Errorf("%q ranks differently with facets:\n%v\n%v", q, unitsOf(with.Hits), unitsOf(without.Hits))
		}
	}
}

func TestWhereFilterAndUserEditSurviveReingest(t *testing.T) {
	ctx := context.Background()
	k, ids, in := ingestFilingsWith(t)
	s := search.New(k, search.Options{})
	where := func(w string) []string {
		f, err := facets.ParseWhere(w)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Search(ctx, search.Query{Text: "total revenue", K: 50, Where: f})
		if err != nil {
			t.Fatal(err)
		}
		return uniqueDocs(res.Hits)
	}
	if got := where("org=acme,year=2022,kind=10-K"); fmt.Sprint(got) != "[ACME_10K_2022.pdf]" {
		t.Errorf("org=acme,year=2022,kind=10-K: %v", got)
	}
	if got := where("org=globex,period=2022Q3"); fmt.Sprint(got) != "[Globex_10-Q_Q3_2022.pdf]" {
		t.Errorf("org=globex,period=2022Q3: %v", got)
	}
	if got := where("kind=10k,year=2020..2021"); len(got) != 2 {
		t.Errorf("kind=10k,year=2020..2021: %v", got)
	}
	if got := where("org=initech"); len(got) != 0 {
		t.Errorf("org=initech: %v", got)
	}

	// The user corrects a facet; re-extraction (what every re-ingest runs) keeps it.
	id := ids["acme-annual-report-2021-final.pdf"]
	if err := facets.SetUser(ctx, k, id, facets.Org, "Acme Robotics (EMEA) Ltd."); err != nil {
		t.Fatal(err)
	}
	if err := facets.SetUser(ctx, k, id, facets.Year, "FY20"); err != nil {
		t.Fatal(err)
	}
	// A real re-ingest: the document failed (or was interrupted) and is retried from its stored original. Its
	// extracted facets are dropped first, so the kind below shows that the retry extracted them again.
	if err := k.Facets.ReplaceExtractedFacets(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	if err := k.Docs.SetStatus(ctx, id, kb.StatusFailed, "interrupted"); err != nil {
		t.Fatal(err)
	}
	if r, err := in.Retry(ctx, id, "", nil); err != nil || r.Error != "" || r.Document.Status != kb.StatusReady {
		t.Fatalf("retry: %+v %v", r, err)
	}
	f, user, err := facets.Of(ctx, k, id)
	if err != nil {
		t.Fatal(err)
	}
	if f.Org != "Acme Robotics (EMEA) Ltd." || f.Year != "2020" || f.Kind != "annual report" || !user["org"] || user["kind"] {
		t.Errorf("after re-extraction: %+v user %v", f, user)
	}
	if got := where("org=emea"); fmt.Sprint(got) != "[acme-annual-report-2021-final.pdf]" {
		t.Errorf("org=emea after the edit: %v", got)
	}
	if err := facets.SetUser(ctx, k, id, facets.Quarter, ""); err != nil {
		t.Fatal(err)
	}
	if f, user, _ := facets.Of(ctx, k, id); f.Quarter != "" || !user[facets.Quarter] {
		t.Errorf("cleared quarter: %+v %v", f, user)
	}
	if err := facets.Reset(ctx, k, id, facets.Org); err != nil {
		t.Fatal(err)
	}
	if f, _, _ := facets.Of(ctx, k, id); f.Org != "Acme Robotics Inc." {
		t.Errorf("reset org: %q", f.Org)
	}
	if err := facets.SetUser(ctx, k, id, "colour", "red"); err == nil {
		t.Error("an unknown facet was accepted")
	}
}

func docsOf(hits []search.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s#%d", h.Doc, h.Page))
	}
	return out
}

func unitsOf(hits []search.Hit) []int64 {
	var out []int64
	for _, h := range hits {
		out = append(out, h.UnitID)
	}
	return out
}

func uniqueDocs(hits []search.Hit) []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range hits {
		if !seen[h.Doc] {
			seen[h.Doc] = true
			out = append(out, h.Doc)
		}
	}
	return out
}
