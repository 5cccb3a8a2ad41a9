package questioner

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// page is what the question writers read of one input page.
type page struct {
	zh     bool       // a Chinese page: its questions use Chinese templates
	blocks [][]string // the text's blocks in reading order, line by line
	paras  []string   // the same blocks, lines joined and hyphenation undone
	lines  []line     // the word boxes grouped into lines, top to bottom (none without boxes)
	doc    docName    // how a question may name the document
	// tableTopics are the topics of the page's table captions by table number, from the captions' blocks.
	tableTopics map[string]string
}

// readPage prepares a page, or returns nil for one with too little text to ask about.
func readPage(p Page) *page {
	text := p.Unit.Text
	if strings.TrimSpace(text) == "" && len(p.Unit.Words) > 0 {
		var ws []string
		for _, w := range p.Unit.Words {
			ws = append(ws, w.Text)
		}
		text = strings.Join(ws, " ")
	}
	latin, han := countWords(text)
	if latin+han < minPageWords {
		return nil
	}
	pg := &page{zh: han >= 10 && 2*han >= latin}
	pg.blocks = splitBlocks(text)
	for _, block := range pg.blocks {
		pg.paras = append(pg.paras, joinLines(block))
	}
	pg.lines = pageLines(p.Unit.Words)
	pg.tableTopics = map[string]string{}
	for _, s := range pg.paras {
		if c, ok := readCaption(s); ok && c.table {
			pg.tableTopics[c.number] = captionTopic(s)
		}
	}
	pg.doc = newDocName(p.Facets, p.DocumentName)
	return pg
}

// countWords counts a text's words: runs of letters or digits, and each Han character on its own, since Chinese
// writes no spaces and a character is nearer a word than a sentence is.
func countWords(s string) (latin, han int) {
	in := false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Han, r):
			han++
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !in {
				latin++
			}
			in = true
		default:
			in = false
		}
	}
	return latin, han
}

// splitBlocks splits a text at blank lines: the ingest writes one block of lines per text block of the page.
func splitBlocks(text string) [][]string {
	var out [][]string
	var cur []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, l)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// joinLines joins a block's lines into one text: Chinese lines without a space, and a word broken over two lines
// with a hyphen made whole again ("uncondi-" "tional") unless both halves are words GloVe knows and the whole is
// not ("interval-" "censored").
func joinLines(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		if i == 0 {
			b.WriteString(l)
			continue
		}
		prev := b.String()
		last, _ := utf8.DecodeLastRuneInString(prev)
		first, _ := utf8.DecodeRuneInString(l)
		switch {
		case strings.HasSuffix(prev, "-") && unicode.IsLower(first) && len(prev) > 1:
			head := strings.ToLower(trimPunct(lastWord(prev[:len(prev)-1])))
			tail := strings.ToLower(trimPunct(firstWord(l)))
			if knownWord(head+tail) || !knownWord(head) || !knownWord(tail) {
				b.Reset()
				b.WriteString(prev[:len(prev)-1])
			}
		case isCJK(last) || isCJK(first):
		default:
			b.WriteByte(' ')
		}
		b.WriteString(l)
	}
	return b.String()
}

func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// isCJK reports Han characters and the full-width punctuation Chinese text writes between them.
func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF
}

// hasHan reports whether s holds a Han character.
func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// hasLetter reports whether s holds a letter.
func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// trimPunct strips the punctuation and brackets around a word.
func trimPunct(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
