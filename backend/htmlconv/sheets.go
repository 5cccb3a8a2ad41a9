package htmlconv

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/xuri/excelize/v2"
)

// Sheet is one sheet of a spreadsheet (a CSV or TSV file is one): its name and its rows' cells as the spreadsheet
// shows them (numbers in their format), rows with no text left out and each row's trailing empty cells trimmed. It
// is both what a spreadsheet's pages show and what its tables export, so an exported cell is the source's own.
type Sheet struct {
	Name string     `json:"name"`
	Rows [][]string `json:"rows"`
}

// Bounds of a workbook's package as excelize unpacks it.
const (
	maxUnzipped    = 256 << 20
	maxUnzippedXML = 64 << 20
)

// Workbook reads the sheets of an Excel workbook (XLSX), in the workbook's order, hidden ones included.
func Workbook(r io.Reader) ([]Sheet, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read Excel workbook: %w", err)
	}
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("Excel workbook of more than %d MiB: %w", MaxBytes>>20, ErrTooLarge)
	}
	f, err := excelize.OpenReader(bytes.NewReader(b), excelize.Options{UnzipSizeLimit: maxUnzipped, UnzipXMLSizeLimit: maxUnzippedXML})
	if err != nil {
		return nil, fmt.Errorf("damaged Excel workbook: %w", err)
	}
	defer f.Close()
	var out []Sheet
	cells := 0
	for _, name := range f.GetSheetList() {
		rows, err := f.Rows(name)
		if err != nil {
			return nil, fmt.Errorf("damaged Excel workbook: sheet %q: %w", name, err)
		}
		s := Sheet{Name: name}
		for rows.Next() {
			row, err := rows.Columns()
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("damaged Excel workbook: sheet %q: %w", name, err)
			}
			if row = trimRow(row); row == nil {
				continue
			}
			if cells += len(row); cells > MaxCells || len(s.Rows) >= MaxRows {
				rows.Close()
				return nil, fmt.Errorf("Excel workbook of more than %d rows or %d cells: %w", MaxRows, MaxCells, ErrTooLarge)
			}
			s.Rows = append(s.Rows, row)
		}
		err = rows.Error()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("damaged Excel workbook: sheet %q: %w", name, err)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("damaged Excel workbook: it has no sheets")
	}
	return out, nil
}

// OpenDocumentSheets reads the sheets of an OpenDocument spreadsheet (ODS), as OpenDocument lays them out.
func OpenDocumentSheets(r io.Reader) ([]Sheet, error) {
	_, sheets, err := openDocument(r)
	if err != nil {
		return nil, err
	}
	if len(sheets) == 0 {
		return nil, fmt.Errorf("OpenDocument spreadsheet without a sheet")
	}
	return sheets, nil
}

// TableSheet reads a CSV (comma ',') or TSV (comma '\t') file as one sheet, named "".
func TableSheet(r io.Reader, comma rune) (Sheet, error) {
	what := "CSV file"
	if comma == '\t' {
		what = "TSV file"
	}
	src, err := readAll(r, what)
	if err != nil {
		return Sheet{}, err
	}
	cr := csv.NewReader(bytes.NewReader(src))
	cr.Comma = comma
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true // a stray quote inside a field is text, as spreadsheets write it
	var s Sheet
	cells := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Sheet{}, fmt.Errorf("%s: %w", what, err)
		}
		cells += len(rec)
		if len(s.Rows) >= MaxRows || cells > MaxCells {
			return Sheet{}, fmt.Errorf("%s of more than %d rows or %d cells: %w", what, MaxRows, MaxCells, ErrTooLarge)
		}
		if rec = trimRow(rec); rec != nil {
			s.Rows = append(s.Rows, rec)
		}
	}
	if len(s.Rows) == 0 {
		return Sheet{}, fmt.Errorf("%s has no rows", what)
	}
	return s, nil
}

// trimRow drops a row's trailing empty cells; a row with no text is nil.
func trimRow(row []string) []string {
	for i := range row {
		row[i] = strings.TrimSpace(row[i])
	}
	for len(row) > 0 && row[len(row)-1] == "" {
		row = row[:len(row)-1]
	}
	if len(row) == 0 {
		return nil
	}
	return row
}

// SheetsPage lays sheets out as XHTML: each sheet a titled table whose first row is its header and each of whose
// rows is one line of cells, the sheets one after another. (MuPDF 1.28 lays page-break-before out as nothing, so a
// sheet does not start a page of its own: tables.FromSheets finds where each row went.)
func SheetsPage(sheets []Sheet) []byte {
	var body strings.Builder
	for _, s := range sheets {
		if s.Name != "" {
			body.WriteString("<h2>" + html.EscapeString(s.Name) + "</h2>\n")
		}
		body.WriteString("<table>\n")
		for r, row := range s.Rows {
			tag := "td"
			if r == 0 {
				tag = "th"
			}
			body.WriteString("<tr>")
			for _, c := range row {
				body.WriteString("<" + tag + ">" + html.EscapeString(c) + "</" + tag + ">")
			}
			body.WriteString("</tr>\n")
		}
		body.WriteString("</table>\n")
	}
	return page("", body.String())
}

// WorkbookPage renders an Excel workbook (XLSX) as XHTML (SheetsPage). MuPDF's own reading of a workbook runs every
// sheet into one flow of text, where a sheet's cells no longer stand in rows.
func WorkbookPage(r io.Reader) ([]byte, error) {
	sheets, err := Workbook(r)
	if err != nil {
		return nil, err
	}
	return SheetsPage(sheets), nil
}
