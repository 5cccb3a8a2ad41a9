package tables

import (
	"strings"

	"proofglass/backend/kb"
)

// Box is a rectangle in the unit's coordinates (PDF points for pages, as kb.Word's boxes).
type Box struct {
	X0 float64 `json:"x0"`
	Y0 float64 `json:"y0"`
	X1 float64 `json:"x1"`
	Y1 float64 `json:"y1"`
}

// Empty reports whether b encloses nothing.
func (b Box) Empty() bool { return b.X1 <= b.X0 || b.Y1 <= b.Y0 }

// union is the smallest box holding b and o; an empty box adds nothing.
func (b Box) union(o Box) Box {
	if b.Empty() {
		return o
	}
	if o.Empty() {
		return b
	}
	return Box{min(b.X0, o.X0), min(b.Y0, o.Y0), max(b.X1, o.X1), max(b.Y1, o.Y1)}
}

// overlap is the area b and o share.
func (b Box) overlap(o Box) float64 {
	w := min(b.X1, o.X1) - max(b.X0, o.X0)
	h := min(b.Y1, o.Y1) - max(b.Y0, o.Y0)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

func wordBox(w kb.Word) Box { return Box{w.X0, w.Y0, w.X1, w.Y1} }

// Cell is one position of a table's grid: its words' text and box (zero when the cell is empty).
type Cell struct {
	Text string `json:"text"`
	Box  Box    `json:"box"`
	// Span is the number of columns a header cell covers from here (a merged header); 0 or 1 for one column.
	Span int `json:"span,omitempty"`
	// Merged marks a position covered by the span of a header cell to its left; it repeats that cell's text and
	// box, so a header over two columns heads both.
	Merged bool `json:"merged,omitempty"`
}

// Table is a table found on a page.
type Table struct {
	DocumentID int64 `json:"document_id"`
	Page       int   `json:"page"`
	// Index numbers the page's tables from 1, top to bottom: with the document and page it addresses the table.
	Index   int    `json:"index"`
	Caption string `json:"caption,omitempty"`
	// CaptionBox is the caption's box, zero without one.
	CaptionBox Box `json:"caption_box"`
	// Box holds every cell of the table, headers included, not the caption.
	Box     Box `json:"box"`
	Columns int `json:"columns"`
	// HeaderRows is how many of Rows, from the top, are header rows.
	HeaderRows int `json:"header_rows"`
	// LabelColumn is the column naming each row (-1: none, a table of figures only).
	LabelColumn int `json:"label_column"`
	// Rows are the grid, header rows first; every row has Columns cells.
	Rows [][]Cell `json:"rows"`
}

// Body is the rows under the header.
func (t Table) Body() [][]Cell { return t.Rows[t.HeaderRows:] }

// ColumnHeader is the header of column c: its header rows' texts top to bottom ("HOVER (2-hop) Gold"), a merged
// header counting for every column it spans.
func (t Table) ColumnHeader(c int) string {
	var parts []string
	for _, row := range t.Rows[:t.HeaderRows] {
		if c >= len(row) || row[c].Text == "" {
			continue
		}
		if n := len(parts); n > 0 && parts[n-1] == row[c].Text {
			continue
		}
		parts = append(parts, row[c].Text)
	}
	return strings.Join(parts, " ")
}

// ColumnHeaders are every column's header.
func (t Table) ColumnHeaders() []string {
	out := make([]string, t.Columns)
	for c := range out {
		out[c] = t.ColumnHeader(c)
	}
	return out
}

// RowLabel is the label of row r of Rows: its label column's text, or for a row that continues the one above
// (an empty label, as "Med (IQR)" under "prepartum F. I") the nearest label above it. Header rows and tables
// without a label column have none.
func (t Table) RowLabel(r int) string {
	if t.LabelColumn < 0 || r < t.HeaderRows || r >= len(t.Rows) {
		return ""
	}
	for ; r >= t.HeaderRows; r-- {
		if s := t.Rows[r][t.LabelColumn].Text; s != "" {
			return s
		}
	}
	return ""
}

// Find finds the tables on a page from its word boxes, top to bottom, numbered from 1. A page without word boxes
// (an image without OCR, a clip) has none.
func Find(u kb.Unit) []Table {
	found := find(u.Words)
	for i := range found {
		found[i].DocumentID, found[i].Page, found[i].Index = u.DocumentID, u.Ordinal, i+1
	}
	return found
}

// TableAt is the table of the page that box overlaps most (a cited region, a selection in the viewer); false when
// it overlaps none.
func TableAt(u kb.Unit, box Box) (Table, bool) {
	var best Table
	area := 0.0
	for _, t := range Find(u) {
		if a := t.Box.union(t.CaptionBox).overlap(box); a > area {
			best, area = t, a
		}
	}
	return best, area > 0
}
