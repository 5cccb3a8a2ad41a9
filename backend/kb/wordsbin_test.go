package kb

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestWordsBinaryRoundTrip checks that the stored form gives back exactly the words it was given — float32-exact
// boxes (MuPDF's) and others (scaled OCR boxes), any text — that keep filters as on JSON rows, that it is much
// smaller than the JSON earlier versions stored, and that damage is an error, never a panic or wrong words.
func TestWordsBinaryRoundTrip(t *testing.T) {
	texts := []string{"plain", "", `quote"d`, "naïve", "中文", "line\nbreak", "😀", "bad\xffutf8", strings.Repeat("x", 300)}
	r := rand.New(rand.NewPCG(5, 6))
	f32 := func() float64 { return float64(float32(r.Float64() * 800)) }
	cases := map[string]func() Word{
		"float32 boxes": func() Word { return Word{texts[r.IntN(len(texts))], f32(), f32(), f32(), f32()} },
		"float64 boxes": func() Word {
			return Word{texts[r.IntN(len(texts))], f32(), r.Float64() * 72 / 300, f32(), -1e-300}
		},
		"extremes": func() Word { return Word{"e", math.MaxFloat64, -math.SmallestNonzeroFloat64, 0, math.Copysign(0, -1)} },
	}
	keep := func(s string) bool { return len(s) > 0 && (s[0] == 'p' || s[0] >= 0x80) }
	for name, gen := range cases {
		t.Run(name, func(t *testing.T) {
			for n := 1; n < 300; n += 37 {
				ws := make([]Word, n)
				for i := range ws {
					ws[i] = gen()
				}
				b, err := encodeWordsBinary(ws)
				if err != nil {
					t.Fatal(err)
				}
				got, err := decodeWords(string(b))
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(ws) {
					t.Fatalf("%d words back, want %d", len(got), len(ws))
				}
				for i := range ws { // bit for bit, so -0 and 0 differ
					g, w := got[i], ws[i]
					if g.Text != w.Text || math.Float64bits(g.X0) != math.Float64bits(w.X0) || math.Float64bits(g.Y0) != math.Float64bits(w.Y0) ||
						math.Float64bits(g.X1) != math.Float64bits(w.X1) || math.Float64bits(g.Y1) != math.Float64bits(w.Y1) {
						t.Fatalf("word %d: got %+v, want %+v", i, g, w)
					}
				}
				want := []Word{}
				for _, w := range ws {
					if keep(w.Text) {
						want = append(want, w)
					}
				}
				if kept, err := decodeWordsKeeping(string(b), keep); err != nil || !reflect.DeepEqual(kept, want) {
					t.Fatalf("keeping: got %d words (%v), want %d", len(kept), err, len(want))
				}
				js, _ := json.Marshal(ws)
				if name == "float32 boxes" && n > 100 && 2*len(b) > len(js) {
					t.Errorf("%d words: %d bytes stored, JSON %d: want less than half", n, len(b), len(js))
				}
				for cut := range len(b) - 1 {
					if _, err := decodeWords(string(b[:cut])); err == nil && cut > 0 {
						t.Fatalf("cut to %d of %d bytes: decoded without an error", cut, len(b))
					}
				}
				if _, err := decodeWords(string(append(b, 0))); err == nil {
					t.Fatal("a trailing byte: decoded without an error")
				}
			}
		})
	}
	if _, err := encodeWordsBinary([]Word{{Text: "x", X0: math.NaN()}}); err == nil {
		t.Error("NaN box: stored without an error")
	}
	if _, err := decodeWords("\x00\x07\x00"); err == nil {
		t.Error("unknown stored kind: no error")
	}
}

// TestUnitsKeepReadingJSONWords checks that a unit row written as JSON by an earlier version reads as before, next to
// rows in the binary form, and that a unit stored again is written in the binary form.
func TestUnitsKeepReadingJSONWords(t *testing.T) {
	ctx := context.Background()
	k := openTest(t)
	d := addTestDocument(t, k, "ab", "d.pdf")
	ws := []Word{{Text: "alpha", X0: 1.5, Y0: 2, X1: 30.25, Y1: 12}, {Text: "β", X0: 31, Y0: 2, X1: 40, Y1: 12}}
	var ids []int64
	for i := 1; i <= 3; i++ {
		id, err := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: i, Kind: UnitPage, Text: "alpha β", Words: ws})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	js, _ := json.Marshal(ws)
	if _, err := k.DB().ExecContext(ctx, `UPDATE units SET words = ? WHERE id = ?`, string(js), ids[1]); err != nil {
		t.Fatal(err)
	}
	us, err := k.Content.Units(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range us {
		if !reflect.DeepEqual(u.Words, ws) {
			t.Errorf("unit %d: words %+v, want %+v", u.Ordinal, u.Words, ws)
		}
	}
	var kinds []string
	rows, err := k.DB().QueryContext(ctx, `SELECT typeof(words) FROM units ORDER BY ordinal`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		kinds = append(kinds, s)
	}
	rows.Close()
	if !reflect.DeepEqual(kinds, []string{"blob", "text", "blob"}) {
		t.Errorf("stored kinds %v, want blob, text (the JSON row), blob", kinds)
	}
	if _, err := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 2, Kind: UnitPage, Text: "alpha β", Words: ws}); err != nil {
		t.Fatal(err)
	}
	var kind string
	k.DB().QueryRowContext(ctx, `SELECT typeof(words) FROM units WHERE id = ?`, ids[1]).Scan(&kind)
	if kind != "blob" {
		t.Errorf("stored again: %s, want blob", kind)
	}
	if _, err := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 4, Kind: UnitPage}); err != nil {
		t.Fatal(err)
	}
	var empty string
	k.DB().QueryRowContext(ctx, `SELECT words FROM units WHERE ordinal = 4`).Scan(&empty)
	if empty != "[]" {
		t.Errorf("a unit without words stores %q, want []", empty)
	}
}

