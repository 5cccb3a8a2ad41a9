package groundeval

import (
	"strings"
	"unicode"

	"proofglass/backend/kb"
)

// sheet lays text out on a US Letter page as a PDF's text layer gives it: lines top to bottom, words left to right,
// each word's box as wide as its letters at 10 points.
type sheet struct {
	u     kb.Unit
	y     float64
	lines []string
}

const (
	pageW, pageH = 612.0, 792.0
	lineStep     = 14.0
	fontSize     = 10.0
)

func newSheet(ordinal int) *sheet {
	return &sheet{u: kb.Unit{ID: int64(ordinal), Ordinal: ordinal, Kind: "page", Width: pageW, Height: pageH,
		TextSource: kb.TextLayer}, y: 60}
}

func wordWidth(w string) float64 {
	n := 0.0
	for _, r := range w {
		if unicode.Is(unicode.Han, r) || r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF {
			n += fontSize
		} else {
			n += fontSize * 0.55
		}
	}
	return n
}

// span is a run of words on one line: their indices and their box.
type span struct {
	first, last    int
	x0, y0, x1, y1 float64
}

// put writes text from x on the current line and returns its span.
func (s *sheet) put(x float64, text string) span {
	sp := span{first: len(s.u.Words), x0: x, y0: s.y, y1: s.y + fontSize}
	for _, w := range strings.Fields(text) {
		wd := wordWidth(w)
		s.u.Words = append(s.u.Words, kb.Word{Text: w, X0: x, Y0: s.y, X1: x + wd, Y1: s.y + fontSize})
		x += wd + fontSize*0.3
		sp.x1 = x
	}
	sp.last = len(s.u.Words) - 1
	return sp
}

// row writes cells at the given x positions on one line and moves to the next; it returns the line's span and
// each cell's.
func (s *sheet) row(xs []float64, cells ...string) (span, []span) {
	var spans []span
	line := span{first: len(s.u.Words), x0: pageW, y0: s.y, y1: s.y + fontSize}
	for i, c := range cells {
		if c == "" {
			continue
		}
		sp := s.put(xs[i], c)
		spans = append(spans, sp)
		line.x0, line.x1 = min(line.x0, sp.x0), max(line.x1, sp.x1)
	}
	line.last = len(s.u.Words) - 1
	s.lines = append(s.lines, strings.Join(cells, " "))
	s.y += lineStep
	return line, spans
}

// para writes prose as lines of at most 90 letters.
func (s *sheet) para(text string) {
	var cur []string
	n := 0
	flush := func() {
		if len(cur) > 0 {
			s.row([]float64{60}, strings.Join(cur, " "))
			cur, n = nil, 0
		}
	}
	for _, w := range strings.Fields(text) {
		if n+len(w) > 90 {
			flush()
		}
		cur = append(cur, w)
		n += len(w) + 1
	}
	flush()
	s.y += lineStep / 2
}

// region is a span's box as 0..1 of the page, with a little margin, as an agent's crop of the row would be.
func (sp span) region() *[4]float64 {
	return &[4]float64{max(0, (sp.x0-4)/pageW), max(0, (sp.y0-3)/pageH), min(1, (sp.x1+4)/pageW), min(1, (sp.y1+3)/pageH)}
}

func (s *sheet) unit() kb.Unit {
	u := s.u
	u.Text = strings.Join(s.lines, "\n")
	return u
}
