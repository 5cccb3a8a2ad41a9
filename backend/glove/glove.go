// Package glove is Proofglass's built-in offline text embedder: mean-pooled GloVe 6B 100-d word vectors.
package glove

import (
	"cmp"
	_ "embed"
	"fmt"
	"math"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"

	"proofglass/backend/glove/internal/tablefmt"
)

// Dim is the dimension of every vector this package returns.
const Dim = 100

// ModelID names the embedder in collections and vector rows; change it when the table or the pooling changes,
// so stored vectors made by an older version are re-embedded instead of mixed.
const ModelID = "builtin/glove-100d"

// tableFile is the 65,536 most frequent tokenizable GloVe words as float16; see internal/gentable and NOTICE.
//
//go:embed data/glove-100d.bin
var tableFile []byte

// Table is a loaded word-vector table.
type Table struct {
	words  []string
	index  map[string]int32 // a word's row, or ^row for a stop word: Embed skips those with the same lookup
	matrix []byte           // float16 rows aliasing the embedded file
	dim    int
	half   *[1 << 16]float32 // float16 → float32 for every bit pattern, so a row decodes with table lookups
}

var (
	defaultOnce  sync.Once
	defaultTable *Table
	defaultErr   error
)

// Default returns the embedded table, decoding it on first use (a few milliseconds; the matrix is not copied).
func Default() (*Table, error) {
	defaultOnce.Do(func() {
		defaultTable, defaultErr = Load(tableFile)
	})
	return defaultTable, defaultErr
}

// Load decodes a table file held in memory; the matrix keeps referring to b.
func Load(b []byte) (*Table, error) {
	tf, err := tablefmt.Read(b)
	if err != nil {
		return nil, fmt.Errorf("glove: load table: %w", err)
	}
	t := &Table{words: tf.Words, matrix: tf.Matrix, dim: tf.Dim, index: make(map[string]int32, len(tf.Words))}
	for i, w := range tf.Words {
		t.index[w] = int32(i)
		if IsStopWord(w) {
			t.index[w] = ^int32(i)
		}
	}
	t.half = halfTable()
	return t, nil
}

var (
	halfOnce sync.Once
	halfLUT  *[1 << 16]float32
)

func halfTable() *[1 << 16]float32 {
	halfOnce.Do(func() {
		halfLUT = new([1 << 16]float32)
		for i := range halfLUT {
			halfLUT[i] = tablefmt.FromHalf(uint16(i))
		}
	})
	return halfLUT
}

// Dim returns the vector dimension.
func (t *Table) Dim() int { return t.dim }

// Len returns the number of words in the table.
func (t *Table) Len() int { return len(t.words) }

// Word returns the i-th word of the table; words are in descending corpus frequency.
func (t *Table) Word(i int) string { return t.words[i] }

// row is word's row in the table, stop word or not.
func (t *Table) row(word string) (int32, bool) {
	i, ok := t.index[word]
	if i < 0 {
		i = ^i
	}
	return i, ok
}

// Vector returns the raw GloVe vector of word (already lower-case) and whether the table holds it.
func (t *Table) Vector(word string) ([]float32, bool) {
	i, ok := t.row(word)
	if !ok {
		return nil, false
	}
	v := make([]float32, t.dim)
	t.addRow(v, i)
	return v, true
}

func (t *Table) addRow(dst []float32, i int32) {
	row := t.matrix[int(i)*2*t.dim : (int(i)+1)*2*t.dim]
	half := t.half
	row = row[:2*len(dst)] // one bounds check for the loop
	for j := range dst {
		dst[j] += half[uint16(row[2*j])|uint16(row[2*j+1])<<8]
	}
}

// Embed returns the L2-normalised mean of the vectors of text's known, non-stop word tokens. A text with no such
// token (empty, only stop words, or words GloVe lacks, such as Chinese) gets the all-zero vector: it carries no
// dense signal, and its cosine with anything is 0, so such units are found through BM25 instead.
func (t *Table) Embed(text string) []float32 {
	v := make([]float32, t.dim)
	n := 0
	scanTokens(text, func(start, end int, lowered []byte) {
		if i := t.lookup(text, start, end, lowered); i >= 0 {
			t.addRow(v, i)
			n++
		}
	})
	return meanUnit(v, n)
}

