//go:build cgo

package pdf

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestTextWalkMatchesXML checks that the direct walk of MuPDF's structured text gives the same page text and words
// as printing it as XML and parsing that (the earlier, slower path), on every page of the real, CJK and scanned
// test PDFs (the first 150 pages of the long manual).
func TestTextWalkMatchesXML(t *testing.T) {
	files := realCJKScanned(t)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			e, err := openEngine(f, "", Limits{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.close()
			words := 0
			for i := 0; i < min(e.pages, 150); i++ {
				want, wantWords, err := e.textXML(i)
				if err != nil {
					t.Fatal(err)
				}
				got, gotWords, err := e.text(i)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					k := 0
					for k < len(got) && k < len(want) && got[k] == want[k] {
						k++
					}
					t.Fatalf("page %d text differs at byte %d:\nwalk %q\nxml  %q", i+1, k, trunc(got[k:]), trunc(want[k:]))
				}
				if len(gotWords) != len(wantWords) {
					for k := range min(len(gotWords), len(wantWords)) {
						if gotWords[k].Text != wantWords[k].Text {
							t.Logf("first difference at word %d: walk %q %q, xml %q %q", k, gotWords[k].Text, gotWords[k+1].Text, wantWords[k].Text, wantWords[k+1].Text)
							break
						}
					}
					t.Fatalf("page %d: %d words, XML path %d", i+1, len(gotWords), len(wantWords))
				}
				for k, w := range gotWords {
					x := wantWords[k]
					if w.Text != x.Text || w.Line != x.Line || !near(w.Box, x.Box) {
						t.Fatalf("page %d word %d: walk %+v, xml %+v", i+1, k, w, x)
					}
				}
				words += len(gotWords)
			}
			t.Logf("%d words compared", words)
		})
	}
}

// near allows for the XML path printing coordinates with limited precision.
func near(a, b Box) bool {
	const eps = 0.01
	return math.Abs(a.X0-b.X0) < eps && math.Abs(a.Y0-b.Y0) < eps && math.Abs(a.X1-b.X1) < eps && math.Abs(a.Y1-b.Y1) < eps
}

