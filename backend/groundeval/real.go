package groundeval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"proofglass/backend/grounding"
	"proofglass/backend/ingest"
	"proofglass/backend/kb"
)

// Ingest reads real files through Proofglass's own ingest (text layer, no OCR) into a scratch knowledge base and
// returns their pages with word boxes. A file that cannot be ingested is an error naming it.
func Ingest(ctx context.Context, paths []string) ([]Doc, error) {
	dir, err := os.MkdirTemp("", "proofglass-groundeval-")
	if err != nil {
		return nil, fmt.Errorf("scratch knowledge base: %w", err)
	}
	defer os.RemoveAll(dir)
	k, err := kb.Open(ctx, filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
	if err != nil {
		return nil, fmt.Errorf("scratch knowledge base: %w", err)
	}
	defer k.Close()
	in := ingest.New(k, nil, ingest.Options{NoOCR: true, Workers: 1})
	defer in.Close()
	res, err := in.Add(ctx, "eval", paths, nil)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	var docs []Doc
	for i, r := range res {
		if r.Error != "" {
			return nil, fmt.Errorf("ingest %s: %s", paths[i], r.Error)
		}
		units, err := k.Content.Units(ctx, r.Document.ID)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", paths[i], err)
		}
		docs = append(docs, Doc{Name: filepath.Base(paths[i]), Pages: units})
	}
	return docs, nil
}

// figureRE is a figure as a page's cell or sentence writes it: 1,234.5, 0.031, 12 %, (51 %), -3.2.
var figureRE = regexp.MustCompile(`^\(?-?\d{1,3}(?:,\d{3})*(?:\.\d+)?%?\)?[,;:]?$|^\(?-?\d+(?:\.\d+)?%?\)?[,;:]?$`)

// line is a run of a page's words on one baseline, left to right.
type line struct {
	words []kb.Word
	y     float64
}

// pageLines groups a page's words into lines by their vertical centre, independently of the check's own layout.
func pageLines(u kb.Unit) []line {
	ws := append([]kb.Word(nil), u.Words...)
	sort.SliceStable(ws, func(a, b int) bool { return ws[a].Y0+ws[a].Y1 < ws[b].Y0+ws[b].Y1 })
	var out []line
	for _, w := range ws {
		if w.X1 <= w.X0 || w.Y1 <= w.Y0 {
			continue
		}
		cy := (w.Y0 + w.Y1) / 2
		if n := len(out); n > 0 && cy-out[n-1].y < (w.Y1-w.Y0)*0.5 {
			out[n-1].words = append(out[n-1].words, w)
			continue
		}
		out = append(out, line{words: []kb.Word{w}, y: cy})
	}
	for _, l := range out {
		sort.Slice(l.words, func(a, b int) bool { return l.words[a].X0 < l.words[b].X0 })
	}
	return out
}

func letters(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// cleanFigure is a figure word without trailing punctuation, or a closing parenthesis it did not open.
func cleanFigure(s string) string {
	s = strings.TrimRight(s, ",;:.")
	if strings.HasSuffix(s, ")") && !strings.HasPrefix(s, "(") {
		s = strings.TrimSuffix(s, ")")
	}
	return s
}

// FromDocs builds cases from real pages: for table rows (a label, then figures after a wide gap) an answer naming
// the row's label states a cell, true and altered (a digit, two digits swapped, another row's cell of the same
// column, or the true cell citing another page); for sentences, the words before a figure and the figure. At most
// perDoc cases of each alteration are drawn from a document, at random by seed.
func FromDocs(docs []Doc, seed uint64, perDoc int) []Case {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x51ed270b27b1f3a5))}
	var out []Case
	for di, d := range docs {
		var drawn []Case
		for pi, u := range d.Pages {
			for _, c := range g.pageCases(d, di, pi, u) {
				// Only answers whose figure is read as written, and alterations that no word of the page has.
				if statesClaim(c.Answer, c.Claim) && (c.Alter == AlterNone || c.Alter == AlterPage || !pageHas(u, c.Claim)) {
					c.Context = "figures only"
					if namesWords(strings.TrimSuffix(c.Answer, c.Claim+".")) {
						c.Context = "words"
					}
					drawn = append(drawn, c)
				}
			}
		}
		g.r.Shuffle(len(drawn), func(a, b int) { drawn[a], drawn[b] = drawn[b], drawn[a] })
		count := map[string]int{}
		for _, c := range drawn {
			k := c.Form + "/" + c.Alter
			if count[k] < perDoc {
				count[k]++
				out = append(out, c)
			}
		}
	}
	return out
}

