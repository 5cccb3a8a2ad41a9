package tables

import (
	"strings"
	"unicode"

	"proofglass/backend/htmlconv"
	"proofglass/backend/kb"
)

// FromSheets builds a spreadsheet's tables from its own cells instead of its pages' word boxes: the rows of each sheet
// that a page shows are that page's table, under the sheet's header row (repeated on the pages after the first), so
// an exported cell is the source's cell, empty cells and all, however the page laid it out. pages are the document's
// units in order, as htmlconv.SheetsPage laid the sheets out (one after another, a sheet over as many pages as its
// rows fill). Cells are
// found on the pages in order by their text, which also gives each its box; ok is false when a cell is not where the
// layout puts it (the pages are not of these sheets), and the caller then reads the tables from the word boxes.
func FromSheets(docID int64, sheets []htmlconv.Sheet, pages []kb.Unit) (byPage map[int][]Table, ok bool) {
	texts := make([]pageText, len(pages))
	for i, u := range pages {
		texts[i] = newPageText(u.Words)
	}
	byPage = map[int][]Table{}
	p, at := 0, 0
	if len(pages) == 0 {
		return nil, false
	}
	for _, s := range sheets {
		if s.Name != "" { // the sheet's title, on this page or at the top of the next
			if _, end, found := texts[p].find(s.Name, at, false); found {
				at = end
			} else if p+1 < len(pages) {
				if _, end, found := texts[p+1].find(s.Name, 0, true); found {
					p, at = p+1, end
				}
			}
		}
		var cur *Table // the table of this sheet on page p
		for ri, row := range s.Rows {
			cells, end, found := texts[p].row(row, at)
			if !found && p+1 < len(pages) {
				if cells, end, found = texts[p+1].row(row, 0); found {
					p, cur = p+1, nil
				}
			}
			if !found {
				return nil, false
			}
			at = end
			if cur == nil {
				t := Table{DocumentID: docID, Page: pages[p].Ordinal, Caption: s.Name, LabelColumn: -1, HeaderRows: 1}
				if ri > 0 { // a continued sheet: its header row heads this page's rows too
					t.Rows = append(t.Rows, plainCells(s.Rows[0]))
				}
				byPage[t.Page] = append(byPage[t.Page], t)
				list := byPage[t.Page]
				cur = &list[len(list)-1]
			}
			cur.Rows = append(cur.Rows, cells)
		}
	}
	for page, list := range byPage {
		for i := range list {
			finishSheetTable(&list[i], i+1)
		}
		byPage[page] = list
	}
	return byPage, true
}

// finishSheetTable squares t's rows, sets its box and names its label column.
func finishSheetTable(t *Table, index int) {
	t.Index = index
	for _, r := range t.Rows {
		t.Columns = max(t.Columns, len(r))
	}
	textual := 0
	for ri := range t.Rows {
		for len(t.Rows[ri]) < t.Columns {
			t.Rows[ri] = append(t.Rows[ri], Cell{})
		}
		for _, c := range t.Rows[ri] {
			t.Box = t.Box.union(c.Box)
		}
		if ri >= t.HeaderRows && t.Rows[ri][0].Text != "" && !isFigure(t.Rows[ri][0].Text) {
			textual++
		}
	}
	if body := len(t.Rows) - t.HeaderRows; body > 0 && 2*textual >= body {
		t.LabelColumn = 0
	}
}

func plainCells(row []string) []Cell {
	out := make([]Cell, len(row))
	for i, s := range row {
		out[i] = Cell{Text: s}
	}
	return out
}

// isFigure reports whether s reads as a number, a date or an amount rather than a label.
func isFigure(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// pageText is a page's words run together without spaces, each byte knowing its word, so a cell's text is found
// however the layout broke its lines.
type pageText struct {
	text  string
	word  []int // word index of each byte of text
	words []kb.Word
}

func newPageText(words []kb.Word) pageText {
	var b strings.Builder
	var at []int
	for i, w := range words {
		n := squeeze(w.Text)
		b.WriteString(n)
		for range len(n) {
			at = append(at, i)
		}
	}
	return pageText{text: b.String(), word: at, words: words}
}

// squeeze drops the white space of s: the layout decides where a cell's lines break, the cell decides its letters.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// find locates s at or after byte from (exactly at from when strict), giving its box and the byte after it.
func (pt pageText) find(s string, from int, strict bool) (Box, int, bool) {
	n := squeeze(s)
	if n == "" || from > len(pt.text) {
		return Box{}, from, n == ""
	}
	i := strings.Index(pt.text[from:], n)
	if i < 0 || strict && i > 0 {
		return Box{}, from, false
	}
	start, end := from+i, from+i+len(n)
	var box Box
	for w := pt.word[start]; w <= pt.word[end-1]; w++ {
		box = box.union(wordBox(pt.words[w]))
	}
	return box, end, true
}

// row locates a row's cells at byte from, one right after another as the layout sets them: a cell that is not
// next is a page that is not this sheet's, not a cell to look for further on (where another row's equal cell is).
func (pt pageText) row(cells []string, from int) ([]Cell, int, bool) {
	out := make([]Cell, len(cells))
	at := from
	for i, c := range cells {
		out[i].Text = c
		if squeeze(c) == "" {
			continue
		}
		box, end, ok := pt.find(c, at, true)
		if !ok {
			return nil, from, false
		}
		out[i].Box, at = box, end
	}
	return out, at, true
}

// SheetTable is a whole sheet as one table, its first row the header: what `tables export --sheet` writes. It has
// no page and no boxes, as a sheet may run over several pages.
func SheetTable(docID int64, s htmlconv.Sheet) Table {
	t := Table{DocumentID: docID, Caption: s.Name, LabelColumn: -1, Index: 1}
	for _, r := range s.Rows {
		t.Rows = append(t.Rows, plainCells(r))
	}
	if len(t.Rows) > 0 {
		t.HeaderRows = 1
	}
	finishSheetTable(&t, 1)
	return t
}
