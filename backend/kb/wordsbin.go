package kb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Word boxes are most of a library's bytes: as JSON a 2,415-page manual's took 79 MB, four fifths of its rows. They
// are stored in a compact binary form (a BLOB in units.words), little-endian:
//
//	0x00, kind (wordsF32 or wordsF64), uvarint count, then per word: uvarint length, text, x0, y0, x1, y1
//
// Coordinates are float32 when every one of the unit's converts to float32 and back unchanged (MuPDF's are float32),
// float64 otherwise (scaled OCR boxes), so a round trip is exact either way. No JSON text starts with 0x00: rows
// written as JSON by earlier versions are told apart and still read.
const (
	wordsMagic = 0x00
	wordsF32   = 1
	wordsF64   = 2
)

// encodeWordsBinary returns the stored form of words (nil for none: the column keeps its '[]').
func encodeWordsBinary(words []Word) ([]byte, error) {
	if len(words) == 0 {
		return nil, nil
	}
	kind := byte(wordsF32)
	size := 2 + binary.MaxVarintLen64
	for _, w := range words {
		for _, f := range [4]float64{w.X0, w.Y0, w.X1, w.Y1} {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("word %q: box coordinate %v is not a number", w.Text, f)
			}
			if float64(float32(f)) != f {
				kind = wordsF64
			}
		}
		size += binary.MaxVarintLen32 + len(w.Text) + 32
	}
	b := make([]byte, 0, size)
	b = append(b, wordsMagic, kind)
	b = binary.AppendUvarint(b, uint64(len(words)))
	for _, w := range words {
		b = binary.AppendUvarint(b, uint64(len(w.Text)))
		b = append(b, w.Text...)
		for _, f := range [4]float64{w.X0, w.Y0, w.X1, w.Y1} {
			if kind == wordsF32 {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(f)))
			} else {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
			}
		}
	}
	return b, nil
}

var errWordsCorrupt = errors.New("word boxes: stored form cut short or corrupt")

// decodeWordsBinary reads the stored form, keeping only the words keep accepts (all when nil); a rejected word's
// coordinates are skipped unread.
func decodeWordsBinary(s string, keep func(string) bool) ([]Word, error) {
	if len(s) < 2 || s[0] != wordsMagic {
		return nil, errWordsCorrupt
	}
	var width int
	switch s[1] {
	case wordsF32:
		width = 4
	case wordsF64:
		width = 8
	default:
		return nil, fmt.Errorf("word boxes: unknown stored kind %d", s[1])
	}
	p := s[2:]
	n, k := uvarint(p)
	if k <= 0 || n > uint64(len(p)) { // every word takes at least one byte
		return nil, errWordsCorrupt
	}
	p = p[k:]
	var out []Word
	if keep == nil {
		out = make([]Word, 0, n)
	} else {
		out = []Word{}
	}
	for range n {
		l, k := uvarint(p)
		if k <= 0 || l > uint64(len(p)-k) || len(p)-k-int(l) < 4*width {
			return nil, errWordsCorrupt
		}
		text := p[k : k+int(l)]
		p = p[k+int(l):]
		if keep != nil && !keep(text) {
			p = p[4*width:]
			continue
		}
		w := Word{Text: text}
		for _, dst := range [4]*float64{&w.X0, &w.Y0, &w.X1, &w.Y1} {
			if width == 4 {
				*dst = float64(math.Float32frombits(uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24))
			} else {
				*dst = math.Float64frombits(uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24 |
					uint64(p[4])<<32 | uint64(p[5])<<40 | uint64(p[6])<<48 | uint64(p[7])<<56)
			}
			p = p[width:]
		}
		out = append(out, w)
	}
	if len(p) != 0 {
		return nil, errWordsCorrupt
	}
	return out, nil
}

// uvarint is binary.Uvarint over a string, without copying it.
func uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}
