package tablefmt

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"
)

func TestHalfRoundTrip(t *testing.T) {
	// Every finite half value converts to float32 and back to itself.
	for h := 0; h < 1<<16; h++ {
		if h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
			continue // NaN payloads need not survive
		}
		if got := ToHalf(FromHalf(uint16(h))); got != uint16(h) {
			t.Fatalf("ToHalf(FromHalf(%#04x)) = %#04x", h, got)
		}
	}
}

func TestToHalf(t *testing.T) {
	cases := map[string]struct {
		in   float32
		want float32
	}{
		"one":       {1, 1},
		"negative":  {-2.5, -2.5},
		"rounding":  {0.1, 0.0999755859375},
		"glove":     {-0.038194, -0.0382080078125},
		"max":       {65504, 65504},
		"overflow":  {1e6, float32(math.Inf(1))},
		"subnormal": {1e-6, 1.013279e-06},
		"underflow": {1e-9, 0},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := FromHalf(ToHalf(c.in))
			if math.Abs(float64(got-c.want)) > 1e-9 && !(math.IsInf(float64(got), 1) && math.IsInf(float64(c.want), 1)) {
				t.Errorf("half(%v) = %v, want %v", c.in, got, c.want)
			}
		})
	}
}

func TestWriteRead(t *testing.T) {
	words := []string{"the", "cat", "kätzchen", "猫"}
	vecs := [][]float32{{1, 2, 3}, {-1, 0.5, 0}, {0.25, -0.125, 4}, {7, 8, 9}}
	var buf bytes.Buffer
	if err := Write(&buf, words, vecs, 3); err != nil {
		t.Fatal(err)
	}
	tb, err := Read(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tb.Words, words) || tb.Dim != 3 {
		t.Fatalf("read %q dim %d", tb.Words, tb.Dim)
	}
	for i, v := range vecs {
		for j, x := range v {
			h := uint16(tb.Matrix[2*(i*3+j)]) | uint16(tb.Matrix[2*(i*3+j)+1])<<8
			if FromHalf(h) != x {
				t.Errorf("vector %d[%d] = %v, want %v", i, j, FromHalf(h), x)
			}
		}
	}
}

func TestReadCorrupt(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, []string{"a", "bb"}, [][]float32{{1, 2}, {3, 4}}, 2); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	flip := slices.Clone(good)
	flip[len(flip)-6] ^= 0x40
	badMagic := slices.Clone(good)
	badMagic[0] = 'X'
	for name, b := range map[string][]byte{
		"flipped":   flip,
		"magic":     badMagic,
		"truncated": good[:len(good)-3],
		"empty":     nil,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Read(b); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Read = %v, want ErrCorrupt", err)
			}
		})
	}
}

func TestWriteRejects(t *testing.T) {
	cases := map[string]struct {
		words []string
		vecs  [][]float32
	}{
		"mismatch":  {[]string{"a"}, nil},
		"emptyword": {[]string{""}, [][]float32{{1}}},
		"wrongdim":  {[]string{"a"}, [][]float32{{1, 2}}},
		"longword":  {[]string{string(make([]byte, 256))}, [][]float32{{1}}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if err := Write(&bytes.Buffer{}, c.words, c.vecs, 1); err == nil {
				t.Error("Write accepted invalid input")
			}
		})
	}
}
