package tables

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"proofglass/backend/kb"
	"proofglass/backend/wordlines"
)

// How a page's lines become tables: lines with a wide gap between words (a label, then cells) are seeds; seeds
// close above one another, with at most two other lines between them, make a block; its leading lines of words
// (no figure opening a phrase) are the header; the columns are the x-ranges that the body's words cover, gutters
// being what no body word crosses; header phrases head every column they stand over; a caption ("Table 2: …")
// is the nearest one just above or below. A block whose cells read like sentences is running text, not a table.

const (
	maxHeaderRows = 3
	maxBridged    = 2   // non-seed lines a block may hold between two seeds
	phraseGap     = 0.6 // words closer than this many word heights belong to one phrase
	cellGap       = 1.0 // words further apart than this many word heights are in different cells
	lineGap       = 2.0 // lines further apart than this many word heights are not one table
	maxCellWords  = 4.0 // a mean over the body's cells above this reads as prose
	maxSeedPhrase = 8   // a run of this many words without a wide gap is a sentence, not a cell
	sentenceWords = 6   // a block whose words mostly stand in runs this long is running text
)

// line is one line of the page as wordlines groups it.
type line struct {
	words []int // indices into the page's words, left to right
	box   Box
	h     float64 // median word height
	seed  bool
	cap   bool // starts a caption
}

// column is the x-range of one column of a table.
type column struct{ x0, x1 float64 }

func find(words []kb.Word) []Table {
	lines := pageLines(words)
	var out []Table
	used := map[int]bool{} // lines taken by a table
	for _, b := range blocks(lines) {
		if t, ok := build(words, lines, b); ok {
			for _, li := range b {
				used[li] = true
			}
			out = append(out, t)
		}
	}
	attachCaptions(words, lines, used, out)
	slices.SortStableFunc(out, func(a, b Table) int { return cmp.Compare(a.Box.Y0, b.Box.Y0) })
	return out
}

func pageLines(words []kb.Word) []line {
	var out []line
	for _, l := range wordlines.Lines(words) {
		ln := line{words: l}
		hs := make([]float64, len(l))
		for k, i := range l {
			ln.box = ln.box.union(wordBox(words[i]))
			hs[k] = words[i].Y1 - words[i].Y0
		}
		slices.Sort(hs)
		ln.h = hs[len(hs)/2]
		ln.cap = captionRE.MatchString(lineText(words, l))
		ln.seed = !ln.cap && isSeed(words, l)
		out = append(out, ln)
	}
	return out
}

// isSeed reports whether a line looks like a table row: a gap between two of its words wider than a justified
// line's spaces, and no run of words long enough to be a sentence.
func isSeed(words []kb.Word, l []int) bool {
	gaps, run := 0, 1
	for k := 1; k < len(l); k++ {
		a, b := words[l[k-1]], words[l[k]]
		if b.X0-a.X1 > cellGap*min(a.Y1-a.Y0, b.Y1-b.Y0) {
			gaps++
			run = 1
			continue
		}
		if run++; run >= maxSeedPhrase {
			return false
		}
	}
	return gaps > 0
}

// blocks groups the lines into candidate tables: runs of seeds, each close below the last, with at most
// maxBridged other lines between two seeds. Each block lists line indices top to bottom.
func blocks(lines []line) [][]int {
	var out [][]int
	var cur, bridged []int
	flush := func() {
		if len(cur) >= 2 {
			out = append(out, cur)
		}
		cur, bridged = nil, nil
	}
	for i, ln := range lines {
		if len(cur) > 0 {
			prev := lines[i-1]
			if ln.box.Y0-prev.box.Y1 > lineGap*max(ln.h, prev.h) {
				flush()
			}
		}
		switch {
		case ln.seed:
			cur = append(append(cur, bridged...), i)
			bridged = nil
		case len(cur) > 0 && !ln.cap && len(bridged) < maxBridged:
			bridged = append(bridged, i)
		default:
			flush()
		}
	}
	flush()
	return out
}

