package cli

import (
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"proofglass/backend/fixture"
)

// TestTablesListAndExport adds the blood-loss report and lists and exports its Table 1 (page 2) by file name and
// by id, in each format, and names each mistake: no such document, page out of range, no table, index out of
// range, xlsx without --out.
func TestTablesListAndExport(t *testing.T) {
	pdfPath := fixture.Path(t, "pdf/real/blood_loss_report.pdf")
	data := t.TempDir()
	if out, err := run(t, data, "add", "--no-ocr", "--collection", "c", pdfPath); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	out, err := run(t, data, "tables", "list", "blood_loss_report.pdf", "--page", "2")
	if err != nil || !strings.Contains(out, "52×6") || !strings.Contains(out, "Table 1: Distribution") ||
		!strings.Contains(out, "Variable, Vaginal delivery (677)") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	out, err = run(t, data, "tables", "list", "blood_loss_report.pdf", "--json")
	if err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	var first tableSummary // page 2's
	pages := map[int]bool{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var s tableSummary
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatalf("list --json: %v\n%s", err, out)
		}
		pages[s.Page] = true
		if s.Page == 2 {
			first = s
		}
	}
	if len(pages) < 3 || first.Index != 1 || first.Rows != 52 || first.Columns != 6 {
		t.Errorf("list --json of every page: page 2's %+v, pages %v", first, pages)
	}
	id := first.DocumentID

	out, err = run(t, data, "tables", "export", "blood_loss_report.pdf", "--page", "2")
	if err != nil {
		t.Fatalf("export csv: %v\n%s", err, out)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 53 || recs[0][3] != "Vaginal delivery (677)" {
		t.Fatalf("export csv: %v, %d records\n%s", err, len(recs), out)
	}
	found := false
	for _, r := range recs {
		found = found || r[0] == "neonatal weight" && r[3] == "3370.0 (3090.0-3650.0)"
	}
	if !found {
		t.Error("export csv: no row neonatal weight with 3370.0 (3090.0-3650.0) under Vaginal delivery")
	}
	for _, format := range []string{"json", "md"} {
		out, err = run(t, data, "tables", "export", idArg(id), "--page", "2", "--table", "1", "--format", format)
		if err != nil || !strings.Contains(out, "3370.0 (3090.0-3650.0)") {
			t.Errorf("export %s: %v\n%.300s", format, err, out)
		}
	}
	xlsx := filepath.Join(t.TempDir(), "t.xlsx")
	if out, err = run(t, data, "tables", "export", idArg(id), "--page", "2", "--format", "xlsx", "--out", xlsx); err != nil {
		t.Fatalf("export xlsx: %v\n%s", err, out)
	}
	f, err := excelize.OpenFile(xlsx)
	if err != nil {
		t.Fatalf("open %s: %v", xlsx, err)
	}
	defer f.Close()
	if v, _ := f.GetCellValue("Table 1", "D1"); v != "Vaginal delivery (677)" {
		t.Errorf("xlsx D1 %q", v)
	}
	// The workbook holds the CSV's table cell by cell.
	sameCells(t, "the PDF page's xlsx and csv", sheetRows(t, f, "Table 1"), recs)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "nope.pdf", "--page", "2"}, "nope.pdf"},
		{[]string{"export", "999", "--page", "2"}, "document 999"},
		{[]string{"export", idArg(id), "--page", "40"}, "has 19 pages, not page 40"},
		{[]string{"export", idArg(id), "--page", "0"}, "numbered from 1"},
		{[]string{"export", idArg(id), "--page", "3"}, "no table found on the page"},
		{[]string{"export", idArg(id), "--page", "2", "--table", "2"}, "has 1 table, not table 2"},
		{[]string{"export", idArg(id)}, "name either --page"},
		{[]string{"export", idArg(id), "--page", "2", "--sheet", "x"}, "name either --page"},
		{[]string{"export", idArg(id), "--sheet", "x"}, "is not a spreadsheet"},
		{[]string{"export", idArg(id), "--page", "2", "--format", "xlsx"}, "--out"},
		{[]string{"export", idArg(id), "--page", "2", "--format", "pdf"}, "want one of"},
		{[]string{"list", idArg(id), "--page", "-1"}, "numbered from 1"},
	} {
		if out, err := run(t, data, append([]string{"tables"}, tc.args...)...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("tables %q: %v, want an error naming %q\n%s", tc.args, err, tc.want, out)
		}
	}
}

