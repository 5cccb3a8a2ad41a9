package tables

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Formats are the formats a table is written in.
var Formats = []string{"csv", "json", "md", "xlsx"}

// Write writes t to w in format (one of Formats).
func Write(w io.Writer, t Table, format string) error {
	switch format {
	case "csv":
		return WriteCSV(w, t)
	case "json":
		return WriteJSON(w, t)
	case "md", "markdown":
		_, err := io.WriteString(w, Markdown(t))
		return err
	case "xlsx":
		return WriteXLSX(w, t)
	}
	return fmt.Errorf("table format %q: want one of %s", format, strings.Join(Formats, ", "))
}

// WriteCSV writes the grid, header rows first; a merged header's text stands in every column it spans.
func WriteCSV(w io.Writer, t Table) error {
	cw := csv.NewWriter(w)
	for _, row := range t.Rows {
		if err := cw.Write(cellTexts(row)); err != nil {
			return fmt.Errorf("write table as CSV: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write table as CSV: %w", err)
	}
	return nil
}

func cellTexts(row []Cell) []string {
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = c.Text
	}
	return out
}

// JSONTable is a table as WriteJSON writes it: its address, caption, boxes, headers and the body's cells, each
// with its row label and column header.
type JSONTable struct {
	DocumentID    int64     `json:"document_id"`
	Page          int       `json:"page"`
	Index         int       `json:"index"`
	Caption       string    `json:"caption,omitempty"`
	Box           Box       `json:"box"`
	CaptionBox    *Box      `json:"caption_box,omitempty"`
	Rows          int       `json:"rows"` // body rows
	Columns       int       `json:"columns"`
	LabelColumn   int       `json:"label_column"`
	ColumnHeaders []string  `json:"column_headers"`
	Header        [][]Cell  `json:"header"`
	Body          []JSONRow `json:"body"`
}

// JSONRow is one body row: its label and its non-empty cells.
type JSONRow struct {
	Label string     `json:"label,omitempty"`
	Cells []JSONCell `json:"cells"`
}

// JSONCell is one non-empty body cell.
type JSONCell struct {
	Column       int      `json:"column"`
	Text         string   `json:"text"`
	Value        *float64 `json:"value,omitempty"` // the text as a number, when it is one
	RowLabel     string   `json:"row_label,omitempty"`
	ColumnHeader string   `json:"column_header,omitempty"`
	Box          Box      `json:"box"`
}

// JSON is t in the shape WriteJSON writes.
func JSON(t Table) JSONTable {
	out := JSONTable{DocumentID: t.DocumentID, Page: t.Page, Index: t.Index, Caption: t.Caption, Box: t.Box,
		Rows: len(t.Body()), Columns: t.Columns, LabelColumn: t.LabelColumn, ColumnHeaders: t.ColumnHeaders(),
		Header: t.Rows[:t.HeaderRows], Body: []JSONRow{}}
	if !t.CaptionBox.Empty() {
		b := t.CaptionBox
		out.CaptionBox = &b
	}
	for r := t.HeaderRows; r < len(t.Rows); r++ {
		jr := JSONRow{Label: t.RowLabel(r), Cells: []JSONCell{}}
		for c, cell := range t.Rows[r] {
			if cell.Text == "" {
				continue
			}
			jc := JSONCell{Column: c, Text: cell.Text, RowLabel: jr.Label, ColumnHeader: out.ColumnHeaders[c], Box: cell.Box}
			if c == t.LabelColumn {
				jc.RowLabel = ""
			}
			if n, ok := ParseNumber(cell.Text); ok {
				jc.Value = &n.Value
			}
			jr.Cells = append(jr.Cells, jc)
		}
		out.Body = append(out.Body, jr)
	}
	return out
}

// WriteJSON writes JSON(t), indented.
func WriteJSON(w io.Writer, t Table) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(JSON(t)); err != nil {
		return fmt.Errorf("write table as JSON: %w", err)
	}
	return nil
}

// Markdown is t as a pipe table under its caption: one header row of the column headers (a table without header
// rows gets an empty one, as Markdown wants one), then the body.
func Markdown(t Table) string {
	var b strings.Builder
	if t.Caption != "" {
		b.WriteString(mdCell(t.Caption) + "\n\n")
	}
	row := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + mdCell(c) + " |")
		}
		b.WriteString("\n")
	}
	row(t.ColumnHeaders())
	rule := make([]string, t.Columns)
	for c := range rule {
		rule[c] = "---"
	}
	b.WriteString("|" + strings.Join(rule, "|") + "|\n")
	for _, r := range t.Body() {
		row(cellTexts(r))
	}
	return b.String()
}

// mdCell escapes what would end a Markdown table cell or start markup.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", `\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`").Replace(s)
}
