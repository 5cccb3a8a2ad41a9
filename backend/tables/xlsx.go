package tables

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/xuri/excelize/v2"
)

// SheetName is the name of t's sheet: its caption's label ("Table 2") or its caption, else "Page N table K";
// at most 31 characters, none that a sheet name forbids.
func SheetName(t Table) string {
	name := t.Caption
	if m := captionLabelRE.FindString(name); m != "" {
		name = m
	}
	name = strings.TrimSpace(strings.Map(func(r rune) rune {
		if strings.ContainsRune(`[]:*?/\`, r) {
			return ' '
		}
		return r
	}, name))
	name = strings.Trim(strings.Join(strings.Fields(name), " "), "'")
	if name == "" {
		name = fmt.Sprintf("Page %d table %d", t.Page, t.Index)
	}
	if r := []rune(name); len(r) > 31 {
		name = strings.TrimSpace(string(r[:31]))
	}
	return name
}

var captionLabelRE = regexp.MustCompile(`^(?:Table|TABLE|Tab\.|Tabelle|Tableau|Tabla)\s*[A-Z]?[0-9IVX]+(?:[.\-][0-9]+)*|^表\s*[0-9一二三四五六七八九十]+`)

// WriteXLSX writes t as a workbook of one sheet: header rows bold, a merged header merged over the columns it
// spans, a figure that reads as a number (ParseNumber) a numeric cell shown as written, any other text a text
// cell. The caption is the workbook's title.
func WriteXLSX(w io.Writer, t Table) error {
	f := excelize.NewFile()
	defer f.Close()
	sheet := SheetName(t)
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return fmt.Errorf("write table as XLSX: name the sheet %q: %w", sheet, err)
	}
	if t.Caption != "" {
		if err := f.SetDocProps(&excelize.DocProperties{Title: t.Caption}); err != nil {
			return fmt.Errorf("write table as XLSX: title: %w", err)
		}
	}
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}, Alignment: &excelize.Alignment{Horizontal: "center"}})
	if err != nil {
		return fmt.Errorf("write table as XLSX: header style: %w", err)
	}
	formats := map[string]int{} // number format → style
	for r, row := range t.Rows {
		for c, cell := range row {
			ref, err := excelize.CoordinatesToCellName(c+1, r+1)
			if err != nil {
				return fmt.Errorf("write table as XLSX: cell %d,%d: %w", r, c, err)
			}
			if err := xlsxCell(f, sheet, ref, cell, r < t.HeaderRows, bold, formats); err != nil {
				return fmt.Errorf("write table as XLSX: cell %s: %w", ref, err)
			}
			if cell.Span > 1 {
				end, _ := excelize.CoordinatesToCellName(c+cell.Span, r+1)
				if err := f.MergeCell(sheet, ref, end); err != nil {
					return fmt.Errorf("write table as XLSX: merge %s:%s: %w", ref, end, err)
				}
			}
		}
	}
	if err := f.Write(w); err != nil {
		return fmt.Errorf("write table as XLSX: %w", err)
	}
	return nil
}

func xlsxCell(f *excelize.File, sheet, ref string, cell Cell, header bool, bold int, formats map[string]int) error {
	if cell.Merged || cell.Text == "" {
		if header {
			return f.SetCellStyle(sheet, ref, ref, bold)
		}
		return nil
	}
	if header {
		if err := f.SetCellStr(sheet, ref, cell.Text); err != nil {
			return err
		}
		return f.SetCellStyle(sheet, ref, ref, bold)
	}
	n, ok := ParseNumber(cell.Text)
	if !ok {
		return f.SetCellStr(sheet, ref, cell.Text)
	}
	if err := f.SetCellFloat(sheet, ref, n.Value, -1, 64); err != nil {
		return err
	}
	st, ok := formats[n.Format]
	if !ok {
		format := n.Format
		var err error
		if st, err = f.NewStyle(&excelize.Style{CustomNumFmt: &format}); err != nil {
			return err
		}
		formats[n.Format] = st
	}
	return f.SetCellStyle(sheet, ref, ref, st)
}
