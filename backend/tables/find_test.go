package tables

import (
	"os"
	"strings"
	"testing"

	"proofglass/backend/ingest/ingesttest"
	"proofglass/backend/kb"
	"proofglass/backend/pdf"
)

// TestMain lets the test binary serve as the pdf worker, as the proofglass binary does.
func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

// page is page n of a shared PDF with its word boxes.
func page(t *testing.T, rel string, n int) kb.Unit { return ingesttest.Page(t, rel, n) }

const (
	bloodLoss = "pdf/real/blood_loss_report.pdf"
	hubble    = "pdf/real/hsaur3-Ch_multiple_linear_regression.pdf"
	programFC = "../eval/dev/docs/2023.acl-long.386.pdf"
)

// cellAt finds the body row whose label is label and returns its row index, failing when there is none.
func rowLabelled(t *testing.T, tb Table, label string) int {
	t.Helper()
	for r := tb.HeaderRows; r < len(tb.Rows); r++ {
		if tb.Rows[r][tb.LabelColumn].Text == label {
			return r
		}
	}
	t.Fatalf("no row labelled %q", label)
	return -1
}

func columnHeaded(t *testing.T, tb Table, header string) int {
	t.Helper()
	for c, h := range tb.ColumnHeaders() {
		if h == header {
			return c
		}
	}
	t.Fatalf("no column headed %q in %q", header, tb.ColumnHeaders())
	return -1
}

func onlyTable(t *testing.T, u kb.Unit) Table {
	t.Helper()
	ts := Find(u)
	if len(ts) != 1 {
		t.Fatalf("page %d: %d tables, want 1", u.Ordinal, len(ts))
	}
	return ts[0]
}

func TestFindBloodLossTable(t *testing.T) {
	u := page(t, bloodLoss, 2)
	tb := onlyTable(t, u)
	if tb.Index != 1 || tb.Page != 2 || tb.DocumentID != u.DocumentID {
		t.Errorf("address %d/%d/%d, want %d/2/1", tb.DocumentID, tb.Page, tb.Index, u.DocumentID)
	}
	if want := "Table 1: Distribution of feto-maternal and perinatal characteristics, stratified by mode of delivery."; tb.Caption != want {
		t.Errorf("caption %q, want %q", tb.Caption, want)
	}
	if tb.CaptionBox.Y0 < tb.Box.Y1 {
		t.Errorf("caption box %v is not below the table %v", tb.CaptionBox, tb.Box)
	}
	wantHeader := []string{"Variable", "", "", "Vaginal delivery (677)", "Planned Cesarean (409)", "Unplanned Cesarean (223)"}
	if tb.HeaderRows != 1 || tb.Columns != len(wantHeader) || tb.LabelColumn != 0 {
		t.Fatalf("%d header rows, %d columns, label column %d; want 1, %d, 0", tb.HeaderRows, tb.Columns, tb.LabelColumn, len(wantHeader))
	}
	for c, want := range wantHeader {
		if got := tb.Rows[0][c].Text; got != want {
			t.Errorf("header cell %d %q, want %q", c, got, want)
		}
	}
	// 26 variables; all but six take two lines (no/yes, missing/Med (IQR)).
	if got := len(tb.Body()); got != 52 {
		t.Errorf("%d body rows, want 52", got)
	}
	r := rowLabelled(t, tb, "neonatal weight")
	c := columnHeaded(t, tb, "Vaginal delivery (677)")
	cell := tb.Rows[r][c]
	if cell.Text != "3370.0 (3090.0-3650.0)" {
		t.Errorf("neonatal weight × Vaginal delivery = %q, want 3370.0 (3090.0-3650.0)", cell.Text)
	}
	if got := []string{tb.Rows[r][1].Text, tb.Rows[r][2].Text}; got[0] != "g/l" || got[1] != "Med (IQR)" {
		t.Errorf("neonatal weight's unit and statistic %q, want g/l, Med (IQR)", got)
	}
	if cell.Box.X0 < tb.Box.X0 || cell.Box.X1 > tb.Box.X1 || cell.Box.Y0 < tb.Box.Y0 || cell.Box.Y1 > tb.Box.Y1 || cell.Box.Empty() {
		t.Errorf("cell box %v outside the table's %v", cell.Box, tb.Box)
	}
	// A continuation line takes the label of the row it continues.
	r = rowLabelled(t, tb, "prepartum F. I")
	if tb.Rows[r+1][2].Text != "Med (IQR)" || tb.RowLabel(r+1) != "prepartum F. I" || tb.Rows[r+1][3].Text != "4.6 (3.9-5.1)" {
		t.Errorf("row under prepartum F. I: %q labelled %q", cellTexts(tb.Rows[r+1]), tb.RowLabel(r+1))
	}

	if got, ok := TableAt(u, cell.Box); !ok || got.Index != 1 {
		t.Errorf("TableAt(the 3370.0 cell) = %d, %v; want table 1", got.Index, ok)
	}
	if _, ok := TableAt(u, Box{0, 0, 40, 40}); ok {
		t.Error("TableAt(a corner of the page) found a table")
	}
}

