package questioner

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"

	"proofglass/backend/kb"
)

// row is a table row read from a line: a label, the words that qualify it ("ml", "yes"), then figure cells.
type row struct {
	line  int
	base  string // the label as the row, or the row it continues, writes it
	x0    float64
	quals []string
	cells []segment
}

// maxLabelWords bounds a row label: a longer run of words before a gap is a column of prose.
const maxLabelWords = 8

// tableRows reads a page's table rows. A row is a line that starts with a label (words with letters) and has
// figures after a wide gap; a line that starts well right of the row above's label continues that row ("Med (IQR)"
// under "prepartum F. I") and takes its label.
func tableRows(lines []line) []row {
	var rows []row
	for li, l := range lines {
		segs := splitLabel(l.segments())
		if len(segs) < 2 {
			continue
		}
		label := cleanLabel(segs[0])
		if label == "" || len(wordsOf(label)) > maxLabelWords {
			continue
		}
		quals, cells := rowCells(segs[1:])
		if len(cells) == 0 {
			continue
		}
		rw := row{line: li, base: label, x0: segs[0].x0, quals: quals, cells: cells}
		if n := len(rows); n > 0 && rows[n-1].line >= li-3 && segs[0].x0 > rows[n-1].x0+2*l.height() {
			prev := rows[n-1]
			rw.base, rw.x0 = prev.base, prev.x0
			rw.quals = append([]string{label}, quals...)
		}
		rows = append(rows, rw)
	}
	return aligned(rows)
}

// aligned keeps the cells that stand in a column with a cell of another row, and the rows that keep one: a line
// of a label and a figure alone ("Subgroup 6" over a plot) is no table.
func aligned(rows []row) []row {
	var out []row
	for i, rw := range rows {
		var kept []segment
		for _, c := range rw.cells {
			for j, other := range rows {
				if j != i && overCells(c, other.cells) > 0 {
					kept = append(kept, c)
					break
				}
			}
		}
		if len(kept) > 0 {
			rw.cells = kept
			out = append(out, rw)
		}
	}
	return out
}

// splitLabel parts a first segment that ends in figures set off by only a narrow gap ("Hb.prae 0.0096") when
// more figures follow after a wide gap: the figures are a cell of their own.
func splitLabel(segs []segment) []segment {
	if len(segs) < 2 {
		return segs
	}
	ws := segs[0].words
	for i := 1; i < len(ws); i++ {
		if hasLetter(ws[i-1].Text) && allFigures(segment{words: ws[i:]}) && !isYear(ws[i].Text) && allFigures(segs[1]) {
			head := segment{words: ws[:i], x0: ws[0].X0, x1: ws[i-1].X1}
			tail := segment{words: ws[i:], x0: ws[i].X0, x1: segs[0].x1}
			return append([]segment{head, tail}, segs[1:]...)
		}
	}
	return segs
}

// splitCells parts a cell of several bare figures ("0.941 0.838 1.057") into one cell each: narrowly set columns.
// A figure with a bracketed one beside it ("350.0 (300.0-500.0)") stays one cell.
func splitCells(s segment) []segment {
	if len(s.words) < 2 {
		return []segment{s}
	}
	for _, w := range s.words {
		if strings.ContainsAny(w.Text, "([") {
			return []segment{s}
		}
	}
	out := make([]segment, len(s.words))
	for i, w := range s.words {
		out[i] = segment{words: []kb.Word{w}, x0: w.X0, x1: w.X1}
	}
	return out
}

// rowCells splits the segments after a label into the short worded qualifiers before the first figure and the
// run of figure cells; a row whose cells are all years is a header, not a row.
func rowCells(segs []segment) (quals []string, cells []segment) {
	years := 0
	for _, s := range segs {
		if allFigures(s) {
			for _, c := range splitCells(s) {
				cells = append(cells, c)
				if len(c.words) == 1 && isYear(c.words[0].Text) {
					years++
				}
			}
			continue
		}
		if len(cells) > 0 {
			break
		}
		if len(s.words) > 3 {
			return nil, nil
		}
		// A unit with no letters ("%") qualifies nothing a question could say.
		if q := cleanLabel(s); q != "" {
			quals = append(quals, q)
		}
	}
	if years == len(cells) {
		return nil, nil
	}
	return quals, cells
}