// build reads block b as a table, or reports that it is none.
func build(words []kb.Word, lines []line, b []int) (Table, bool) {
	nh := 0
	for nh < len(b) && nh < maxHeaderRows && headerish(words, lines[b[nh]].words) {
		nh++
	}
	if nh == len(b) || nh == maxHeaderRows && headerish(words, lines[b[nh]].words) {
		nh = 1 // a table of words only: its first line heads it
	}
	body := b[nh:]
	h := medianHeight(lines, b)
	mono := monospaced(words, lines, b)
	gap := phraseGap * h
	if mono {
		gap = 0.25 * h // a fixed-pitch space (R's output) is about half a height, and parts cells
	}
	cols := columns(words, lines, body, gap)
	if len(cols) < 2 {
		return Table{}, false
	}
	t := Table{Columns: len(cols), HeaderRows: nh}
	for _, li := range b[:nh] {
		t.Rows = append(t.Rows, headerRow(words, lines[li].words, cols, gap, mono))
	}
	for _, li := range body {
		if !fits(words, lines[li], cols) {
			continue // a line of text inside the block's span, not one of its rows
		}
		t.Rows = append(t.Rows, bodyRow(words, lines[li].words, cols))
	}
	if !tabular(t) || prose(words, lines, b) {
		return Table{}, false
	}
	for _, row := range t.Rows {
		for _, c := range row {
			t.Box = t.Box.union(c.Box)
		}
	}
	t.LabelColumn = labelColumn(t)
	return t, true
}

// monospaced reports whether a block is set in a fixed-pitch font: its words of three characters or more are
// within a tenth of one width per character.
func monospaced(words []kb.Word, lines []line, b []int) bool {
	var per []float64
	for _, li := range b {
		for _, i := range lines[li].words {
			if n := len([]rune(words[i].Text)); n >= 3 {
				per = append(per, (words[i].X1-words[i].X0)/float64(n))
			}
		}
	}
	if len(per) < 6 {
		return false
	}
	slices.Sort(per)
	lo, hi := per[len(per)/20], per[len(per)-1-len(per)/20]
	return hi-lo <= 0.1*per[len(per)/2]
}

func medianHeight(lines []line, b []int) float64 {
	hs := make([]float64, len(b))
	for k, li := range b {
		hs[k] = lines[li].h
	}
	slices.Sort(hs)
	return hs[len(hs)/2]
}

// headerish reports whether a line reads as a header: no phrase of it opens with a figure other than a year.
func headerish(words []kb.Word, l []int) bool {
	for k, i := range l {
		if k > 0 && words[i].X0-words[l[k-1]].X1 < phraseGap*(words[i].Y1-words[i].Y0) {
			continue // inside a phrase
		}
		if w := words[i].Text; startsWithFigure(w) && !yearRE.MatchString(w) {
			return false
		}
	}
	return true
}

var (
	figureRE  = regexp.MustCompile(`^[(\[]?[-−–+]?[$€£¥]?\.?\d`)
	yearRE    = regexp.MustCompile(`^[(（]?(?:FY|Q[1-4])?(?:19|20)\d\d[A-Za-z年]?[)）:]?$`)
	captionRE = regexp.MustCompile(`^(?:Table|TABLE|Tab\.|Tabelle|Tableau|Tabla)\s*[A-Z]?[0-9IVX]+(?:[.\-][0-9]+)*\s*[:.\-–—]?(?:\s|$)|^表\s*[0-9一二三四五六七八九十]+`)
)

func startsWithFigure(w string) bool { return figureRE.MatchString(w) }

// columns are the x-ranges the body's words cover, left to right; two ranges whose words sit a phrase's gap
// apart in every row that has both ("350.0 (300.0-500.0)", "Med (IQR)") are one column.
func columns(words []kb.Word, lines []line, body []int, gap float64) []column {
	var spans []column
	for _, li := range body {
		if !lines[li].seed {
			continue // a bridged line may be a spanning note; the seeds set the grid
		}
		for _, i := range lines[li].words {
			spans = append(spans, column{words[i].X0, words[i].X1})
		}
	}
	slices.SortFunc(spans, func(a, b column) int { return cmp.Compare(a.x0, b.x0) })
	var cols []column
	for _, s := range spans {
		if n := len(cols); n > 0 && s.x0 <= cols[n-1].x1 {
			cols[n-1].x1 = max(cols[n-1].x1, s.x1)
			continue
		}
		cols = append(cols, s)
	}
	for c := 0; c+1 < len(cols); {
		if phraseApart(words, lines, body, cols[c], cols[c+1], gap) {
			cols[c].x1 = cols[c+1].x1
			cols = slices.Delete(cols, c+1, c+2)
			continue
		}
		c++
	}
	return cols
}

