// Package tablefmt reads and writes the built-in embedder's word-vector table file.
package tablefmt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"unicode"
)

// Magic opens every table file; the trailing digit is the format version.
const Magic = "LOUPEGV1"

// Layout, all integers little-endian:
//
//	magic    [8]byte  "LOUPEGV1"
//	count    uint32   number of words
//	dim      uint32   vector dimension
//	vocab    count × (uint8 length, bytes)   UTF-8 words in table order (most frequent first)
//	pad      0–1 zero bytes so the matrix starts at an even offset
//	matrix   count × dim × uint16            IEEE 754 half-precision floats, row-major
//	crc      uint32   CRC-32 (IEEE) of everything before it
//
// The matrix is kept as raw half floats so a reader can use the bytes in place (zero-copy from go:embed).

// Table is a decoded table. Matrix aliases the input bytes: Row(i) decodes on demand.
type Table struct {
	Words  []string
	Dim    int
	Matrix []byte // count × dim × 2 bytes of little-endian float16
}

// IsWordRune reports whether r belongs to a word token. The tokenizer and the generator share it so the table
// only holds words the tokenizer can produce.
func IsWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// Write encodes words and their float32 vectors (each of length dim) as a table file.
func Write(w io.Writer, words []string, vecs [][]float32, dim int) error {
	if len(words) != len(vecs) {
		return fmt.Errorf("tablefmt: %d words but %d vectors", len(words), len(vecs))
	}
	h := crc32.NewIEEE()
	out := io.MultiWriter(w, h)
	var hdr [16]byte
	copy(hdr[:8], Magic)
	binary.LittleEndian.PutUint32(hdr[8:], uint32(len(words)))
	binary.LittleEndian.PutUint32(hdr[12:], uint32(dim))
	if _, err := out.Write(hdr[:]); err != nil {
		return fmt.Errorf("tablefmt: write header: %w", err)
	}
	n := len(hdr)
	for _, word := range words {
		if len(word) == 0 || len(word) > 255 {
			return fmt.Errorf("tablefmt: word %q: length %d outside 1..255 bytes", word, len(word))
		}
		if _, err := out.Write(append([]byte{byte(len(word))}, word...)); err != nil {
			return fmt.Errorf("tablefmt: write vocabulary: %w", err)
		}
		n += 1 + len(word)
	}
	if n%2 == 1 {
		if _, err := out.Write([]byte{0}); err != nil {
			return fmt.Errorf("tablefmt: write padding: %w", err)
		}
	}
	row := make([]byte, 2*dim)
	for i, v := range vecs {
		if len(v) != dim {
			return fmt.Errorf("tablefmt: vector of %q has %d values, want %d", words[i], len(v), dim)
		}
		for j, x := range v {
			binary.LittleEndian.PutUint16(row[2*j:], ToHalf(x))
		}
		if _, err := out.Write(row); err != nil {
			return fmt.Errorf("tablefmt: write matrix: %w", err)
		}
	}
	var crc [4]byte
	binary.LittleEndian.PutUint32(crc[:], h.Sum32())
	if _, err := w.Write(crc[:]); err != nil {
		return fmt.Errorf("tablefmt: write checksum: %w", err)
	}
	return nil
}

// ErrCorrupt reports a table file that does not follow the layout or fails its checksum.
var ErrCorrupt = errors.New("tablefmt: corrupt table")

// Read decodes a table file held in memory. The returned Matrix aliases b.
func Read(b []byte) (*Table, error) {
	if len(b) < 20 || string(b[:8]) != Magic {
		return nil, fmt.Errorf("%w: bad magic or short file (%d bytes)", ErrCorrupt, len(b))
	}
	body := b[:len(b)-4]
	if got, want := crc32.ChecksumIEEE(body), binary.LittleEndian.Uint32(b[len(b)-4:]); got != want {
		return nil, fmt.Errorf("%w: checksum %08x, want %08x", ErrCorrupt, got, want)
	}
	count := int(binary.LittleEndian.Uint32(body[8:]))
	dim := int(binary.LittleEndian.Uint32(body[12:]))
	if dim <= 0 || dim > 1<<16 {
		return nil, fmt.Errorf("%w: dimension %d", ErrCorrupt, dim)
	}
	t := &Table{Words: make([]string, 0, count), Dim: dim}
	p := 16
	for range count {
		if p >= len(body) {
			return nil, fmt.Errorf("%w: vocabulary truncated", ErrCorrupt)
		}
		l := int(body[p])
		if l == 0 || p+1+l > len(body) {
			return nil, fmt.Errorf("%w: bad word length at offset %d", ErrCorrupt, p)
		}
		t.Words = append(t.Words, string(body[p+1:p+1+l]))
		p += 1 + l
	}
	p += p % 2
	if len(body)-p != count*dim*2 {
		return nil, fmt.Errorf("%w: matrix has %d bytes, want %d", ErrCorrupt, len(body)-p, count*dim*2)
	}
	t.Matrix = body[p:]
	return t, nil
}

// ToHalf converts f to the nearest IEEE 754 half-precision value (round half to even; overflow saturates to ±Inf).
func ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b&0x7fffffff == 0:
		return sign
	case exp >= 0x1f: // overflow, Inf or NaN
		if b&0x7f800000 == 0x7f800000 && mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp <= 0: // subnormal half or zero
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint(14 - exp)
		h := mant >> shift
		rem := mant & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // may carry into the exponent, which is still correct rounding (up to Inf)
	}
	return sign | uint16(h)
}

// FromHalf converts an IEEE 754 half-precision value to float32 exactly.
func FromHalf(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h >> 10 & 0x1f)
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		// subnormal: value = mant × 2^-24
		f := float32(mant) * (1.0 / (1 << 24))
		if sign != 0 {
			return -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}
