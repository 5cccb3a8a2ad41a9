// Package termsafe escapes the control characters of text shown on a terminal (file names, document text, model output), so that none of it can recolour, retitle or clear the terminal or forge a line of output.
package termsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Line returns s for one line of output (a name, a table cell): every control character, line breaks and tabs
// included, is written as an escape (\x1b, \r, \n, \u202e), and so is each byte that is not UTF-8 (\xff).
func Line(s string) string { return escape(s, false) }

// Text returns s for text that spans lines (an answer, a snippet): as Line, but line breaks and tabs stay.
func Text(s string) string { return escape(s, true) }

func escape(s string, keepLayout bool) string {
	i := firstUnsafe(s, keepLayout)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !unsafe(r, keepLayout):
			b.WriteString(s[i : i+n])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	return b.String()
}

// firstUnsafe is the byte offset of the first character to escape, or -1.
func firstUnsafe(s string, keepLayout bool) int {
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < 0x7f { // printable ASCII: most of every name
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafe(r, keepLayout) || (r == utf8.RuneError && n == 1) {
			return i
		}
		i += n
	}
	return -1
}

// unsafe reports whether r must be escaped: C0 controls and DEL (ESC starts every terminal sequence, \r rewrites a
// line, BEL ends an OSC title), C1 controls (U+009B is a one-character CSI on some terminals), and the bidirectional
// overrides and isolates that reorder what a line appears to say.
func unsafe(r rune, keepLayout bool) bool {
	switch {
	case keepLayout && (r == '\n' || r == '\t'):
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
