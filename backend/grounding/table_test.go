package grounding

import (
	"context"
	"strings"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/kb"
)

// tablePage lays rows out as a PDF's text layer gives a table: each row a line, each cell at its column's x, words
// boxed by their letters.
func tablePage(rows ...[]string) kb.Unit {
	u := kb.Unit{ID: 1, DocumentID: 1, Ordinal: 1, Width: 612, Height: 792}
	xs := []float64{60, 330, 420, 510}
	var lines []string
	for r, cells := range rows {
		y := 60 + float64(r)*14
		for c, cell := range cells {
			x := xs[min(c, len(xs)-1)]
			for _, w := range strings.Fields(cell) {
				wd := float64(len([]rune(w))) * 5.5
				u.Words = append(u.Words, kb.Word{Text: w, X0: x, Y0: y, X1: x + wd, Y1: y + 10})
				x += wd + 3
			}
		}
		lines = append(lines, strings.Join(cells, " "))
	}
	u.Text = strings.Join(lines, "\n")
	return u
}

var incomeStatement = tablePage(
	[]string{"Consolidated Statements of Operations"},
	[]string{"(in millions, except per share data)"},
	[]string{"Year ended December 31,", "2023", "2022", "2021"},
	[]string{"Net sales", "14,694", "13,870", "12,001"},
	[]string{"Operating income", "2,310", "2,122", "1,960"},
	[]string{"Net income", "1,084", "1,020", "948"},
)

var zhIncomeStatement = tablePage(
	[]string{"合并利润表"},
	[]string{"单位：万元"},
	[]string{"项目", "2023年度", "2022年度"},
	[]string{"营业收入", "123,456", "110,020"},
	[]string{"净利润", "12,000", "10,500"},
)

var survey = tablePage(
	[]string{"Q1. How satisfied are you with the service?"},
	[]string{"Very satisfied", "(51 %)"},
	[]string{"Somewhat satisfied", "(32 %)"},
	[]string{"Dissatisfied", "(17 %)"},
)

// A table's cells are read with their row, their column's year and the table's scale.
func TestTables(t *testing.T) {
	cases := []struct {
		name          string
		page          kb.Unit
		answer, claim string
		status, found string // found: the evidence text named ("" for none)
	}{
		{"a cell in the table's scale", incomeStatement, "In 2023 net income was $1,084 million.", "$1,084 million", agent.GroundCitedPage, "1,084 (in millions)"},
		{"a cell rounded at the answer's scale", incomeStatement, "Net sales for 2023 were $14.7 billion.", "$14.7 billion", agent.GroundCitedPage, "14,694 (in millions)"},
		{"the table's figure written bare", incomeStatement, "Net income in 2023: 1,084.", "1,084", agent.GroundCitedPage, "1,084 (in millions)"},
		{"the wrong scale word", incomeStatement, "In 2023 net income was $1,084 billion.", "$1,084 billion", agent.GroundMismatch, "1,084 (in millions)"},
		{"a million read as a thousand", incomeStatement, "In 2023 net income was $1,084 thousand.", "$1,084 thousand", agent.GroundMismatch, "1,084 (in millions)"},
		{"another column's year", incomeStatement, "In 2023 net income was $1,020 million.", "$1,020 million", agent.GroundMismatch, "1,084 (in millions)"},
		{"another row's cell", incomeStatement, "In 2023 operating income was $1,084 million.", "$1,084 million", agent.GroundMismatch, "2,310 (in millions)"},
		{"a digit altered", incomeStatement, "In 2022 net sales were $13,970 million.", "$13,970 million", agent.GroundMismatch, "13,870 (in millions)"},
		{"digits swapped far apart", incomeStatement, "In 2023 net income was $1,048 million.", "$1,048 million", agent.GroundMismatch, "1,084 (in millions)"},
		{"万元 written as 亿元", zhIncomeStatement, "2023年度公司净利润为1.2亿元。", "1.2亿元", agent.GroundCitedPage, "12,000 单位：万元"},
		{"万元 as in the table", zhIncomeStatement, "2023年度公司营业收入为123,456万元。", "123,456万元", agent.GroundCitedPage, "123,456 单位：万元"},
		{"亿元 for 万元", zhIncomeStatement, "2023年度公司营业收入为123,456亿元。", "123,456亿元", agent.GroundMismatch, "123,456 单位：万元"},
		{"another year's column in Chinese", zhIncomeStatement, "2023年度公司净利润为10,500万元。", "10,500万元", agent.GroundMismatch, "12,000 单位：万元"},
		{"an option's share", survey, "51 % of respondents were very satisfied with the service.", "51 %", agent.GroundCitedPage, "(51 %)"},
		// "(32 %)" is on the page, in another row: not green, and the row the answer names has 51 %.
		{"another option's share", survey, "32 % of respondents were very satisfied with the service.", "32 %", agent.GroundMismatch, "(51 %)"},
		{"a share's digits swapped", survey, "(15 %) of respondents were very satisfied.", "(15 %)", agent.GroundMismatch, "(51 %)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewPage(c.page, "report.pdf")
			info, err := Check(context.Background(), c.answer, Evidence{Cited: []*Page{p}})
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range info.Claims {
				if strings.TrimSpace(g.Text) != c.claim {
					continue
				}
				found := ""
				if g.Found != nil {
					found = g.Found.Text
				}
				if g.Status != c.status || found != c.found {
					t.Errorf("%q: %s (%s), found %q; want %s, found %q", c.claim, g.Status, g.Note, found, c.status, c.found)
				}
				return
			}
			t.Fatalf("no claim %q among %+v", c.claim, info.Claims)
		})
	}
}