func trunc(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func TestWordsWire(t *testing.T) {
	words := []Word{{Text: "héllo", Box: Box{1.5, 2.25, 30.125, 12}, Line: 0}, {Text: "世", Box: Box{-1, 0, 1e-7, 700}, Line: 300}}
	b := appendWords([]byte("thumb"), words)
	got, err := readWords(b[len("thumb"):])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(words, got); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
	// Page.EachWord (RawWords) reads the same words from the same bytes.
	var each []Word
	p := &Page{wire: b[len("thumb"):]}
	if err := p.EachWord(func(text []byte, box Box, line int) { each = append(each, Word{string(text), box, line}) }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(words, each); diff != "" || p.WordBytes() != len(b)-len("thumb") {
		t.Fatalf("EachWord (-want +got):\n%s; WordBytes %d", diff, p.WordBytes())
	}
	for name, bad := range map[string][]byte{
		"truncated text":   b[5:9],
		"truncated box":    b[5 : 5+1+6+20],
		"missing line":     b[5 : 5+1+6+32],
		"length overflows": {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := readWords(bad); err == nil {
				t.Fatal("malformed word list accepted")
			}
			if err := (&Page{wire: bad}).EachWord(func([]byte, Box, int) {}); err == nil {
				t.Fatal("malformed word list accepted by EachWord")
			}
		})
	}
}

// TestRenderGreyPages checks that a page with no colour renders as a grey image (a third cheaper to encode as
// JPEG) and a page with colour keeps it.
func TestRenderGreyPages(t *testing.T) {
	for name, c := range map[string]struct {
		file string
		page int
		grey bool
	}{
		"text page":   {"pdf/real/hsaur3-Ch_analysis_of_variance.pdf", 2, true},
		"colour page": {"pdf/real/blood_loss_report.pdf", 0, false},
	} {
		t.Run(name, func(t *testing.T) {
			e, err := openEngine(testdata(t, c.file), "", Limits{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.close()
			img, _, err := e.render(c.page, 72, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			g, isGrey := img.(*image.Gray)
			if isGrey != c.grey {
				t.Fatalf("render is %T, want grey %v", img, c.grey)
			}
			if isGrey {
				if len(g.Pix) != g.Rect.Dx()*g.Rect.Dy() || g.Stride != g.Rect.Dx() {
					t.Fatalf("grey image of %v has %d bytes, stride %d", g.Rect, len(g.Pix), g.Stride)
				}
				dark := 0
				for _, v := range g.Pix {
					if v < 128 {
						dark++
					}
				}
				if dark == 0 {
					t.Fatal("grey render of a text page has no dark pixel")
				}
			}
			out, err := e.renderEncoded(RenderRequest{Page: c.page, DPI: 72})
			if err != nil {
				t.Fatal(err)
			}
			dec, err := jpeg.Decode(bytes.NewReader(out.Data))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := dec.(*image.Gray); ok != c.grey || dec.Bounds().Dx() != out.Width {
				t.Fatalf("JPEG decodes to %T %v, want grey %v and width %d", dec, dec.Bounds(), c.grey, out.Width)
			}
		})
	}
}

// TestRendererWarm opens a document ahead of its first render: the render that follows reuses the open document
// (no second open in the worker), and a missing file fails Warm with the file named.
func TestRendererWarm(t *testing.T) {
	c := testClient(t, Options{})
	r := NewRenderer(c, nil, 2)
	ctx := context.Background()
	path := testdata(t, "pdf/real/hsaur3-Ch_multiple_linear_regression.pdf")
	if err := r.Warm(ctx, path, "", ""); err != nil {
		t.Fatal(err)
	}
	warmed := r.open[path]
	if warmed == nil {
		t.Fatal("Warm left the document closed")
	}
	if _, err := r.Render(ctx, path, "", RenderRequest{Page: 3, DPI: 72}); err != nil {
		t.Fatal(err)
	}
	if r.open[path] != warmed {
		t.Error("the render reopened the warmed document")
	}
	missing := filepath.Join(t.TempDir(), "missing.pdf")
	if err := r.Warm(ctx, missing, "", ""); err == nil || !strings.Contains(err.Error(), "missing.pdf") {
		t.Errorf("Warm of a missing file: %v", err)
	}
}

// TestWorkerPageMatchesEngine checks that pages extracted through the worker (words and text written straight to
// the wire, the answer buffer reused from page to page) equal the in-process extraction, text, words and
// thumbnail, on the real, CJK and scanned test PDFs.
func TestWorkerPageMatchesEngine(t *testing.T) {
	files := realCJKScanned(t)
	c := testClient(t, Options{})
	opts := PageOptions{ThumbSize: 256}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			e, err := openEngine(f, "", Limits{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.close()
			d, err := c.Open(context.Background(), f, "")
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			for i := 0; i < min(e.pages, 40); i++ {
				want, err := e.extractPage(i, opts)
				if err != nil {
					t.Fatal(err)
				}
				got, err := d.Page(context.Background(), i, opts)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Page{})); diff != "" {
					t.Fatalf("page %d through the worker (-in process +worker):\n%s", i+1, diff)
				}
				// RawWords: no Words, and EachWord reads the same ones.
				ro := opts
				ro.RawWords = true
				raw, err := d.Page(context.Background(), i, ro)
				if err != nil {
					t.Fatal(err)
				}
				var each []Word
				if err := raw.EachWord(func(text []byte, b Box, line int) { each = append(each, Word{string(text), b, line}) }); err != nil {
					t.Fatal(err)
				}
				if raw.Words != nil || !cmp.Equal(want.Words, each, cmpopts.EquateEmpty()) {
					t.Fatalf("page %d with RawWords: Words %d, EachWord gave %d words differing from %d", i+1, len(raw.Words), len(each), len(want.Words))
				}
			}
		})
	}
}

// TestDocumentsShareTheBaseContext opens the real, CJK and scanned test PDFs in this process, each in its own
// clone of the process's MuPDF context, and extracts them from parallel goroutines, twice: the clones share the
// store, glyph cache and colour transforms under real locks, so the results must equal a sequential extraction.
func TestDocumentsShareTheBaseContext(t *testing.T) {
	files := realCJKScanned(t)
	opts := PageOptions{ThumbSize: 128}
	extract := func(f string) ([]*Page, error) {
		e, err := openEngine(f, "", Limits{})
		if err != nil {
			return nil, err
		}
		defer e.close()
		var pages []*Page
		for i := 0; i < min(e.pages, 8); i++ {
			p, err := e.extractPage(i, opts)
			if err != nil {
				return nil, err
			}
			pages = append(pages, p)
		}
		return pages, nil
	}
	want := map[string][]*Page{}
	for _, f := range files {
		p, err := extract(f)
		if err != nil {
			t.Fatal(err)
		}
		want[f] = p
	}
	type result struct {
		f     string
		pages []*Page
		err   error
	}
	out := make(chan result)
	for range 2 {
		for _, f := range files {
			go func() {
				p, err := extract(f)
				out <- result{f, p, err}
			}()
		}
	}
	for range 2 * len(files) {
		r := <-out
		if r.err != nil {
			t.Fatal(r.err)
		}
		if diff := cmp.Diff(want[r.f], r.pages, cmpopts.IgnoreUnexported(Page{})); diff != "" {
			t.Errorf("%s extracted in parallel (-sequential +parallel):\n%s", filepath.Base(r.f), diff)
		}
	}
}

// realCJKScanned lists the real, CJK and scanned test PDFs, skipping the test when there are none.
func realCJKScanned(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"real", "cjk", "scanned"} {
		m, _ := filepath.Glob(testdata(t, "pdf", dir, "*.pdf"))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("no test PDFs")
	}
	return files
}
