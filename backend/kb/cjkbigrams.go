package kb

import (
	"database/sql/driver"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"modernc.org/sqlite"
)

// The bigram index (units_fts_bigram) serves CJK questions. Chinese has no spaces, and a question shares mostly
// two-character words with the page that answers it ("鲁迅", "作品"), which a trigram index cannot match; so CJK
// text is indexed as its overlapping character pairs, each a separate token, and FTS5's BM25 weighs rare pairs
// over common ones, as word search does for English.

// bigramFunc is the SQL function the bigram index's triggers call; the kb package registers it for every
// connection of the "sqlite" driver in this process (a tool without it cannot write units holding CJK text).
const bigramFunc = "proofglass_cjk_bigrams"

func init() {
	err := sqlite.RegisterDeterministicScalarFunction(bigramFunc, 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return CJKBigramText(v), nil
		case []byte:
			return CJKBigramText(string(v)), nil
		case nil:
			return "", nil
		default:
			return nil, fmt.Errorf("%s: text expected, got %T", bigramFunc, v)
		}
	})
	if err != nil {
		panic(err)
	}
}

// IsCJKLetter reports whether r is written without spaces between words (Han, kana, Hangul): the characters the
// bigram index pairs.
func IsCJKLetter(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// CJKBigrams calls fn for every overlapping pair of characters of a CJK run, or for the run itself when it is one
// character; runs are the maximal sequences of IsCJKLetter characters of text.
func CJKBigrams(text string, fn func(string)) {
	start, n := -1, 0 // byte offset and length in characters of the current run
	prev := 0         // byte offset of the run's previous character
	flush := func() {
		if n == 1 {
			_, size := utf8.DecodeRuneInString(text[start:])
			fn(text[start : start+size])
		}
		start, n = -1, 0
	}
	for i, r := range text {
		if !IsCJKLetter(r) {
			if start >= 0 {
				flush()
			}
			continue
		}
		if start < 0 {
			start = i
		} else {
			fn(text[prev : i+utf8.RuneLen(r)])
		}
		prev = i
		n++
	}
	if start >= 0 {
		flush()
	}
}

// CJKBigramText is what the bigram index stores for a text: its CJK bigrams as separate tokens, and its other text
// as it is (unicode61 makes words of it), so a question mixing a name and Chinese ("zhlipsum 依赖哪些宏包")
// matches both in one ranking.
func CJKBigramText(text string) string {
	var b strings.Builder
	b.Grow(len(text) * 2)
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !IsCJKLetter(r) {
			b.WriteString(text[i : i+size])
			i += size
			continue
		}
		j := i + size
		for j < len(text) {
			r2, size2 := utf8.DecodeRuneInString(text[j:])
			if !IsCJKLetter(r2) {
				break
			}
			j += size2
		}
		b.WriteByte(' ')
		CJKBigrams(text[i:j], func(g string) { b.WriteString(g); b.WriteByte(' ') })
		i = j
	}
	return b.String()
}