// An equal value with nothing of the answer's context near it is not green, and the check says why.
func TestEqualValueOutOfContext(t *testing.T) {
	p := NewPage(tablePage(
		[]string{"Net income", "1,084"},
		[]string{"Employees", "412"},
	), "report.pdf")
	info, err := Check(context.Background(), "The company opened 412 new stores.", Evidence{Cited: []*Page{p}})
	if err != nil {
		t.Fatal(err)
	}
	g := info.Claims[0]
	if g.Status != agent.GroundNotFound || !strings.Contains(g.Note, "not next to what the answer says") {
		t.Errorf("%q: %s (%s), want not_found: not next to what the answer says", g.Text, g.Status, g.Note)
	}
}

// Dates and years in the forms filings write them.
func TestDateForms(t *testing.T) {
	page := "for the fiscal year ended December 31, 2015. Revenue peaked in Q3 2015 and fell after."
	for answer, want := range map[string]string{
		"The fiscal year ended Dec. 31, 2015.":         agent.GroundCitedPage,
		"The fiscal year ended 31 December 2015.":      agent.GroundCitedPage,
		"The fiscal year ended 2015-12-31.":            agent.GroundCitedPage,
		"财年截至2015年12月31日。":                             agent.GroundCitedPage,
		"FY2015 is the fiscal year covered.":           agent.GroundCitedPage,
		"The fiscal year ended Dec. 30, 2015.":         agent.GroundMismatch,
		"Revenue peaked in Q3 2015.":                   agent.GroundCitedPage,
		"Revenue peaked in the third quarter of 2015.": agent.GroundCitedPage,
		"收入在2015年第三季度达到高峰。":                            agent.GroundCitedPage,
		"Revenue peaked in Q2 2015.":                   agent.GroundMismatch,
		"The fiscal year ended 2016-12-31.":            agent.GroundMismatch,
	} {
		info := citedPage(t, answer, page)
		if len(info.Claims) == 0 {
			t.Errorf("%q: no claim", answer)
			continue
		}
		if got := info.Claims[0].Status; got != want {
			t.Errorf("%q: %s (%s), want %s", answer, got, info.Claims[0].Note, want)
		}
	}
}

// A mismatch in a table names the cell it read: its value with the table's scale, its row and its column.
func TestMismatchNamesTheCell(t *testing.T) {
	for answer, want := range map[string]string{
		"In 2023 net income was $1,020 million.": "$1,020 million — the cited page says 1,084 (in millions), row Net income, column 2023 (page 1)",
		"2023年度公司净利润为10,500万元。":                  "10,500万元 — the cited page says 12,000 单位：万元, row 净利润, column 2023年度 (page 1)",
	} {
		page := incomeStatement
		if !strings.HasPrefix(answer, "In") {
			page = zhIncomeStatement
		}
		info, err := Check(context.Background(), answer, Evidence{Cited: []*Page{NewPage(page, "report.pdf")}})
		if err != nil {
			t.Fatal(err)
		}
		g := info.Claims[len(info.Claims)-1]
		if g.Status != agent.GroundMismatch || g.Note != want {
			t.Errorf("%q: %s %q, want mismatch %q", answer, g.Status, g.Note, want)
		}
	}
}

// The cited table's row and column outweigh a like-named figure on another page: an altered figure that happens to
// stand elsewhere is still a mismatch of the cited cell; a true figure cited on the wrong page is found elsewhere.
func TestCitedContextBeforeElsewhere(t *testing.T) {
	cover := NewPage(kb.Unit{ID: 2, DocumentID: 1, Ordinal: 2, Text: "Our income grew; the new plant cost $1,090 million to build."}, "report.pdf")
	bu := tablePage([]string{"Balance Sheets"}, []string{"(in millions)"}, []string{"", "2023", "2022"},
		[]string{"Total assets", "20,400", "19,800"})
	bu.ID, bu.Ordinal = 3, 3
	balance := NewPage(bu, "report.pdf")
	cases := []struct {
		answer string
		cited  *Page
		status string
	}{
		{"In 2023 net income was $1,090 million.", NewPage(incomeStatement, "report.pdf"), agent.GroundMismatch},
		{"In 2023 net income was $1,084 million.", balance, agent.GroundElsewhere},
	}
	for _, c := range cases {
		statement := NewPage(incomeStatement, "report.pdf")
		rest := []*Page{cover, statement}
		info, err := Check(context.Background(), c.answer, Evidence{Cited: []*Page{c.cited}, Rest: func(yield func(*Page) bool) error {
			for _, p := range rest {
				if p.UnitID != c.cited.UnitID || p == cover {
					if !yield(p) {
						return nil
					}
				}
			}
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		g := info.Claims[len(info.Claims)-1]
		if g.Status != c.status {
			t.Errorf("%q: %s (%s), want %s", c.answer, g.Status, g.Note, c.status)
		}
	}
}

// A time of day is no figure: "12:16" neither claims 12 nor grounds "Page 7 of 12".
func TestTimesAreNotFigures(t *testing.T) {
	var got []string
	for _, c := range Extract("The hearing began at 12:16 and lasted 45 minutes, until 09:30:15.") {
		got = append(got, c.Text)
	}
	if len(got) != 1 || got[0] != "45" {
		t.Errorf("claims %q, want only \"45\"", got)
	}
	if s := statusOf(t, citedPage(t, "It is page 7 of 12.", "Tuesday, September 11, 2007 - 12:16 AM Page 7 of 15"), "12"); s == agent.GroundCitedPage {
		t.Errorf("\"12\" is green against a page whose 12 is a time")
	}
}