func allFigures(s segment) bool {
	for _, w := range s.words {
		if !isFigure(w.Text) {
			return false
		}
	}
	return true
}

// codeRE matches words that are code or markup rather than a label: a question cannot ask for them.
var codeRE = regexp.MustCompile(`[=<>{}\\_|"~#@〈〉]|\(.*\(|^[^\pL\pN]+$`)

// cleanLabel is a segment's words as a label: without leading marks that carry no letters ("##", "•", "1."), the
// brackets and punctuation around each word stripped; "" when no word has letters or a word is code.
func cleanLabel(s segment) string {
	var out []string
	for _, w := range s.words {
		t := strings.Trim(w.Text, "()[]{},;:*")
		if len(out) == 0 && !hasLetter(t) {
			continue
		}
		if t == "" {
			continue
		}
		if codeRE.MatchString(t) {
			return ""
		}
		out = append(out, t)
	}
	if len(out) == 0 || !hasLetter(strings.Join(out, "")) {
		return ""
	}
	for _, w := range out {
		if auxiliaries[strings.ToLower(w)] {
			return "" // a clause, not a label
		}
	}
	return joinWords(out)
}

// columnHeader is the header of the column a cell stands in: the words over its x-range on the nearest line above
// (not a row itself) whose words there have letters or a year. A header segment of a few words over this cell
// alone is taken whole ("Planned Cesarean" over a cell under "Cesarean"); one over several cells is several
// headers. A prose line there means the table has no header.
func columnHeader(lines []line, isRow map[int]bool, li int, cell segment, cells []segment) string {
	for j := li - 1; j >= 0 && j >= li-40; j-- {
		if isRow[j] {
			continue
		}
		var over []kb.Word
		worded := false
		for _, s := range lines[j].segments() {
			if len(s.words) >= maxLabelWords {
				return ""
			}
			if s.x1 <= cell.x0 || s.x0 >= cell.x1 {
				continue
			}
			whole := len(s.words) <= 4 && overCells(s, cells) == 1
			for _, w := range s.words {
				if whole || w.X1 > cell.x0 && w.X0 < cell.x1 {
					over = append(over, w)
					worded = worded || hasLetter(w.Text) || isYear(w.Text)
				}
			}
		}
		if worded {
			return cleanHeader(over)
		}
	}
	return ""
}

// overCells counts the cells a segment stands over.
func overCells(s segment, cells []segment) int {
	n := 0
	for _, c := range cells {
		if s.x1 > c.x0 && s.x0 < c.x1 {
			n++
		}
	}
	return n
}

// contentsRE heads a table of contents, whose figures are page numbers: nothing a question should ask for.
var contentsRE = regexp.MustCompile(`(?i)^(table of )?contents$|^目录$`)

// notAvailable are the marks of an empty cell.
var notAvailable = map[string]bool{"na": true, "n/a": true, "n.a.": true, "na-na": true, "-": true, "–": true, "—": true}

// cleanHeader is a header's words without the figures beside them ("Vaginal delivery (677)" → "Vaginal delivery"),
// or "" when it is code or too long to be a column's name.
func cleanHeader(ws []kb.Word) string {
	var out []string
	for _, w := range ws {
		t := strings.Trim(w.Text, "()[]{},;:*")
		if t == "" || isFigure(t) && !isYear(t) || notAvailable[strings.ToLower(t)] {
			continue
		}
		if codeRE.MatchString(t) {
			return ""
		}
		out = append(out, t)
	}
	h := joinWords(out)
	if len(out) == 0 || len(out) > 6 || contentsRE.MatchString(h) {
		return ""
	}
	return h
}

var tableCaptionRE = regexp.MustCompile(`^(?:Table|TABLE|Tab\.)\s*\d+[A-Za-z]?[.:]?$|^表\s*\d+`)