func idArg(id int64) string { return strconv.FormatInt(id, 10) }

// TestSpreadsheetTablesAreItsCells adds a workbook whose third sheet runs over several pages and exports its tables:
// each page's table is the sheet's rows that page shows under the sheet's header, cell for cell as the workbook has
// them (read here with excelize, apart from Proofglass's reader), and --sheet exports the whole sheet as CSV and XLSX.
func TestSpreadsheetTablesAreItsCells(t *testing.T) {
	src := filepath.Join("..", "ingest", "testdata", "formats", "workbook.xlsx")
	wb, err := excelize.OpenFile(src)
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	want := sheetRows(t, wb, "Ledger")
	if len(want) < 100 {
		t.Fatalf("the ledger has %d rows", len(want))
	}
	data := t.TempDir()
	if out, err := run(t, data, "add", "--no-ocr", "--collection", "c", src); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	out, err := run(t, data, "tables", "list", "workbook.xlsx", "--json")
	if err != nil {
		t.Fatalf("list: %v\n%s", err, out)
	}
	var ledgerPages, ledgerTables []int
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var s tableSummary
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatalf("list --json: %v\n%s", err, out)
		}
		if s.Caption == "Ledger" {
			ledgerPages, ledgerTables = append(ledgerPages, s.Page), append(ledgerTables, s.Index)
		}
	}
	if len(ledgerPages) < 2 {
		t.Fatalf("the ledger on pages %v, want a series of pages\n%s", ledgerPages, out)
	}
	got := [][]string{want[0]}
	for i, p := range ledgerPages {
		out, err := run(t, data, "tables", "export", "workbook.xlsx", "--page", idArg(int64(p)), "--table", idArg(int64(ledgerTables[i])))
		if err != nil {
			t.Fatalf("export page %d: %v\n%s", p, err, out)
		}
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(recs) < 2 {
			t.Fatalf("export page %d: %v\n%s", p, err, out)
		}
		sameCells(t, "page "+idArg(int64(p))+"'s header", recs[:1], want[:1])
		got = append(got, recs[1:]...)
	}
	sameCells(t, "the ledger's pages", got, want)

	out, err = run(t, data, "tables", "export", "workbook.xlsx", "--sheet", "Ledger")
	if err != nil {
		t.Fatalf("export --sheet: %v\n%s", err, out)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	sameCells(t, "--sheet Ledger as CSV", recs, want)
	xlsx := filepath.Join(t.TempDir(), "ledger.xlsx")
	if out, err := run(t, data, "tables", "export", "workbook.xlsx", "--sheet", "Ledger", "--format", "xlsx", "--out", xlsx); err != nil {
		t.Fatalf("export --sheet xlsx: %v\n%s", err, out)
	}
	f, err := excelize.OpenFile(xlsx)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sameCells(t, "--sheet Ledger as XLSX", sheetRows(t, f, "Ledger"), want)
	if _, err := run(t, data, "tables", "export", "workbook.xlsx", "--sheet", "Nope"); err == nil ||
		!strings.Contains(err.Error(), `"Stock", "Sales", "Ledger"`) {
		t.Errorf("an unknown sheet: %v, want the sheets named", err)
	}
}

// sheetRows reads a sheet's rows, trailing empty cells trimmed.
func sheetRows(t *testing.T, f *excelize.File, sheet string) [][]string {
	t.Helper()
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatalf("sheet %q: %v (sheets %v)", sheet, err, f.GetSheetList())
	}
	return trimmedRows(rows)
}

func trimmedRows(rows [][]string) [][]string {
	var out [][]string
	for _, r := range rows {
		for len(r) > 0 && r[len(r)-1] == "" {
			r = r[:len(r)-1]
		}
		if len(r) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// sameCells fails at the first cell where got and want differ (trailing empty cells aside).
func sameCells(t *testing.T, what string, got, want [][]string) {
	t.Helper()
	got, want = trimmedRows(got), trimmedRows(want)
	for r := range max(len(got), len(want)) {
		if r >= len(got) || r >= len(want) {
			t.Errorf("%s: %d rows, want %d", what, len(got), len(want))
			return
		}
		for c := range max(len(got[r]), len(want[r])) {
			var g, w string
			if c < len(got[r]) {
				g = got[r][c]
			}
			if c < len(want[r]) {
				w = want[r][c]
			}
			if g != w {
				t.Errorf("%s: row %d column %d is %q, want %q", what, r+1, c+1, g, w)
				return
			}
		}
	}
}