func TestFindRealTables(t *testing.T) {
	cases := []struct {
		name, doc      string
		page           int
		caption        string
		rows, cols, nh int
		headers        []string
		row, col, cell string // a body cell by its row label and column header
	}{
		{"hubble", hubble, 3, "Table 6.1: hubble data. Distance and velocity for 24 galaxies.", 13, 6, 1,
			[]string{"galaxy", "velocity", "distance", "galaxy", "velocity", "distance"}, "NGC1326A", "velocity", "1794"},
		{"clouds", hubble, 4, "Table 6.2: clouds data. Cloud seeding experiments in Florida – see text for explanations of the " +
			"variables. Note that the clouds data set has slightly different variable names.", 25, 7, 1,
			[]string{"seeding", "time", "sne", "cloudc", "prewet", "EM", "rain"}, "", "", ""},
		// Two header rows, the first merged over pairs of columns.
		{"programfc", programFC, 6, "", 14, 10, 2,
			[]string{"Few-shot learning models", "Few-shot learning models", "HOVER (2-hop) Gold", "HOVER (2-hop) Open",
				"HOVER (3-hop) Gold", "HOVER (3-hop) Open", "HOVER (4-hop) Gold", "HOVER (4-hop) Open",
				"FEVEROUS-S Gold", "FEVEROUS-S Open"},
			"DeBERTaV3-NLI (He et al., 2021)", "HOVER (4-hop) Gold", "60.49"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tb := onlyTable(t, page(t, tc.doc, tc.page))
			if tc.caption != "" && tb.Caption != tc.caption {
				t.Errorf("caption %q, want %q", tb.Caption, tc.caption)
			}
			if len(tb.Rows) != tc.rows || tb.Columns != tc.cols || tb.HeaderRows != tc.nh {
				t.Errorf("%d×%d with %d header rows, want %d×%d with %d", len(tb.Rows), tb.Columns, tb.HeaderRows, tc.rows, tc.cols, tc.nh)
			}
			if got := tb.ColumnHeaders(); strings.Join(got, "|") != strings.Join(tc.headers, "|") {
				t.Errorf("headers %q, want %q", got, tc.headers)
			}
			for _, row := range tb.Rows {
				if len(row) != tb.Columns {
					t.Fatalf("a row of %d cells in a table of %d columns", len(row), tb.Columns)
				}
			}
			if tc.row != "" {
				if got := tb.Rows[rowLabelled(t, tb, tc.row)][columnHeaded(t, tb, tc.col)].Text; got != tc.cell {
					t.Errorf("%s × %s = %q, want %q", tc.row, tc.col, got, tc.cell)
				}
			}
		})
	}
}

// TestFindMergedHeader: a header over two columns is one cell spanning both, and heads both.
func TestFindMergedHeader(t *testing.T) {
	tb := onlyTable(t, page(t, programFC, 6))
	top := tb.Rows[0]
	if top[2].Text != "HOVER (2-hop)" || top[2].Span != 2 || !top[3].Merged || top[3].Text != "HOVER (2-hop)" || top[4].Merged {
		t.Errorf("top header row %+v", top[2:5])
	}
	if tb.LabelColumn != 1 {
		t.Errorf("label column %d, want 1 (the models; the group numerals I–IV stand left of it)", tb.LabelColumn)
	}
	if !strings.HasPrefix(tb.Caption, "Table 1: Macro-F1 scores of PROGRAMFC") {
		t.Errorf("caption %q", tb.Caption)
	}
	// The two columns of running text under the caption are no part of the table.
	if tb.Box.Y1 > tb.CaptionBox.Y0 {
		t.Errorf("table %v runs into its caption %v", tb.Box, tb.CaptionBox)
	}
}

// TestFindRunningText: pages of prose, in one column and in two, hold no table.
func TestFindRunningText(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		page int
	}{{programFC, 3}, {programFC, 10}, {hubble, 1}, {hubble, 2}, {bloodLoss, 3}} {
		if ts := Find(page(t, tc.doc, tc.page)); len(ts) != 0 {
			t.Errorf("%s page %d: %d tables found in running text, the first %q", tc.doc, tc.page, len(ts), ts[0].ColumnHeaders())
		}
	}
}
