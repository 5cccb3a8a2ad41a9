package facets

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"proofglass/backend/kb"
)

func TestExtract(t *testing.T) {
	cases := []struct {
		name string
		src  Source
		want Facets
	}{
		{"10-K cover", Source{FileName: "0001234-22-000045.pdf", Pages: []string{
			"UNITED STATES\nSECURITIES AND EXCHANGE COMMISSION\nWashington, D.C. 20549\nFORM 10-K\n" +
				"ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934\n" +
				"For the fiscal year ended June 30, 2022\nINITECH CORPORATION\n(Exact name of registrant as specified in its charter)"}},
			Facets{Title: "INITECH CORPORATION Form 10-K 2022", Org: "INITECH CORPORATION", Kind: "10-K", Year: "2022", Date: "2022-06-30"}},
		{"10-Q by its cover", Source{FileName: "q.pdf", Pages: []string{
			"FORM 10-Q\nQUARTERLY REPORT PURSUANT TO SECTION 13\nFor the quarterly period ended September 30, 2021\n" +
				"Hooli Inc. (Exact name of registrant as specified in its charter)"}},
			Facets{Title: "Hooli Inc. Form 10-Q 2021 Q3", Org: "Hooli Inc.", Kind: "10-Q", Year: "2021", Quarter: "Q3", Date: "2021-09-30"}},
		{"earnings release", Source{FileName: "press.pdf", Pages: []string{
			"PRESS RELEASE\nVandelay Industries Group Reports Third Quarter 2023 Results\nNEW YORK, October 26, 2023"}},
			Facets{Title: "Vandelay Industries Group Reports Third Quarter 2023 Results", Org: "Vandelay Industries Group",
				Kind: "earnings release", Year: "2023", Quarter: "Q3", Date: "2023-10-26"}},
		{"file name only", Source{FileName: "umbrella_annual_report_FY21.pdf", Pages: []string{"Chairman's letter\nWe grew."}},
			Facets{Title: "Chairman's letter", Org: "Umbrella", Kind: "annual report", Year: "2021"}},
		{"photo: the date it was taken, whatever its text says", Source{FileName: "IMG_1054.JPG", Taken: "2020-09-12",
			Pages: []string{"SALE ENDS\nMarch 3, 2019"}}, Facets{Title: "SALE ENDS", Year: "2020", Date: "2020-09-12"}},
		{"paper", Source{FileName: "2305.01234.pdf", Info: map[string]string{"created": "D:20230502120000Z"}, Pages: []string{
			"Attention Is Enough for Tables\nAda Lovelace, Alan Turing\nUniversity of Cambridge\nAbstract\nWe show…\n1 Introduction\n"}},
			Facets{Title: "Attention Is Enough for Tables", Org: "University of Cambridge", Kind: "paper", Year: "2023", Date: "2023-05-02"}},
		{"metadata title and organisation author", Source{FileName: "guide.pdf",
			Info:  map[string]string{"title": "Microsoft Word - Widget User Guide.docx", "author": "Widget Foundation"},
			Pages: []string{"Widget\nUser Guide\nRelease 3.1"}},
			Facets{Title: "Widget", Org: "Widget Foundation", Kind: "manual"}},
		{"nothing to tell", Source{FileName: "scan0001.pdf", Pages: []string{""}}, Facets{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Extract(c.src); got != c.want {
				t.Errorf("\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestRunningLines(t *testing.T) {
	var pages []string
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta"}
	for i := 1; i <= 6; i++ {
		pages = append(pages, fmt.Sprintf("Globex Holdings plc — Annual Report 2022\nHeading %s\nBody text differs.\n"+
			"More %d.\nYet more.\nA table of %s\nPage %d of 6", words[i-1], i*7, words[6-i], i))
	}
	got := RunningLines(pages)
	want := []string{"Globex Holdings plc — Annual Report 2022", "Page 1 of 6"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RunningLines = %q, want %q", got, want)
	}
	if RunningLines(pages[:2]) != nil {
		t.Error("two pages cannot show a running line")
	}
}

func TestParseWhere(t *testing.T) {
	cases := []struct {
		in   string
		want kb.FacetFilter
		err  string
	}{
		{"", nil, ""},
		{"org=acme,year=2022,kind=10-K", kb.FacetFilter{
			{Name: "org", Op: kb.FacetContains, Values: []string{"acme"}},
			{Name: "year", Op: kb.FacetEq, Values: []string{"2022"}},
			{Name: "kind", Op: kb.FacetEq, Values: []string{"10-k"}}}, ""},
		{"company=Acme, Inc.,kind=10k|10q", kb.FacetFilter{
			{Name: "org", Op: kb.FacetContains, Values: []string{"acme, inc."}},
			{Name: "kind", Op: kb.FacetEq, Values: []string{"10-k", "10-q"}}}, ""},
		{"year=2020..2022", kb.FacetFilter{{Name: "year", Op: kb.FacetEq, Values: []string{"2020", "2021", "2022"}}}, ""},
		{"fy=FY22, quarter=third quarter", kb.FacetFilter{
			{Name: "year", Op: kb.FacetEq, Values: []string{"2022"}},
			{Name: "quarter", Op: kb.FacetEq, Values: []string{"q3"}}}, ""},
		{"period=Q3 2022", kb.FacetFilter{
			{Name: "year", Op: kb.FacetEq, Values: []string{"2022"}},
			{Name: "quarter", Op: kb.FacetEq, Values: []string{"q3"}}}, ""},
		{"date=2022-03", kb.FacetFilter{{Name: "date", Op: kb.FacetPrefix, Values: []string{"2022-03"}}}, ""},
		{"colour=red", nil, "not facet=value"},
		{"acme", nil, "not facet=value"},
		{"org=", nil, "no value"},
		{"kind=novel", nil, "unknown"},
		{"year=22nd", nil, "want a year"},
		{"year=2022..2019", nil, "increasing"},
		{"quarter=Q5", nil, "Q1"},
		{"date=March", nil, "YYYY"},
		{"org=acme,colour=red", nil, ""}, // "colour=red" is part of org's value: no clause starts there
	}
	for _, c := range cases {
		got, err := ParseWhere(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseWhere(%q) error = %v, want one saying %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseWhere(%q): %v", c.in, err)
			continue
		}
		if c.want != nil && !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseWhere(%q)\n got %+v\nwant %+v", c.in, got, c.want)
		}
	}
}

func TestInQuestion(t *testing.T) {
	cases := []struct {
		q    string
		want Named
	}{
		{"What was revenue in FY22 according to the 10-K?", Named{Years: []string{"2022"}, Kinds: []string{"10-K"}}},
		{"Q3 2021 earnings release: operating margin", Named{Years: []string{"2021"}, Quarters: []string{"Q3"}, Kinds: []string{"earnings release"}}},
		{"In the 2020 annual report, who chairs the board?", Named{Years: []string{"2020"}, Kinds: []string{"annual report"}}},
		{"third quarter results of 2019", Named{Years: []string{"2019"}, Quarters: []string{"Q3"}}},
		{"How many figures are in this paper?", Named{}},
		{"What is shown on page 1200?", Named{}}, // not a year
	}
	for _, c := range cases {
		if got := InQuestion(c.q); !reflect.DeepEqual(got, c.want) {
			t.Errorf("InQuestion(%q) = %+v, want %+v", c.q, got, c.want)
		}
	}
}

func TestOrgsInQuestion(t *testing.T) {
	orgs := []kb.FacetValue{
		{Value: "ACME ROBOTICS INC.", Documents: []int64{1, 2}},
		{Value: "Globex Holdings plc", Documents: []int64{3}},
		{Value: "University of California", Documents: []int64{4}},
		{Value: "United States Court of Appeals", Documents: []int64{5}},
		{Value: "Association for Computational Linguistics and the Society of Engineers", Documents: []int64{6}},
	}
	cases := map[string][]int64{
		"What was Acme's revenue in 2022?":                        {1, 2},
		"acme revenue":                                            nil, // a lower-case word is not a name
		"globex holdings dividend":                                {3},
		"Which university of california lab wrote it?":            {4},
		"Is the University mentioned?":                            nil,
		"Where in the United States was it filed?":                nil,
		"association computational linguistics society engineers": nil,
	}
	for q, want := range cases {
		if got := OrgsInQuestion(q, orgs); !reflect.DeepEqual(got, want) {
			t.Errorf("OrgsInQuestion(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestDateOf(t *testing.T) {
	cases := []struct{ first, created, want string }{
		{"Report\nTuesday, September 11, 2007 - 12:16 AM", "", "2007-09-11"},
		{"Published 5 March 2019 by the Office", "", "2019-03-05"},
		{"v1.2\n2020/04/10", "D:20200409211328+08'00'", "2020-04-10"},
		{"Spring Meeting\nMarch 2018", "", "2018-03"},
		{"no date here", "D:20221231", "2022-12-31"},
		{"no date here", "", ""},
	}
	for _, c := range cases {
		if got := dateOf(c.first, c.created); got != c.want {
			t.Errorf("dateOf(%q, %q) = %q, want %q", c.first, c.created, got, c.want)
		}
	}
}

func TestNormaliseAndFold(t *testing.T) {
	cases := []struct{ name, in, want, err string }{
		{Kind, "10k", "10-K", ""},
		{Kind, "Slides", "slide deck", ""},
		{Kind, "white paper series", "white paper series", ""}, // the user's own kind
		{Year, "FY'21", "2021", ""},
		{Year, "twenty", "", "want a year"},
		{Quarter, "3rd quarter", "Q3", ""},
		{Quarter, "Q7", "", "Q1"},
		{Date, "2022-03-04", "2022-03-04", ""},
		{Date, "04/03/2022", "", "YYYY"},
		{Org, "  Acme   Corp ", "Acme Corp", ""},
		{Org, "", "", ""},
	}
	for _, c := range cases {
		got, err := normalise(c.name, c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("normalise(%s, %q) error %v, want %q", c.name, c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("normalise(%s, %q) = %q, %v; want %q", c.name, c.in, got, err, c.want)
		}
	}
	if Fold(Kind, "Form 10K") != "10-k" || Fold(Org, " ACME  Inc ") != "acme inc" {
		t.Errorf("Fold: %q %q", Fold(Kind, "Form 10K"), Fold(Org, " ACME  Inc "))
	}
}