// tableCaption is the topic of the table caption nearest a line ("Table 1: Distribution of …, stratified by" →
// "distribution of …"), or "". The caption's block gives the topic where it can: a line may end mid-word.
func tableCaption(pg *page, li int) string {
	lines := pg.lines
	best, dist := "", len(lines)
	for j, l := range lines {
		if len(l.words) < 2 {
			continue
		}
		head := l.words[0].Text
		if len(l.words) > 1 && !strings.HasPrefix(head, "表") {
			head += " " + l.words[1].Text
		}
		if !tableCaptionRE.MatchString(head) && !tableCaptionRE.MatchString(l.words[0].Text) {
			continue
		}
		if d := abs(j - li); d < dist {
			best, dist = captionTopic(l.text()), d
			if c, ok := readCaption(l.text()); ok && pg.tableTopics[c.number] != "" {
				best = pg.tableTopics[c.number]
			}
		}
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// tableCandidates are the page's table-cell questions: one for each figure cell under a header.
func tableCandidates(pg *page, r *rand.Rand) []candidate {
	var out []candidate
	rows := tableRows(pg.lines)
	isRow := map[int]bool{}
	for _, rw := range rows {
		isRow[rw.line] = true
	}
	for _, rw := range rows {
		caption := tableCaption(pg, rw.line)
		for _, cell := range rw.cells {
			header := columnHeader(pg.lines, isRow, rw.line, cell, rw.cells)
			if header == "" {
				continue
			}
			c := cellQuestion(pg, r, rw, header, caption)
			c.value = cell.text()
			out = append(out, c)
		}
	}
	return out
}

// cellQuestion asks for the cell of a row under a header, from the row label and the header, and sometimes the
// table's caption.
func cellQuestion(pg *page, r *rand.Rand, rw row, header, caption string) candidate {
	name, named := pg.doc.named(pg.zh, r.IntN(2) == 0)
	header = strings.TrimSpace(strings.TrimSuffix(header, "年")) // "2023年" heads a year's column in Chinese
	year := isYear(header)
	if !year {
		header = displayPhrase(header)
	}
	form := r.IntN(3)
	if caption != "" && r.IntN(3) == 0 {
		form = 3
	}
	quals := ""
	if len(rw.quals) > 0 {
		quals = " (" + strings.Join(rw.quals, ", ") + ")"
		if pg.zh {
			quals = "（" + strings.Join(rw.quals, "，") + "）"
		}
	}
	render := func(keys []string) string {
		label := joinWords(keys) + quals
		var q string
		if pg.zh {
			q = zhCell(form, label, header, caption, year)
		} else {
			q = enCell(form, label, header, caption, year)
		}
		if named {
			q = inDoc(q, name, pg.zh)
		}
		return q
	}
	return candidate{kind: kindTableCell, keys: wordsOf(displayPhrase(rw.base)), render: render, zh: pg.zh}
}

func enCell(form int, label, header, caption string, year bool) string {
	switch {
	case year && form == 0:
		return fmt.Sprintf("What was the %s in %s?", label, header)
	case year && form == 1:
		return fmt.Sprintf("What %s does the table report for %s?", label, header)
	case year && form == 2:
		return fmt.Sprintf("How much was the %s in %s?", label, header)
	case year:
		return fmt.Sprintf("In the table of %s, what was the %s in %s?", caption, label, header)
	case form == 0:
		return fmt.Sprintf("What is the %s for %s?", label, header)
	case form == 1:
		return fmt.Sprintf("What value does the table give for %s under %s?", label, header)
	case form == 2:
		return fmt.Sprintf("For %s, what is the %s?", header, label)
	}
	return fmt.Sprintf("In the table of %s, what is the %s for %s?", caption, label, header)
}

func zhCell(form int, label, header, caption string, year bool) string {
	switch {
	case form == 3:
		return fmt.Sprintf("在“%s”表中，%s的%s是多少？", caption, header, label)
	case year && form == 0:
		return fmt.Sprintf("%s年的%s是多少？", header, label)
	case year:
		return fmt.Sprintf("表中%s年%s的数值是多少？", header, label)
	case form == 0:
		return fmt.Sprintf("%s一栏中，%s是多少？", header, label)
	}
	return fmt.Sprintf("表格里%s对应的%s是多少？", header, label)
}