// phraseApart reports whether, in every body row with words in both a and b, the gap between them is a space
// between words of one phrase, and some row has both.
func phraseApart(words []kb.Word, lines []line, body []int, a, b column, gap float64) bool {
	both := false
	for _, li := range body {
		var last, first *kb.Word
		for _, i := range lines[li].words {
			w := &words[i]
			if w.X0 >= a.x0 && w.X1 <= a.x1 {
				last = w
			}
			if w.X0 >= b.x0 && w.X1 <= b.x1 && first == nil {
				first = w
			}
		}
		if last == nil || first == nil {
			continue
		}
		if first.X0-last.X1 >= gap {
			return false
		}
		both = true
	}
	return both
}

// colOf is the column a word stands in: the one it overlaps most, else the nearest.
func colOf(w kb.Word, cols []column) int {
	best, score := 0, -1e18
	for c, col := range cols {
		s := min(w.X1, col.x1) - max(w.X0, col.x0) // overlap, or minus the distance
		if s > score {
			best, score = c, s
		}
	}
	return best
}

// fits reports whether a line's words each stand in one column, as a row's do; a sentence crosses gutters.
func fits(words []kb.Word, ln line, cols []column) bool {
	if ln.seed {
		return true
	}
	for _, i := range ln.words {
		n := 0
		for _, col := range cols {
			if words[i].X1 > col.x0 && words[i].X0 < col.x1 {
				n++
			}
		}
		if n > 1 {
			return false
		}
	}
	return true
}

func bodyRow(words []kb.Word, l []int, cols []column) []Cell {
	row := make([]Cell, len(cols))
	for _, i := range l {
		c := &row[colOf(words[i], cols)]
		c.Text = strings.TrimSpace(c.Text + " " + words[i].Text)
		c.Box = c.Box.union(wordBox(words[i]))
	}
	return row
}

// headerRow reads a header line by phrases: each heads every column it stands over by at least half the
// narrower of the two ("HOVER (2-hop)" over Gold and Open), and one over none heads the column it overlaps most.
// In fixed-pitch output each word heads one column, a word over a gutter the column right of it, as R
// right-aligns its headers ("z value").
func headerRow(words []kb.Word, l []int, cols []column, gap float64, mono bool) []Cell {
	row := make([]Cell, len(cols))
	for _, ph := range phrases(words, l, gap) {
		var text []string
		var box Box
		for _, i := range ph {
			text = append(text, words[i].Text)
			box = box.union(wordBox(words[i]))
		}
		first, last := -1, -1
		for c, col := range cols {
			ov := min(box.X1, col.x1) - max(box.X0, col.x0)
			if ov > 0 && ov >= 0.5*min(box.X1-box.X0, col.x1-col.x0) {
				if first < 0 {
					first = c
				}
				last = c
			}
		}
		if mono || first < 0 {
			first = colOf(kb.Word{X0: box.X0, X1: box.X1}, cols)
			if mono && min(box.X1, cols[first].x1) <= max(box.X0, cols[first].x0) {
				first = len(cols) - 1
				for c, col := range cols {
					if col.x0 >= box.X1 {
						first = c
						break
					}
				}
			}
			last = first
		}
		s := strings.Join(text, " ")
		if row[first].Text != "" && !row[first].Merged {
			s = row[first].Text + " " + s // two phrases over one column are one header
			box = box.union(row[first].Box)
		}
		for c := first; c <= last; c++ {
			row[c] = Cell{Text: s, Box: box, Merged: c > first}
		}
		if last > first {
			row[first].Span = last - first + 1
		}
	}
	return row
}

// phrases splits a line at the gaps of gap or wider.
func phrases(words []kb.Word, l []int, gap float64) [][]int {
	var out [][]int
	for k, i := range l {
		if k == 0 || words[i].X0-words[l[k-1]].X1 >= gap {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], i)
	}
	return out
}

