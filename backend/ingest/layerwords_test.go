package ingest

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"testing"

	"proofglass/backend/kb"
	"proofglass/backend/kb/kbtest"
	"proofglass/backend/pdf"
)

// TestLayerWordsStoredAsDecoded ingests real text and CJK PDFs (their words go from the worker's answer straight
// to their stored form) and checks every page's stored word column byte for byte against the words of the same
// page decoded into pdf.Words as before, converted to kb.Word and encoded; and that they read back as those words,
// bit for bit.
func TestLayerWordsStoredAsDecoded(t *testing.T) {
	paths := []string{testdata(t, "pdf", "real", "hsaur3-Ch_analysis_of_variance.pdf"),
		testdata(t, "pdf", "real", "reportlab-userguide.pdf"), testdata(t, "pdf", "cjk", "zhlipsum.pdf")}
	in, k := newIngester(t, Options{NoOCR: true})
	ctx := context.Background()
	c := pdf.NewClient(workerOptions())
	defer c.Close()
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			res := addOne(t, in, "c", path)
			if res.Document.Status != kb.StatusReady {
				t.Fatalf("%s: %s", res.Document.Status, res.Error)
			}
			d, err := c.Open(ctx, path, "")
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			us := units(t, k, res.Document.ID)
			if len(us) != d.Pages() {
				t.Fatalf("%d units for %d pages", len(us), d.Pages())
			}
			words := 0
			for i, u := range us {
				p, err := d.Page(ctx, i, pdf.PageOptions{})
				if err != nil {
					t.Fatal(err)
				}
				var want []kb.Word
				if u.TextSource != kb.TextNone {
					for _, w := range p.Words {
						want = append(want, kb.Word{Text: w.Text, X0: w.Box.X0, Y0: w.Box.Y0, X1: w.Box.X1, Y1: w.Box.Y1})
					}
				}
				wantBlob, err := kb.EncodeWords(0, func(yield func([]byte, float64, float64, float64, float64)) {
					for _, w := range want {
						yield([]byte(w.Text), w.X0, w.Y0, w.X1, w.Y1)
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				stored := kbtest.RawWords(t, k, u.ID)
				if wantBlob == nil {
					wantBlob = []byte("[]")
				}
				if !bytes.Equal(stored, wantBlob) {
					t.Fatalf("page %d: stored words (%d bytes) differ from the decoded page's (%d bytes)", u.Ordinal, len(stored), len(wantBlob))
				}
				if len(u.Words) != len(want) {
					t.Fatalf("page %d: %d words read back, want %d", u.Ordinal, len(u.Words), len(want))
				}
				for n, w := range want {
					g := u.Words[n]
					if g.Text != w.Text || math.Float64bits(g.X0) != math.Float64bits(w.X0) || math.Float64bits(g.Y0) != math.Float64bits(w.Y0) ||
						math.Float64bits(g.X1) != math.Float64bits(w.X1) || math.Float64bits(g.Y1) != math.Float64bits(w.Y1) {
						t.Fatalf("page %d word %d: %+v, want %+v", u.Ordinal, n, g, w)
					}
				}
				words += len(want)
			}
			if words < 10*len(us) {
				t.Errorf("only %d words on %d pages: the comparison saw too little text", words, len(us))
			}
		})
	}
}