// pageCases are the cases one page offers.
func (g *gen) pageCases(d Doc, di, pi int, u kb.Unit) []Case {
	var out []Case
	add := func(form, alter, answer, claim, truth string, page int, region *[4]float64) {
		out = append(out, Case{Set: d.Name, Form: form, Alter: alter, Answer: answer, Claim: claim, Truth: truth,
			Doc: di, Page: page, Region: region})
	}
	other := -1
	if len(d.Pages) > 1 {
		other = (pi + 1 + g.r.IntN(len(d.Pages)-1)) % len(d.Pages)
	}
	lines := pageLines(u)
	for li, l := range lines {
		label, cells, gapAt := rowParts(l)
		onLine := map[string]bool{}
		for _, w := range l.words {
			onLine[cleanFigure(w.Text)] = true
		}
		if gapAt > 0 && len(label) >= 2 && len(cells) > 0 {
			// A table row: the answer names the label and states its first cell.
			cell := cells[0]
			fig := cleanFigure(cell.Text)
			if !figureRE.MatchString(fig) || isYear(fig) {
				continue
			}
			name := strings.Join(label, " ")
			say := func(f string) string { return fmt.Sprintf("The table gives %s: %s.", name, f) }
			region := &[4]float64{max(0, (l.words[0].X0-4)/u.Width), max(0, (cell.Y0-3)/u.Height),
				min(1, (cell.X1+4)/u.Width), min(1, (cell.Y1+3)/u.Height)}
			if li%2 == 1 {
				region = nil
			}
			add("table-row", AlterNone, say(fig), fig, fig, pi, region)
			if alt := g.alterDigit(fig); alt != "" && !onLine[alt] {
				add("table-row", AlterDigit, say(alt), alt, fig, pi, region)
			}
			if alt := g.swapDigits(fig); alt != "" && !onLine[alt] {
				add("table-row", AlterSwap, say(alt), alt, fig, pi, region)
			}
			if o := columnNeighbour(lines, li, cell); o != "" && o != fig && !onLine[o] {
				add("table-row", AlterRow, say(o), o, fig, pi, region)
			}
			if other >= 0 && !pageHas(d.Pages[other], fig) {
				add("table-row", AlterPage, say(fig), fig, fig, other, nil)
			}
			continue
		}
		// A sentence: the five words before a figure, and the figure.
		for wi, w := range l.words {
			fig := cleanFigure(w.Text)
			if wi < 3 || !figureRE.MatchString(fig) || isYear(fig) || strings.HasSuffix(w.Text, ".") && !strings.Contains(fig, ".") {
				continue
			}
			// The words before it in its own column: a two-column page's line holds two sentences.
			var before []string
			for j := wi - 1; j >= 0 && j >= wi-5; j-- {
				if gap := l.words[j+1].X0 - l.words[j].X1; gap > 1.5*(l.words[j].Y1-l.words[j].Y0) {
					break
				}
				before = append([]string{l.words[j].Text}, before...)
			}
			lead := strings.Join(before, " ")
			if !letters(lead) {
				continue
			}
			say := func(f string) string { return fmt.Sprintf("The document says %s %s.", lead, f) }
			add("prose", AlterNone, say(fig), fig, fig, pi, nil)
			if alt := g.alterDigit(fig); alt != "" && !onLine[alt] {
				add("prose", AlterDigit, say(alt), alt, fig, pi, nil)
			}
			break
		}
	}
	return out
}

// rowParts splits a line into a label (its leading words with letters), the figure words after the first wide gap,
// and the index of that gap (0 when there is none).
func rowParts(l line) ([]string, []kb.Word, int) {
	var label []string
	for i, w := range l.words {
		if i > 0 && w.X0-l.words[i-1].X1 > 1.5*(w.Y1-w.Y0) {
			var cells []kb.Word
			for _, c := range l.words[i:] {
				if !figureRE.MatchString(cleanFigure(c.Text)) {
					return nil, nil, 0
				}
				cells = append(cells, c)
			}
			return label, cells, i
		}
		if !letters(w.Text) {
			return nil, nil, 0
		}
		label = append(label, w.Text)
	}
	return nil, nil, 0
}

// columnNeighbour is the figure of the nearest other line whose word stands over cell (the same column).
func columnNeighbour(lines []line, li int, cell kb.Word) string {
	for d := 1; d < 6; d++ {
		for _, j := range []int{li - d, li + d} {
			if j < 0 || j >= len(lines) {
				continue
			}
			for _, w := range lines[j].words {
				if w.X0 <= cell.X1 && cell.X0 <= w.X1 && figureRE.MatchString(cleanFigure(w.Text)) && !isYear(cleanFigure(w.Text)) {
					return cleanFigure(w.Text)
				}
			}
		}
	}
	return ""
}

func isYear(s string) bool {
	return len(s) == 4 && (strings.HasPrefix(s, "19") || strings.HasPrefix(s, "20")) && !strings.ContainsAny(s, ".,%")
}

// namesWords reports whether an answer names something beside its figure: a word of three letters or more other
// than the frame every built answer shares ("The table gives", "The document says").
func namesWords(answer string) bool {
	answer = strings.TrimPrefix(strings.TrimPrefix(answer, "The table gives "), "The document says ")
	run := 0
	for _, r := range answer {
		if unicode.IsLetter(r) && r < 0x2E80 {
			run++
			if run >= 3 {
				return true
			}
			continue
		}
		if unicode.Is(unicode.Han, r) {
			return true
		}
		run = 0
	}
	return false
}

// statesClaim reports whether the answer's claims include the figure as written: an answer whose figure reads as
// part of a date or a reference ("Figure 5") judges nothing.
func statesClaim(answer, claim string) bool {
	for _, c := range grounding.Extract(answer) {
		if strings.TrimSpace(c.Text) == claim {
			return true
		}
	}
	return false
}

// pageHas reports whether a page's text holds the figure as a word.
func pageHas(u kb.Unit, fig string) bool {
	for _, w := range strings.Fields(u.Text) {
		if strings.Trim(w, "()[]{}<>,.;:!?\"'") == strings.Trim(fig, "()[]{}<>,.;:") {
			return true
		}
	}
	return false
}