// tabular reports whether the rows read as a table: two body rows with two cells at least, and cells of a few
// words, not sentences.
func tabular(t Table) bool {
	rows, cells, ws := 0, 0, 0
	for _, row := range t.Body() {
		n := 0
		for _, c := range row {
			if c.Text != "" {
				n++
				ws += len(strings.Fields(c.Text))
			}
		}
		cells += n
		if n >= 2 {
			rows++
		}
	}
	return rows >= 2 && float64(ws) <= maxCellWords*float64(cells)
}

// prose reports whether a block reads as running text: most of its words stand in runs of sentenceWords or more
// without a cell's gap, where a table's words are short cells and labels.
func prose(words []kb.Word, lines []line, b []int) bool {
	all, long := 0, 0
	for _, li := range b {
		l := lines[li].words
		run := 1
		flush := func() {
			if run >= sentenceWords {
				long += run
			}
			run = 1
		}
		for k := 1; k < len(l); k++ {
			a, w := words[l[k-1]], words[l[k]]
			if w.X0-a.X1 > cellGap*min(a.Y1-a.Y0, w.Y1-w.Y0) {
				flush()
				continue
			}
			run++
		}
		flush()
		all += len(l)
	}
	return 10*long > 4*all
}

// labelColumn is the one of the two leftmost columns with the most cells of words (not figures), if that is a
// third of the body rows.
func labelColumn(t Table) int {
	body := t.Body()
	best, most := -1, 0
	for c := 0; c < min(2, t.Columns); c++ {
		n := 0
		for _, row := range body {
			if s := row[c].Text; s != "" && !startsWithFigure(s) && strings.IndexFunc(s, unicode.IsLetter) >= 0 {
				n++
			}
		}
		if 3*n >= len(body) && n > most {
			best, most = c, n
		}
	}
	return best
}

func lineText(words []kb.Word, l []int) string {
	parts := make([]string, len(l))
	for k, i := range l {
		parts[k] = words[i].Text
	}
	return strings.Join(parts, " ")
}

// attachCaptions gives each table the nearest caption above or below it, within four line heights and over it,
// each caption to one table. A caption runs on over the lines right under its first, closer than a line's height.
func attachCaptions(words []kb.Word, lines []line, used map[int]bool, ts []Table) {
	type pair struct {
		t, li int
		d     float64
		text  string
		box   Box
	}
	var pairs []pair
	for li, ln := range lines {
		if !ln.cap || used[li] {
			continue
		}
		box, text := ln.box, []string{lineText(words, ln.words)}
		for j := li + 1; j < len(lines) && j <= li+4; j++ {
			nx := lines[j]
			if nx.cap || nx.seed || used[j] || nx.box.Y0-lines[j-1].box.Y1 > 0.8*nx.h {
				break
			}
			box = box.union(nx.box)
			text = append(text, lineText(words, nx.words))
		}
		for ti, t := range ts {
			if min(box.X1, t.Box.X1) <= max(box.X0, t.Box.X0) {
				continue
			}
			d := t.Box.Y0 - box.Y1 // above
			if box.Y0 >= t.Box.Y0 {
				d = box.Y0 - t.Box.Y1 // below
			}
			if d >= -ln.h && d <= 4*ln.h {
				pairs = append(pairs, pair{ti, li, d, joinCaption(text), box})
			}
		}
	}
	slices.SortStableFunc(pairs, func(a, b pair) int { return cmp.Compare(a.d, b.d) })
	took := map[int]bool{}
	for _, p := range pairs {
		if ts[p.t].Caption != "" || took[p.li] {
			continue
		}
		took[p.li] = true
		ts[p.t].Caption, ts[p.t].CaptionBox = p.text, p.box
	}
}

// joinCaption joins a caption's lines, mending a word hyphenated at a line's end ("incorrectly-" "predicted").
func joinCaption(lines []string) string {
	var b strings.Builder
	for k, l := range lines {
		s := b.String()
		if k > 0 {
			if strings.HasSuffix(s, "-") && l != "" && unicode.IsLower([]rune(l)[0]) {
				b.Reset()
				b.WriteString(strings.TrimSuffix(s, "-"))
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(l)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
