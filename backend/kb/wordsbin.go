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
//	0x00, kind, uvarint count, then per word:
//	  wordsF64:   uvarint length, text, x0, y0, x1, y1 (float64)
//	  wordsLines: uvarint length<<1 | same, text, x0, x1, and y0, y1 unless same (float32)
//	  wordsF32:   uvarint length, text, x0, y0, x1, y1 (float32; written by earlier versions, still read)
//
// Coordinates are float32 when every one of the unit's converts to float32 and back unchanged (MuPDF's are float32),
// float64 otherwise (scaled OCR boxes), so a round trip is exact either way. In wordsLines, same is 1 when the word's
// y0 and y1 are the previous word's: the words of a text line mostly share them (seven in eight on a manual's
// pages), and leaving them out makes a page's boxes a third smaller, so fewer database pages are written per unit
// at ingest (they were a tenth of the storing process's CPU) and read per search hit. No JSON text starts with
// 0x00: rows written as JSON by earlier versions are told apart and still read.
const (
	wordsMagic = 0x00
	wordsF32   = 1
	wordsF64   = 2
	wordsLines = 3
)

// encodeWordsBinary returns the stored form of words (nil for none: the column keeps its '[]'): wordsLines when every
// coordinate is a float32, else wordsF64.
func encodeWordsBinary(words []Word) ([]byte, error) {
	each := func(yield func(string, float64, float64, float64, float64)) {
		for _, w := range words {
			yield(w.Text, w.X0, w.Y0, w.X1, w.Y1)
		}
	}
	size := 0
	for _, w := range words {
		size += binary.MaxVarintLen32 + len(w.Text) + 16
	}
	if b, ok, err := encodeWordLines(size, each); ok || err != nil {
		return b, err
	}
	return encodeWordsF64(each)
}

// EncodeWords returns the stored form of the words each yields, in order: the bytes storing them as Unit.Words
// writes, for Unit.EncodedWords. sizeHint is about the bytes the words take (their text and 17 bytes more each
// suffice); text need only be valid during a yield. each is called once when every coordinate is a float32 (as
// MuPDF's are), else twice. It fails on a coordinate that is not a number.
func EncodeWords(sizeHint int, each func(yield func(text []byte, x0, y0, x1, y1 float64))) ([]byte, error) {
	if b, ok, err := encodeWordLines(sizeHint, each); ok || err != nil {
		return b, err
	}
	return encodeWordsF64(each)
}

// encodeWordLines writes the wordsLines form in one pass over the words each yields. ok is false, and the caller
// must use encodeWordsF64, when a coordinate is not a float32. A coordinate that is not a number is an error, for
// the first such word, as encodeWordsF64 reports it.
func encodeWordLines[T string | []byte](sizeHint int, each func(yield func(text T, x0, y0, x1, y1 float64))) (b []byte, ok bool, err error) {
	// The words go after room for the header and the largest count, which is written before them at the end.
	const head = 2 + binary.MaxVarintLen64
	b = make([]byte, head, head+max(sizeHint, 0))
	count := 0
	exact := true
	var y0, y1 uint32
	each(func(text T, x0, wy0f, x1, wy1f float64) {
		if !exact || err != nil {
			return
		}
		for _, f := range [4]float64{x0, wy0f, x1, wy1f} {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				err = fmt.Errorf("word %q: box coordinate %v is not a number", text, f)
				return
			}
			if float64(float32(f)) != f {
				exact = false // encodeWordsF64 starts over (and still reports a later word's NaN)
				return
			}
		}
		wy0, wy1 := math.Float32bits(float32(wy0f)), math.Float32bits(float32(wy1f))
		same := uint64(0)
		if count > 0 && wy0 == y0 && wy1 == y1 {
			same = 1
		}
		y0, y1 = wy0, wy1
		b = binary.AppendUvarint(b, uint64(len(text))<<1|same)
		b = append(b, text...)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(x0)))
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(x1)))
		if same == 0 {
			b = binary.LittleEndian.AppendUint32(b, wy0)
			b = binary.LittleEndian.AppendUint32(b, wy1)
		}
		count++
	})
	switch {
	case err != nil:
		return nil, false, err
	case !exact:
		return nil, false, nil
	case count == 0:
		return nil, true, nil
	}
	var n [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(n[:], uint64(count))
	start := head - k - 2
	b[start], b[start+1] = wordsMagic, wordsLines
	copy(b[start+2:head], n[:k])
	return b[start:], true, nil
}

