package pdf

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// parseStextXML reads MuPDF's structured-text XML (fz_print_stext_page_as_xml: block > line > font > char, each
// char with its quad) and returns the page text (lines joined by newlines, blocks separated by a blank line) and
// the words with boxes shifted by (-ox, -oy) so they are relative to the page's top-left corner.
//
// The XML is machine-written with a fixed attribute order, so a byte scanner is used instead of encoding/xml,
// which was the slowest step of extraction.
func parseStextXML(b []byte, ox, oy float64) (string, []Word) {
	var (
		text       strings.Builder
		words      []Word
		cur        []byte // current word's text
		box        Box
		inWord     bool
		line       = -1
		firstBlock = true
		firstLine  = true
	)
	flush := func() {
		if inWord && len(cur) > 0 {
			words = append(words, Word{Text: string(cur), Box: box, Line: line})
		}
		cur = cur[:0]
		inWord = false
	}
	for {
		i := bytes.IndexByte(b, '<')
		if i < 0 {
			break
		}
		b = b[i+1:]
		switch {
		case bytes.HasPrefix(b, []byte("block ")):
			flush()
			if !firstBlock {
				text.WriteString("\n\n")
			}
			firstBlock = false
			firstLine = true
		case bytes.HasPrefix(b, []byte("line ")):
			flush()
			line++
			if !firstLine {
				text.WriteString("\n")
			}
			firstLine = false
			if v, ok := attr(b, "text"); ok {
				text.WriteString(unescapeXML(v))
			}
		case bytes.HasPrefix(b, []byte("char ")):
			c, _ := attr(b, "c")
			ch := unescapeXML(c)
			r, _ := utf8.DecodeRuneInString(ch)
			if ch == "" || unicode.IsSpace(r) {
				flush()
				continue
			}
			q, _ := attr(b, "quad")
			cb, ok := quadBox(q)
			if !ok {
				continue
			}
			cb = Box{cb.X0 - ox, cb.Y0 - oy, cb.X1 - ox, cb.Y1 - oy}
			if isCJK(r) {
				// CJK text has no spaces: each ideograph is its own word so a search hit maps to a tight box.
				flush()
				words = append(words, Word{Text: ch, Box: cb, Line: line})
				continue
			}
			if !inWord {
				box = cb
				inWord = true
			} else {
				box = box.Union(cb)
			}
			cur = append(cur, ch...)
		case bytes.HasPrefix(b, []byte("/line")):
			flush()
		}
	}
	flush()
	return text.String(), words
}

// attr returns the raw value of name="..." in the tag starting at b.
func attr(b []byte, name string) ([]byte, bool) {
	end := bytes.IndexByte(b, '>')
	if end < 0 {
		end = len(b)
	}
	tag := b[:end]
	key := make([]byte, 0, len(name)+3)
	key = append(key, ' ')
	key = append(key, name...)
	key = append(key, '=', '"')
	i := bytes.Index(tag, key)
	if i < 0 {
		return nil, false
	}
	v := tag[i+len(key):]
	j := bytes.IndexByte(v, '"')
	if j < 0 {
		return nil, false
	}
	return v[:j], true
}

func unescapeXML(v []byte) string {
	if bytes.IndexByte(v, '&') < 0 {
		return string(v)
	}
	var sb strings.Builder
	for len(v) > 0 {
		i := bytes.IndexByte(v, '&')
		if i < 0 {
			sb.Write(v)
			break
		}
		sb.Write(v[:i])
		v = v[i:]
		j := bytes.IndexByte(v, ';')
		if j < 0 {
			sb.Write(v)
			break
		}
		ent := string(v[1:j])
		v = v[j+1:]
		switch ent {
		case "amp":
			sb.WriteByte('&')
		case "lt":
			sb.WriteByte('<')
		case "gt":
			sb.WriteByte('>')
		case "quot":
			sb.WriteByte('"')
		case "apos":
			sb.WriteByte('\'')
		default:
			var n uint64
			var err error
			switch {
			case strings.HasPrefix(ent, "#x"):
				n, err = strconv.ParseUint(ent[2:], 16, 32)
			case strings.HasPrefix(ent, "#"):
				n, err = strconv.ParseUint(ent[1:], 10, 32)
			default:
				err = strconv.ErrSyntax
			}
			if err == nil && n != 0 {
				sb.WriteRune(rune(n))
			}
		}
	}
	return sb.String()
}