// lookup is the row Embed adds for the token text[start:end] (lowered, when not nil, is its lower-case form), or
// -1 for an unknown or stop word.
func (t *Table) lookup(text string, start, end int, lowered []byte) int32 {
	var i int32
	var ok bool
	if lowered == nil {
		i, ok = t.index[text[start:end]]
	} else {
		i, ok = t.index[string(lowered)] // no copy: the conversion is only a map key
	}
	if !ok || i < 0 {
		return -1
	}
	return i
}

// Tokenized is a text tokenized once, so that many windows of it embed without tokenizing and looking up their
// words again: ingest embeds each page whole and as overlapping passages, which made three lookups of every word.
type Tokenized struct {
	t    *Table
	text string
	toks []tokenRow
}

// tokenRow is one token of the text (known or not) and the row Embed adds for it (-1 for none).
type tokenRow struct {
	start, end int32
	row        int32
}

// Tokenize prepares text for Tokenized.Embed.
func (t *Table) Tokenize(text string) *Tokenized {
	d := &Tokenized{t: t, text: text, toks: make([]tokenRow, 0, len(text)/5+1)}
	scanTokens(text, func(start, end int, lowered []byte) {
		d.toks = append(d.toks, tokenRow{int32(start), int32(end), t.lookup(text, start, end, lowered)})
	})
	return d
}

// Embed returns exactly Table.Embed(text[start:end]): the same rows added in the same order. A window that cuts a
// token in two (whose part may be another word) is embedded from its own text instead.
func (d *Tokenized) Embed(start, end int) []float32 {
	toks := d.toks
	lo, _ := slices.BinarySearchFunc(toks, start, func(tk tokenRow, s int) int { return cmp.Compare(int(tk.end), s+1) })
	hi, _ := slices.BinarySearchFunc(toks, end, func(tk tokenRow, e int) int { return cmp.Compare(int(tk.end), e+1) })
	// lo: the first token ending after start; hi: the first ending after end.
	if (lo < len(toks) && int(toks[lo].start) < start) || (hi < len(toks) && int(toks[hi].start) < end) {
		return d.t.Embed(d.text[start:end])
	}
	v := make([]float32, d.t.dim)
	n := 0
	for _, tk := range toks[lo:hi] {
		if tk.row >= 0 {
			d.t.addRow(v, tk.row)
			n++
		}
	}
	return meanUnit(v, n)
}

// meanUnit turns a sum of n word vectors into their mean scaled to unit length, in place (all zeros stay zeros).
func meanUnit(v []float32, n int) []float32 {
	if n == 0 {
		return v
	}
	var ss float64
	for j := range v {
		v[j] /= float32(n)
		ss += float64(v[j]) * float64(v[j])
	}
	if ss == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(ss))
	for j := range v {
		v[j] *= inv
	}
	return v
}

// Tokens calls fn with each word token of text in order: a maximal run of Unicode letters and digits, lower-cased.
// Everything else (spaces, punctuation, symbols, marks) separates tokens.
func Tokens(text string, fn func(tok string)) {
	scanTokens(text, func(start, end int, lowered []byte) {
		if lowered == nil {
			fn(text[start:end])
		} else {
			fn(string(lowered))
		}
	})
}

// scanTokens calls fn with the byte range of each token of text (as Tokens defines them) and, when the token is
// not already lower-case, its lower-case form (valid during the call only); lowered is nil otherwise.
func scanTokens(text string, fn func(start, end int, lowered []byte)) {
	var buf []byte
	start := -1
	lower := true // the run so far is already lower-case: pass a substring of text without copying
	flush := func(end int) {
		if start < 0 {
			return
		}
		if lower {
			fn(start, end, nil)
		} else {
			fn(start, end, buf)
		}
		start, lower, buf = -1, true, buf[:0]
	}
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			// ASCII, most of any English text, without decoding or the Unicode tables: the same classes.
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				if start < 0 {
					start = i
				}
				if !lower {
					buf = append(buf, c)
				}
			case 'A' <= c && c <= 'Z':
				if start < 0 {
					start = i
				}
				if lower {
					lower = false
					buf = append(buf[:0], text[start:i]...)
				}
				buf = append(buf, c+'a'-'A')
			default:
				flush(i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if !tablefmt.IsWordRune(r) {
			flush(i)
			i += size
			continue
		}
		if start < 0 {
			start = i
		}
		lr := unicode.ToLower(r)
		if lower && lr != r {
			lower = false
			buf = append(buf[:0], text[start:i]...)
		}
		if !lower {
			buf = utf8.AppendRune(buf, lr)
		}
		i += size
	}
	flush(len(text))
}