// encodeWordsF64 writes the wordsF64 form of the words each yields, for words encodeWordLines could not write (a
// coordinate that is not a float32). each is called twice: once to size and check, once to write.
func encodeWordsF64[T string | []byte](each func(yield func(text T, x0, y0, x1, y1 float64))) ([]byte, error) {
	size := 2 + binary.MaxVarintLen64
	count := 0
	var bad error
	each(func(text T, x0, y0, x1, y1 float64) {
		count++
		for _, f := range [4]float64{x0, y0, x1, y1} {
			if (math.IsNaN(f) || math.IsInf(f, 0)) && bad == nil {
				bad = fmt.Errorf("word %q: box coordinate %v is not a number", text, f)
			}
		}
		size += binary.MaxVarintLen32 + len(text) + 32
	})
	if bad != nil {
		return nil, bad
	}
	if count == 0 {
		return nil, nil
	}
	b := make([]byte, 0, size)
	b = append(b, wordsMagic, wordsF64)
	b = binary.AppendUvarint(b, uint64(count))
	each(func(text T, x0, y0, x1, y1 float64) {
		b = binary.AppendUvarint(b, uint64(len(text)))
		b = append(b, text...)
		for _, f := range [4]float64{x0, y0, x1, y1} {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
		}
	})
	return b, nil
}

var errWordsCorrupt = errors.New("word boxes: stored form cut short or corrupt")

// decodeWordsBinary reads the stored form, keeping only the words keep accepts (all when nil); a rejected word's
// coordinates are skipped unread.
func decodeWordsBinary(s string, keep func(string) bool) ([]Word, error) {
	if len(s) < 2 || s[0] != wordsMagic {
		return nil, errWordsCorrupt
	}
	kind := s[1]
	if kind != wordsF32 && kind != wordsF64 && kind != wordsLines {
		return nil, fmt.Errorf("word boxes: unknown stored kind %d", kind)
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
	var y0, y1 float64 // wordsLines: the previous word's
	for i := range n {
		l, k := uvarint(p)
		if k <= 0 {
			return nil, errWordsCorrupt
		}
		p = p[k:]
		boxBytes := 32 // wordsF64
		same := false
		switch kind {
		case wordsF32:
			boxBytes = 16
		case wordsLines:
			same = l&1 == 1
			l >>= 1
			boxBytes = 16
			if same {
				if i == 0 {
					return nil, errWordsCorrupt
				}
				boxBytes = 8
			}
		}
		if l > uint64(len(p)) || len(p)-int(l) < boxBytes {
			return nil, errWordsCorrupt
		}
		text := p[:l]
		p = p[l:]
		box := p[:boxBytes]
		p = p[boxBytes:]
		if kind == wordsLines && !same {
			y0, y1 = f32At(box, 8), f32At(box, 12)
		}
		if keep != nil && !keep(text) {
			continue
		}
		w := Word{Text: text}
		switch kind {
		case wordsF64:
			w.X0, w.Y0, w.X1, w.Y1 = f64At(box, 0), f64At(box, 8), f64At(box, 16), f64At(box, 24)
		case wordsF32:
			w.X0, w.Y0, w.X1, w.Y1 = f32At(box, 0), f32At(box, 4), f32At(box, 8), f32At(box, 12)
		default:
			w.X0, w.Y0, w.X1, w.Y1 = f32At(box, 0), y0, f32At(box, 4), y1
		}
		out = append(out, w)
	}
	if len(p) != 0 {
		return nil, errWordsCorrupt
	}
	return out, nil
}

// f32At reads the little-endian float32 at s[i:].
func f32At(s string, i int) float64 {
	return float64(math.Float32frombits(uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24))
}

// f64At reads the little-endian float64 at s[i:].
func f64At(s string, i int) float64 {
	return math.Float64frombits(uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56)
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
