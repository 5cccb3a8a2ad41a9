package desktop

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// The viewer's tables: a workbook page's tables with their boxes inside the page and their cells as tab-separated
// text, and a table saved as CSV and XLSX at the path the save dialog returned, read back cell for cell; a
// cancelled dialog writes nothing and bad arguments are refused.
func TestPageTablesCopyAndSave(t *testing.T) {
	d, ui := start(t)
	src, err := filepath.Abs(filepath.Join("..", "ingest", "testdata", "formats", "workbook.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	done := addAndWait(t, d, ui, "sheets", src)
	ts, err := d.Library.PageTables(done.DocumentID, 1)
	if err != nil || len(ts) < 2 {
		t.Fatalf("page 1 tables: %v, %+v", err, ts)
	}
	first := ts[0]
	if first.Caption != "Stock" || first.Columns != 2 || first.Rows != 2 {
		t.Errorf("first table %+v, want the Stock sheet, 2 rows × 2 columns", first)
	}
	if b := first.Box; !(0 <= b[0] && b[0] < b[2] && b[2] <= 1 && 0 <= b[1] && b[1] < b[3] && b[3] <= 1) {
		t.Errorf("box %v not inside the page", b)
	}
	if want := "Item\tCount\nwombatxlsx\t14\nbolts\t250\n"; first.TSV != want {
		t.Errorf("tsv %q, want %q", first.TSV, want)
	}

	dir := t.TempDir()
	for _, format := range []string{"csv", "xlsx"} {
		ui.mu.Lock()
		ui.save = filepath.Join(dir, "stock."+format)
		ui.mu.Unlock()
		path, err := d.Library.SaveTable(done.DocumentID, 1, 1, format, "Save table")
		if err != nil || path != filepath.Join(dir, "stock."+format) {
			t.Fatalf("save %s: %q %v", format, path, err)
		}
		var rows [][]string
		if format == "csv" {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if rows, err = csv.NewReader(strings.NewReader(string(b))).ReadAll(); err != nil {
				t.Fatal(err)
			}
		} else {
			f, err := excelize.OpenFile(path)
			if err != nil {
				t.Fatal(err)
			}
			rows, err = f.GetRows(f.GetSheetList()[0])
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
		if got := strings.Join(flatten(rows), "|"); got != "Item|Count|wombatxlsx|14|bolts|250" {
			t.Errorf("%s read back: %q", format, got)
		}
	}
	if names := ui.names; len(names) == 0 || names[len(names)-1] != "workbook-p1-table1.xlsx" {
		t.Errorf("the dialog was offered %q", names)
	}
	ui.mu.Lock()
	ui.save = ""
	ui.mu.Unlock()
	if path, err := d.Library.SaveTable(done.DocumentID, 1, 1, "csv", ""); path != "" || err != nil {
		t.Errorf("a cancelled dialog: %q %v", path, err)
	}
	for name, err := range map[string]error{
		"format":    errOf(d.Library.SaveTable(done.DocumentID, 1, 1, "exe", "")),
		"no table":  errOf(d.Library.SaveTable(done.DocumentID, 1, 9, "csv", "")),
		"page 0":    errOf(d.Library.PageTables(done.DocumentID, 0)),
		"bad id":    errOf(d.Library.PageTables(-1, 1)),
		"past last": errOf(d.Library.PageTables(done.DocumentID, 99)),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func errOf[T any](_ T, err error) error { return err }

func flatten(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}