// quadBox parses the 8 numbers of a quad (ul, ur, ll, lr corners) into its bounding box.
func quadBox(q []byte) (Box, bool) {
	b := Box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for k := 0; k < 8; k++ {
		for len(q) > 0 && q[0] == ' ' {
			q = q[1:]
		}
		n := bytes.IndexByte(q, ' ')
		if n < 0 {
			n = len(q)
		}
		f, ok := parseNum(q[:n])
		if !ok {
			return Box{}, false
		}
		q = q[n:]
		if k%2 == 0 {
			b.X0, b.X1 = math.Min(b.X0, f), math.Max(b.X1, f)
		} else {
			b.Y0, b.Y1 = math.Min(b.Y0, f), math.Max(b.Y1, f)
		}
	}
	return b, true
}

// parseNum parses the plain decimals MuPDF prints, falling back to strconv for anything else.
func parseNum(s []byte) (float64, bool) {
	if len(s) == 0 {
		return 0, false
	}
	neg := false
	i := 0
	if s[0] == '-' {
		neg = true
		i++
	}
	var v float64
	digits := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		v = v*10 + float64(s[i]-'0')
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		scale := 0.1
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			v += float64(s[i]-'0') * scale
			scale /= 10
			digits++
		}
	}
	if i != len(s) || digits == 0 {
		f, err := strconv.ParseFloat(string(s), 64)
		return f, err == nil
	}
	if neg {
		v = -v
	}
	return v, true
}

func isCJK(r rune) bool {
	if r < 0x1100 { // below Hangul Jamo, the first of these scripts: most characters of most pages
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// Kinds of stextRec, as lp_char records them.
const (
	recBlock = 1
	recLine  = 2
	recChar  = 3
)

// stextRec is one record of the structured-text walk: a block start, a line start, or a character with its box.
type stextRec struct {
	kind int
	c    rune
	box  Box
}

// buildText turns the n records that rec returns, in page order, into the page text (lines joined by newlines,
// blocks separated by a blank line) and words with boxes shifted by (-ox, -oy), by the same rules as
// parseStextXML.
func buildText(n int, rec func(int) stextRec, ox, oy float64) (string, []Word) {
	var words []Word
	text := walkText(n, rec, ox, oy, make([]byte, 0, n), func(w []byte, b Box, line int) {
		words = append(words, Word{Text: string(w), Box: b, Line: line})
	})
	return string(text), words
}

// walkText is buildText with the text appended to text and each word handed to emit (its text is only valid
// during the call) instead of collected, so the worker can write both to the wire without making a string of the
// text, a Word and a string of each word.
func walkText(n int, rec func(int) stextRec, ox, oy float64, text []byte, emit func(text []byte, b Box, line int)) []byte {
	var (
		cur        []byte
		box        Box
		inWord     bool
		line       = -1
		firstBlock = true
		firstLine  = true
	)
	flush := func() {
		if inWord && len(cur) > 0 {
			emit(cur, box, line)
		}
		cur = cur[:0]
		inWord = false
	}
	for k := 0; k < n; k++ {
		r := rec(k)
		switch r.kind {
		case recBlock:
			flush()
			if !firstBlock {
				text = append(text, "\n\n"...)
			}
			firstBlock = false
			firstLine = true
		case recLine:
			flush()
			line++
			if !firstLine {
				text = append(text, '\n')
			}
			firstLine = false
		case recChar:
			ch := r.c
			if ch <= 0 || ch > unicode.MaxRune {
				flush()
				continue
			}
			if ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r' {
				// As MuPDF's XML output did: U+FFFD in the text for control characters, the raw ones in words.
				text = utf8.AppendRune(text, unicode.ReplacementChar)
			} else {
				text = utf8.AppendRune(text, ch)
			}
			if unicode.IsSpace(ch) {
				flush()
				continue
			}
			cb := Box{r.box.X0 - ox, r.box.Y0 - oy, r.box.X1 - ox, r.box.Y1 - oy}
			if isCJK(ch) {
				flush()
				cur = utf8.AppendRune(cur, ch)
				emit(cur, cb, line)
				cur = cur[:0]
				continue
			}
			if !inWord {
				box = cb
				inWord = true
			} else {
				box = box.Union(cb)
			}
			cur = utf8.AppendRune(cur, ch)
		}
	}
	flush()
	return text
}
