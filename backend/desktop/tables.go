package desktop

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"path/filepath"
	"strings"

	"proofglass/backend/atomicfile"
	"proofglass/backend/tables"
)

// PageTable is a table found on a page, as the viewer offers it: where it is (Box, 0..1 of the page's width and
// height, as cited regions are) and its cells as tab-separated text for the clipboard, which spreadsheets paste as
// cells.
type PageTable struct {
	Index   int        `json:"index"`
	Caption string     `json:"caption,omitempty"`
	Rows    int        `json:"rows"` // body rows
	Columns int        `json:"columns"`
	Box     [4]float64 `json:"box"`
	TSV     string     `json:"tsv"`
}

// maxTablesPerPage bounds what one page's answer carries to the window.
const maxTablesPerPage = 32

// PageTables lists the tables of page (from 1) of a document, top to bottom; a spreadsheet's are its own cells.
func (s *LibraryService) PageTables(documentID int64, page int) ([]PageTable, error) {
	c := s.c
	if err := checkID("document", documentID); err != nil {
		return nil, err
	}
	if page < 1 || page > 1_000_000 {
		return nil, fmt.Errorf("page %d: pages are numbered from 1", page)
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	ts, err := c.lib.Tables(c.ctx, documentID, page)
	if err != nil {
		return nil, err
	}
	id, err := c.lib.KB.Content.UnitID(c.ctx, documentID, page)
	if err != nil {
		return nil, fmt.Errorf("document %d page %d: %w", documentID, page, err)
	}
	u, err := c.lib.KB.Content.Unit(c.ctx, id)
	if err != nil {
		return nil, fmt.Errorf("document %d page %d: %w", documentID, page, err)
	}
	out := []PageTable{}
	for _, t := range ts[:min(len(ts), maxTablesPerPage)] {
		pt := PageTable{Index: t.Index, Caption: t.Caption, Rows: len(t.Body()), Columns: t.Columns, TSV: tsv(t)}
		if u.Width > 0 && u.Height > 0 {
			pt.Box = [4]float64{t.Box.X0 / u.Width, t.Box.Y0 / u.Height, t.Box.X1 / u.Width, t.Box.Y1 / u.Height}
		}
		out = append(out, pt)
	}
	return out, nil
}

// SaveTable asks where to save table index of page of a document, in a dialog titled in the window's language,
// and writes it there as CSV or XLSX; it returns the path written, "" when the dialog was cancelled. The path
// never comes from the window, only from the dialog.
func (s *LibraryService) SaveTable(documentID int64, page, index int, format, title string) (string, error) {
	c := s.c
	if err := checkID("document", documentID); err != nil {
		return "", err
	}
	if format != "csv" && format != "xlsx" {
		return "", fmt.Errorf("table format %q: want csv or xlsx", format)
	}
	if err := c.ready(); err != nil {
		return "", err
	}
	t, err := c.lib.Table(c.ctx, documentID, page, index)
	if err != nil {
		return "", err
	}
	d, err := c.lib.KB.Docs.Document(c.ctx, documentID)
	if err != nil {
		return "", fmt.Errorf("document %d: %w", documentID, err)
	}
	var b bytes.Buffer
	if err := tables.Write(&b, t, format); err != nil {
		return "", err
	}
	ui := c.window()
	if ui == nil {
		return "", errNoWindow
	}
	stem := strings.TrimSuffix(filepath.Base(d.Name), filepath.Ext(d.Name))
	name := fmt.Sprintf("%s-p%d-table%d.%s", stem, page, index, format)
	if len(name) > 200 {
		name = fmt.Sprintf("table-p%d-%d.%s", page, index, format)
	}
	path, err := ui.SaveFile(dialogTitle(title, "Save table"), name)
	if err != nil || path == "" {
		return "", err
	}
	if err := atomicfile.Write(path, b.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("save the table to %s: %w", path, err)
	}
	return path, nil
}

// tsv is a table's grid as tab-separated lines, header rows first (a tab or line break inside a cell becomes a space).
func tsv(t tables.Table) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Comma = '\t'
	for _, r := range t.Rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = strings.Join(strings.Fields(c.Text), " ")
		}
		w.Write(cells)
	}
	w.Flush()
	return b.String()
}
