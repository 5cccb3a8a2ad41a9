package compare

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/xuri/excelize/v2"

	"proofglass/backend/agent"
)

// Formats Write knows.
var Formats = []string{"csv", "xlsx", "md", "json"}

// Write writes t in format: csv, xlsx, md (Markdown) or json.
func Write(w io.Writer, t Table, format string) error {
	switch format {
	case "csv":
		return WriteCSV(w, t)
	case "xlsx":
		return WriteXLSX(w, t)
	case "md", "markdown":
		_, err := io.WriteString(w, Markdown(t))
		return err
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(t); err != nil {
			return fmt.Errorf("write comparison as JSON: %w", err)
		}
		return nil
	}
	return fmt.Errorf("compare: unknown format %q, want one of %s", format, strings.Join(Formats, ", "))
}

// Header is the first row of the CSV and XLSX forms: "item", then for each column its label's answer, its sources
// and its grounding.
func Header(t Table) []string {
	h := []string{"item"}
	for _, c := range t.Columns {
		h = append(h, c.Label, c.Label+" — sources", c.Label+" — grounding")
	}
	return h
}

// Rows are the body rows of the CSV and XLSX forms, one per item, in Header's order.
func Rows(t Table) [][]string {
	out := make([][]string, len(t.Items))
	for i, item := range t.Items {
		row := []string{item}
		for j := range t.Columns {
			c := t.Cells[i][j]
			row = append(row, CellText(c), Sources(c.Citations), MarkText(c))
		}
		out[i] = row
	}
	return out
}

// CellText is a cell's answer, or what happened instead of one.
func CellText(c Cell) string {
	switch c.State {
	case StateDone:
		return c.Answer
	case StateFailed:
		return "failed: " + c.Error
	case StateCancelled:
		return "cancelled"
	}
	return c.State
}

// MarkText is a cell's grounding mark with the check's own line.
func MarkText(c Cell) string {
	if c.Grounding == "" {
		return c.Mark
	}
	return c.Mark + ": " + c.Grounding
}

// Sources are a cell's citations as people read them: "report.pdf p. 3 (region 10–50 % × 20–60 %); …".
func Sources(cs []agent.Citation) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = Source(c)
	}
	return strings.Join(parts, "; ")
}

// Source is one citation: document, page and, for a zoomed region, where on the page it lies.
func Source(c agent.Citation) string {
	s := fmt.Sprintf("%s p. %d", c.DocumentName, c.Page)
	if r := c.Region; r != nil {
		s += fmt.Sprintf(" (region %.0f–%.0f %% × %.0f–%.0f %%)", r[0]*100, r[2]*100, r[1]*100, r[3]*100)
	}
	return s
}

// WriteCSV writes t as CSV under Header. A cell that a spreadsheet would read as a formula (=, +, -, @ first) is
// written with a leading apostrophe, so an answer quoting a document cannot run in the spreadsheet it is opened in.
func WriteCSV(w io.Writer, t Table) error {
	cw := csv.NewWriter(w)
	rows := append([][]string{Header(t)}, Rows(t)...)
	for _, r := range rows {
		for k, s := range r {
			r[k] = defuse(s)
		}
		if err := cw.Write(r); err != nil {
			return fmt.Errorf("write comparison as CSV: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write comparison as CSV: %w", err)
	}
	return nil
}

func defuse(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// WriteXLSX writes t as a workbook of one sheet, Compare: Header in bold, then one row per item, every cell text
// (never a formula), wrapped.
func WriteXLSX(w io.Writer, t Table) error {
	f := excelize.NewFile()
	defer f.Close()
	const sheet = "Compare"
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return fmt.Errorf("write comparison as XLSX: name the sheet: %w", err)
	}
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}, Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}})
	if err != nil {
		return fmt.Errorf("write comparison as XLSX: header style: %w", err)
	}
	wrap, err := f.NewStyle(&excelize.Style{Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}})
	if err != nil {
		return fmt.Errorf("write comparison as XLSX: cell style: %w", err)
	}
	rows := append([][]string{Header(t)}, Rows(t)...)
	for r, row := range rows {
		for c, s := range row {
			ref, err := excelize.CoordinatesToCellName(c+1, r+1)
			if err != nil {
				return fmt.Errorf("write comparison as XLSX: cell %d,%d: %w", r, c, err)
			}
			if err := f.SetCellStr(sheet, ref, s); err != nil {
				return fmt.Errorf("write comparison as XLSX: cell %s: %w", ref, err)
			}
			style := wrap
			if r == 0 {
				style = bold
			}
			if err := f.SetCellStyle(sheet, ref, ref, style); err != nil {
				return fmt.Errorf("write comparison as XLSX: style %s: %w", ref, err)
			}
		}
	}
	last, _ := excelize.ColumnNumberToName(len(rows[0]))
	if err := f.SetColWidth(sheet, "A", last, 40); err != nil {
		return fmt.Errorf("write comparison as XLSX: column widths: %w", err)
	}
	if err := f.Write(w); err != nil {
		return fmt.Errorf("write comparison as XLSX: %w", err)
	}
	return nil
}

// Markdown is t as a pipe table: one row per item, one column per target, each cell its answer, then its sources
// and grounding mark on lines of their own (<br>).
func Markdown(t Table) string {
	var b strings.Builder
	b.WriteString("| item |")
	for _, c := range t.Columns {
		b.WriteString(" " + mdCell(c.Label) + " |")
	}
	b.WriteString("\n|---|")
	for range t.Columns {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for i, item := range t.Items {
		b.WriteString("| " + mdCell(item) + " |")
		for j := range t.Columns {
			c := t.Cells[i][j]
			s := mdCell(CellText(c))
			if src := Sources(c.Citations); src != "" {
				s += "<br>" + mdCell(src)
			}
			s += "<br>" + mdCell(MarkText(c))
			b.WriteString(" " + s + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// mdCell escapes what would end a Markdown table cell, start markup or be read as HTML.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\r\n", " ", "\n", " ", "\r", " ", `\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`",
		"<", "&lt;", ">", "&gt;").Replace(s)
}
