package tables

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

func TestParseNumber(t *testing.T) {
	for _, tc := range []struct {
		in     string
		ok     bool
		v      float64
		format string
	}{
		{"3370.0", true, 3370, "0.0"},
		{"1,234,567", true, 1234567, "#,##0"},
		{"(1,234.5)", true, -1234.5, "#,##0.0;(#,##0.0)"},
		{"−5", true, -5, "0"},
		{"-0.060481", true, -0.060481, "0.000000"},
		{"12.5%", true, 0.125, "0.0%"},
		{"$1,020", true, 1020, `"$"#,##0`},
		{".5", true, 0.5, "0.0"},
		{"350.0 (300.0-500.0)", false, 0, ""},
		{"2019-2020", false, 0, ""},
		{"g/l", false, 0, ""},
		{"(12", false, 0, ""},
		{"1,23", false, 0, ""},
		{"%", false, 0, ""},
		{"", false, 0, ""},
	} {
		n, ok := ParseNumber(tc.in)
		if ok != tc.ok || ok && (n.Value-tc.v > 1e-12 || tc.v-n.Value > 1e-12 || n.Format != tc.format) {
			t.Errorf("ParseNumber(%q) = %+v, %v; want %v, %q, %v", tc.in, n, ok, tc.v, tc.format, tc.ok)
		}
	}
}

func bloodLossTable(t *testing.T) Table {
	return onlyTable(t, page(t, bloodLoss, 2))
}

// TestCSVRoundTrip reads the blood-loss table's CSV back and compares every cell with what Find returned.
func TestCSVRoundTrip(t *testing.T) {
	tb := bloodLossTable(t)
	var b bytes.Buffer
	if err := Write(&b, tb, "csv"); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("read the CSV back: %v", err)
	}
	if len(recs) != len(tb.Rows) {
		t.Fatalf("%d records, want %d rows", len(recs), len(tb.Rows))
	}
	n := 0
	for r, rec := range recs {
		if len(rec) != tb.Columns {
			t.Fatalf("record %d has %d fields, want %d", r, len(rec), tb.Columns)
		}
		for c, got := range rec {
			if want := tb.Rows[r][c].Text; got != want {
				t.Errorf("CSV %d,%d = %q, want %q", r, c, got, want)
			}
			n++
		}
	}
	if n != 53*6 {
		t.Errorf("%d cells compared, want %d", n, 53*6)
	}
}

// TestXLSXRoundTrip reads the blood-loss table's workbook back with excelize: every cell as Find returned it,
// figures as numbers, headers bold, the sheet named by the caption.
func TestXLSXRoundTrip(t *testing.T) {
	tb := bloodLossTable(t)
	var b bytes.Buffer
	if err := Write(&b, tb, "xlsx"); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&b)
	if err != nil {
		t.Fatalf("open the workbook: %v", err)
	}
	defer f.Close()
	if got := f.GetSheetList(); len(got) != 1 || got[0] != "Table 1" {
		t.Fatalf("sheets %q, want [Table 1]", got)
	}
	rows, err := f.GetRows("Table 1")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(tb.Rows) {
		t.Fatalf("%d rows, want %d", len(rows), len(tb.Rows))
	}
	numbers, texts := 0, 0
	for r, row := range tb.Rows {
		for c, cell := range row {
			ref, _ := excelize.CoordinatesToCellName(c+1, r+1)
			got, err := f.GetCellValue("Table 1", ref) // formatted as the sheet shows it
			if err != nil {
				t.Fatal(err)
			}
			if got != cell.Text {
				t.Errorf("%s shows %q, want %q", ref, got, cell.Text)
			}
			typ, _ := f.GetCellType("Table 1", ref)
			n, isNum := ParseNumber(cell.Text)
			switch {
			case cell.Text == "":
			case isNum && r >= tb.HeaderRows:
				raw, _ := f.GetCellValue("Table 1", ref, excelize.Options{RawCellValue: true})
				v, err := strconv.ParseFloat(raw, 64)
				if typ == excelize.CellTypeSharedString || typ == excelize.CellTypeInlineString || err != nil || v != n.Value {
					t.Errorf("%s (%q) holds %q (type %v), want the number %v", ref, cell.Text, raw, typ, n.Value)
				}
				numbers++
			default:
				if typ != excelize.CellTypeSharedString && typ != excelize.CellTypeInlineString {
					t.Errorf("%s (%q) has type %v, want text", ref, cell.Text, typ)
				}
				texts++
			}
		}
	}
	// The counts (no/yes, missing) are numbers; "350.0 (300.0-500.0)" stays text.
	if numbers < 100 || texts < 100 {
		t.Errorf("%d numeric and %d text cells; the table has well over 100 of each", numbers, texts)
	}
	st, _ := f.GetCellStyle("Table 1", "D1")
	if s, err := f.GetStyle(st); err != nil || s.Font == nil || !s.Font.Bold {
		t.Errorf("header cell D1 is not bold: %+v %v", s, err)
	}
	if p, err := f.GetDocProps(); err != nil || p.Title != tb.Caption {
		t.Errorf("workbook title %q, want the caption", p.Title)
	}
}

// TestXLSXMergedHeader: a header over two columns is one merged cell.
func TestXLSXMergedHeader(t *testing.T) {
	tb := onlyTable(t, page(t, programFC, 6))
	var b bytes.Buffer
	if err := WriteXLSX(&b, tb); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&b)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	merged, err := f.GetMergeCells("Table 1")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range merged {
		if m.GetStartAxis() == "C1" && m.GetEndAxis() == "D1" && m.GetCellValue() == "HOVER (2-hop)" {
			found = true
		}
	}
	if !found {
		t.Errorf("no merged C1:D1 HOVER (2-hop) among %d merged ranges", len(merged))
	}
}

func TestJSONAndMarkdown(t *testing.T) {
	tb := bloodLossTable(t)
	var b bytes.Buffer
	if err := Write(&b, tb, "json"); err != nil {
		t.Fatal(err)
	}
	var got JSONTable
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("read the JSON back: %v", err)
	}
	if got.Page != 2 || got.Index != 1 || got.Rows != 52 || got.Columns != 6 || got.CaptionBox == nil {
		t.Fatalf("JSON table %d/%d %d×%d caption box %v", got.Page, got.Index, got.Rows, got.Columns, got.CaptionBox)
	}
	var cell *JSONCell
	for _, r := range got.Body {
		for i, c := range r.Cells {
			if strings.HasPrefix(c.Text, "3370.0") {
				cell = &r.Cells[i]
			}
		}
	}
	if cell == nil || cell.RowLabel != "neonatal weight" || cell.ColumnHeader != "Vaginal delivery (677)" || cell.Value != nil {
		t.Errorf("the 3370.0 cell in JSON: %+v", cell)
	}
	for _, r := range got.Body {
		for _, c := range r.Cells {
			if c.Text == "566" && (c.Value == nil || *c.Value != 566) {
				t.Errorf("cell 566 has value %v", c.Value)
			}
		}
	}

	md := Markdown(tb)
	lines := strings.Split(strings.TrimSpace(md), "\n")
	if lines[0] != tb.Caption || lines[2] != "| Variable |  |  | Vaginal delivery (677) | Planned Cesarean (409) | Unplanned Cesarean (223) |" ||
		lines[3] != "|---|---|---|---|---|---|" || len(lines) != 4+52 {
		t.Errorf("Markdown starts %q, %d lines", lines[:4], len(lines))
	}
	if err := Write(&b, tb, "pdf"); err == nil {
		t.Error("format pdf accepted")
	}
}