// BenchmarkDecodeWords compares reading one page's word boxes (400 words, MuPDF-like float32 boxes) from the binary
// form and from the JSON earlier versions stored, whole and keeping a query's few words as search hits do:
//
//	go test ./backend/kb -run '^$' -bench DecodeWords
func BenchmarkDecodeWords(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	vocab := strings.Fields("the of and to in a is that for it as was with be by on not he this are or his from at which function value argument default returns object vector matrix data frame")
	ws := make([]Word, 400)
	for i := range ws {
		x, y := float32(r.Float64()*500), float32(r.Float64()*700)
		ws[i] = Word{vocab[r.IntN(len(vocab))], float64(x), float64(y), float64(x + 30.5), float64(y + 9.75)}
	}
	bin, _ := encodeWordsBinary(ws)
	js, _ := json.Marshal(ws)
	keep := func(s string) bool { return s == "matrix" || s == "vector" }
	for _, c := range []struct {
		name string
		row  string
		keep func(string) bool
	}{{"json/all", string(js), nil}, {"binary/all", string(bin), nil}, {"json/keeping", string(js), keep}, {"binary/keeping", string(bin), keep}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.row)))
			for b.Loop() {
				if _, err := decodeWordsKeeping(c.row, c.keep); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// encodeWordsF32 writes the float32 form earlier versions stored (every word with its four coordinates).
func encodeWordsF32(words []Word) []byte {
	b := []byte{wordsMagic, wordsF32}
	b = binary.AppendUvarint(b, uint64(len(words)))
	for _, w := range words {
		b = binary.AppendUvarint(b, uint64(len(w.Text)))
		b = append(b, w.Text...)
		for _, f := range [4]float64{w.X0, w.Y0, w.X1, w.Y1} {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(f)))
		}
	}
	return b
}

// TestWordsLines checks the line form on words laid out as a page's are (lines of words sharing y0 and y1, some
// with their own): exact round trip, a keep that rejects the word a line's boxes were written with still gives
// the kept words their y, rows in the earlier float32 form read the same, and the line form is at least a fifth
// smaller than it.
func TestWordsLines(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	vocab := strings.Fields("the of and to in a is that for it function value argument default returns matrix x² 中文")
	var ws []Word
	for line := range 40 {
		y0, y1 := float64(float32(100+12*line)+0.25), float64(float32(109+12*line)+0.5)
		x := 72.0
		for range 1 + r.IntN(12) {
			w := Word{Text: vocab[r.IntN(len(vocab))], X0: float64(float32(x)), Y0: y0, X1: float64(float32(x + 20.125)), Y1: y1}
			if r.IntN(6) == 0 { // a superscript or a word in another font
				w.Y0 = float64(float32(y0 - 1.5))
			}
			ws = append(ws, w)
			x += 24
		}
	}
	b, err := encodeWordsBinary(ws)
	if err != nil {
		t.Fatal(err)
	}
	if b[1] != wordsLines {
		t.Fatalf("stored kind %d, want the line form %d", b[1], wordsLines)
	}
	old := encodeWordsF32(ws)
	if 5*len(b) > 4*len(old) {
		t.Errorf("line form %d bytes, float32 form %d: want at least a fifth less", len(b), len(old))
	}
	for name, row := range map[string][]byte{"lines": b, "float32 (earlier versions)": old} {
		got, err := decodeWords(string(row))
		if err != nil || !reflect.DeepEqual(got, ws) {
			t.Errorf("%s: round trip gave %d words (%v), want %d, equal", name, len(got), err, len(ws))
		}
		for _, word := range vocab {
			keep := func(s string) bool { return s == word }
			var want []Word
			for _, w := range ws {
				if keep(w.Text) {
					want = append(want, w)
				}
			}
			got, err := decodeWordsKeeping(string(row), keep)
			if err != nil || len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
				t.Errorf("%s: keeping %q gave %v (%v), want %v", name, word, got, err, want)
			}
		}
	}
	// The first word cannot share the boxes of one before it.
	bad := append([]byte{wordsMagic, wordsLines, 1, 1<<1 | 1, 'x'}, make([]byte, 8)...)
	if _, err := decodeWords(string(bad)); err == nil {
		t.Error("a first word marked as sharing y: decoded without an error")
	}
}
