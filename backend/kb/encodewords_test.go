package kb

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestEncodeWordsIsTheStoredForm checks that EncodeWords over a stream of words, and encodeWordsBinary, give byte
// for byte what the encoder before EncodeWords gave (referenceEncodeWords, kept here as it was): float32-exact boxes
// (the one-pass wordsLines form, with lines sharing y0/y1), float64 boxes (two passes), any text, none at all, and
// the same error for a coordinate that is not a number, also after a float64 box has switched the form.
func TestEncodeWordsIsTheStoredForm(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	texts := []string{"plain", "", "naïve", "中文", "bad\xffutf8", strings.Repeat("x", 200)}
	f32 := func() float64 { return float64(float32(r.Float64() * 800)) }
	cases := map[string]func(i int) Word{
		"float32 boxes, lines": func(i int) Word {
			y := float64(float32(10 * float64(i/7)))
			return Word{texts[r.IntN(len(texts))], f32(), y, f32(), y + 9.5}
		},
		"float64 boxes": func(int) Word { return Word{texts[r.IntN(len(texts))], f32(), r.Float64() * 72 / 300, f32(), f32()} },
		"not a number":  func(i int) Word { return Word{"w" + fmt.Sprint(i), f32(), math.NaN(), f32(), math.Inf(1)} },
		"a float64 box, then not a number": func(i int) Word {
			switch {
			case i == 0:
				return Word{"first", 0.1, f32(), f32(), f32()}
			case i%7 == 5:
				return Word{"w" + fmt.Sprint(i), 1.0 / 3, math.Inf(-1), f32(), f32()}
			}
			return Word{"w", f32(), f32(), f32(), f32()}
		},
	}
	for name, gen := range cases {
		t.Run(name, func(t *testing.T) {
			for _, n := range []int{0, 1, 2, 63, 1000} {
				ws := make([]Word, n)
				for i := range ws {
					ws[i] = gen(i)
				}
				want, wantErr := referenceEncodeWords(ws)
				got, err := encodeWordsBinary(ws)
				streamed, serr := EncodeWords(0, func(yield func([]byte, float64, float64, float64, float64)) {
					for _, w := range ws {
						yield([]byte(w.Text), w.X0, w.Y0, w.X1, w.Y1)
					}
				})
				if fmt.Sprint(err) != fmt.Sprint(wantErr) || fmt.Sprint(serr) != fmt.Sprint(wantErr) {
					t.Fatalf("%d words: errors %v and %v, want %v", n, err, serr, wantErr)
				}
				if !bytes.Equal(got, want) || !bytes.Equal(streamed, want) || (want == nil) != (streamed == nil) {
					t.Fatalf("%d words: encodings differ from the reference (%d, %d, want %d bytes)", n, len(got), len(streamed), len(want))
				}
			}
		})
	}
}

// TestEncodedWordsStoreAsWords stores the same units once with Words and once with EncodedWords: the rows' word
// columns must be byte-identical and read back as the same words; a blob that is not the stored form is refused.
func TestEncodedWordsStoreAsWords(t *testing.T) {
	ctx := context.Background()
	k, c := openWithCollection(t)
	d1, _, _ := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "a", Name: "a.pdf", Kind: "pdf"})
	d2, _, _ := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "b", Name: "b.pdf", Kind: "pdf"})
	words := [][]Word{
		{{Text: "alpha", X0: 72, Y0: 90.5, X1: 100.34600067138672, Y1: 101}, {Text: "beta", X0: 101, Y0: 90.5, X1: 130, Y1: 101}},
		{{Text: "ocr", X0: 0.24, Y0: 1.0 / 3, X1: 2, Y1: 3}},
		nil,
	}
	for i, ws := range words {
		enc, err := EncodeWords(0, func(yield func([]byte, float64, float64, float64, float64)) {
			for _, w := range ws {
				yield([]byte(w.Text), w.X0, w.Y0, w.X1, w.Y1)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		u := Unit{Ordinal: i + 1, Kind: UnitPage, Text: "some text", TextSource: TextLayer}
		a, b := u, u
		a.DocumentID, a.Words = d1.ID, ws
		b.DocumentID, b.EncodedWords = d2.ID, enc
		if _, err := k.Content.PutUnit(ctx, a); err != nil {
			t.Fatal(err)
		}
		if _, err := k.Content.PutUnit(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := k.DB().QueryContext(ctx, `SELECT a.ordinal, a.words, b.words FROM units a JOIN units b ON a.ordinal = b.ordinal
		WHERE a.document_id = ? AND b.document_id = ?`, d1.ID, d2.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var ord int
		var wa, wb []byte
		if err := rows.Scan(&ord, &wa, &wb); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(wa, wb) {
			t.Errorf("page %d: stored words %x, want %x", ord, wb, wa)
		}
		n++
	}
	if n != len(words) {
		t.Fatalf("%d pages compared, want %d", n, len(words))
	}
	us, err := k.Content.Units(ctx, d2.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, u := range us {
		if fmt.Sprint(u.Words) != fmt.Sprint(words[i]) || u.EncodedWords != nil {
			t.Errorf("page %d read back as %v (encoded %d bytes), want %v", u.Ordinal, u.Words, len(u.EncodedWords), words[i])
		}
	}
	bad := Unit{DocumentID: d2.ID, Ordinal: 9, Kind: UnitPage, Text: "x", EncodedWords: []byte(`[{"t":"x"}]`)}
	if _, err := k.Content.PutUnit(ctx, bad); err == nil || !strings.Contains(err.Error(), "stored form") {
		t.Errorf("a JSON word list as EncodedWords: %v, want an error", err)
	}
}

// referenceEncodeWords is encodeWordsBinary as it was before EncodeWords (commit 0c9cbe4), the reference the
// streaming encoder must match.
func referenceEncodeWords(words []Word) ([]byte, error) {
	if len(words) == 0 {
		return nil, nil
	}
	kind := byte(wordsLines)
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
		size += binary.MaxVarintLen32 + len(w.Text)
	}
	if kind == wordsF64 {
		size += 32 * len(words)
	} else {
		size += 16 * len(words) // at most
	}
	b := make([]byte, 0, size)
	b = append(b, wordsMagic, kind)
	b = binary.AppendUvarint(b, uint64(len(words)))
	if kind == wordsF64 {
		for _, w := range words {
			b = binary.AppendUvarint(b, uint64(len(w.Text)))
			b = append(b, w.Text...)
			for _, f := range [4]float64{w.X0, w.Y0, w.X1, w.Y1} {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
			}
		}
		return b, nil
	}
	var y0, y1 uint32
	for i, w := range words {
		wy0, wy1 := math.Float32bits(float32(w.Y0)), math.Float32bits(float32(w.Y1))
		same := uint64(0)
		if i > 0 && wy0 == y0 && wy1 == y1 {
			same = 1
		}
		y0, y1 = wy0, wy1
		b = binary.AppendUvarint(b, uint64(len(w.Text))<<1|same)
		b = append(b, w.Text...)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(w.X0)))
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(w.X1)))
		if same == 0 {
			b = binary.LittleEndian.AppendUint32(b, wy0)
			b = binary.LittleEndian.AppendUint32(b, wy1)
		}
	}
	return b, nil
}
