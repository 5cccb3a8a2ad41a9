//go:build cgo

package pdf

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func decode(t *testing.T, r *Rendered) image.Image {
	t.Helper()
	var img image.Image
	var err error
	switch r.Format {
	case PNG:
		img, err = png.Decode(bytes.NewReader(r.Data))
	default:
		img, err = jpeg.Decode(bytes.NewReader(r.Data))
	}
	if err != nil {
		t.Fatalf("decode %s render: %v", r.Format, err)
	}
	if img.Bounds().Dx() != r.Width || img.Bounds().Dy() != r.Height {
		t.Fatalf("render says %dx%d, image is %v", r.Width, r.Height, img.Bounds())
	}
	return img
}

// darkFraction is the share of pixels in img darker than mid-grey.
func darkFraction(img image.Image) float64 {
	b := img.Bounds()
	dark := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if (r+g+bl)/3 < 0x8000 {
				dark++
			}
		}
	}
	return float64(dark) / float64(b.Dx()*b.Dy())
}

func TestOpenRealDocuments(t *testing.T) {
	c := testClient(t, Options{})
	ctx := context.Background()
	cases := map[string]struct {
		file  string
		pages int
		page  int    // 0-based page to read
		want  string // text expected on that page
	}{
		"anova chapter":   {"pdf/real/hsaur3-Ch_analysis_of_variance.pdf", 13, 2, "Analysis of Variance"},
		"clinical report": {"pdf/real/blood_loss_report.pdf", 19, 0, "blood"},
		"manual":          {"pdf/real/reportlab-userguide.pdf", 134, 1, "Contents"},
		"chinese text":    {"pdf/cjk/zhlipsum.pdf", 15, 2, "编程接口"},
		"chinese numbers": {"pdf/cjk/zhnumber.pdf", 32, 2, "使用方法"},
		"big manual":      {"pdf/real/R-refman.pdf", 2415, 100, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := testdata(t, tc.file)
			d, err := c.Open(ctx, path, "")
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer d.Close()
			if d.Pages() != tc.pages {
				t.Errorf("pages = %d, want %d", d.Pages(), tc.pages)
			}
			p, err := d.Page(ctx, tc.page, PageOptions{})
			if err != nil {
				t.Fatalf("page: %v", err)
			}
			if p.Width < 100 || p.Height < 100 {
				t.Errorf("page size %.1fx%.1f pt is implausible", p.Width, p.Height)
			}
			if tc.want != "" && !strings.Contains(strings.ToLower(p.Text), strings.ToLower(tc.want)) {
				t.Errorf("page %d text lacks %q; starts %q", tc.page+1, tc.want, head(p.Text, 200))
			}
			if len(p.Words) == 0 {
				t.Fatalf("no words on page %d", tc.page+1)
			}
			for _, w := range p.Words {
				if w.Box.Empty() || w.Box.X0 < -1 || w.Box.Y0 < -1 || w.Box.X1 > p.Width+1 || w.Box.Y1 > p.Height+1 {
					t.Fatalf("word %q box %+v outside the %.0fx%.0f page", w.Text, w.Box, p.Width, p.Height)
				}
			}
		})
	}
}

func head(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// TestWordBoxesMatchInk renders the boxes of words and checks that they contain ink while the gaps between lines
// do not: boxes and rendering use the same coordinates.
func TestWordBoxesMatchInk(t *testing.T) {
	c := testClient(t, Options{})
	ctx := context.Background()
	d, err := c.Open(ctx, testdata(t, "pdf/real/hsaur3-Ch_analysis_of_variance.pdf"), "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.Page(ctx, 2, PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var chapter *Word
	for i := range p.Words {
		if p.Words[i].Text == "CHAPTER" {
			chapter = &p.Words[i]
			break
		}
	}
	if chapter == nil {
		t.Fatalf("no word CHAPTER on page 3: %v", p.Words[:5])
	}
	ink, err := d.Render(ctx, RenderRequest{Page: 2, DPI: 288, Clip: &chapter.Box, Format: PNG})
	if err != nil {
		t.Fatal(err)
	}
	if f := darkFraction(decode(t, ink)); f < 0.1 {
		t.Errorf("the box of CHAPTER holds %.2f dark pixels, want ink", f)
	}
	above := chapter.Box
	above.Y0, above.Y1 = chapter.Box.Y0-20, chapter.Box.Y0-2
	blank, err := d.Render(ctx, RenderRequest{Page: 2, DPI: 288, Clip: &above, Format: PNG})
	if err != nil {
		t.Fatal(err)
	}
	if f := darkFraction(decode(t, blank)); f > 0.01 {
		t.Errorf("the band above CHAPTER holds %.3f dark pixels, want blank paper", f)
	}
}

// TestRegionRenderIsTrueZoom: a region rendered at a high DPI has that DPI's pixel size and equals the same region
// cut from a whole-page render at that DPI, i.e. it is drawn again, not upscaled.
func TestRegionRenderIsTrueZoom(t *testing.T) {
	c := testClient(t, Options{})
	ctx := context.Background()
	d, err := c.Open(ctx, testdata(t, "pdf/real/hsaur3-Ch_graphical_display.pdf"), "")
	if err != nil {
		t.Fatal(err)
	}
	const dpi = 300
	clip := Box{100, 200, 300, 350}
	region, err := d.Render(ctx, RenderRequest{Page: 3, DPI: dpi, Clip: &clip, Format: PNG})
	if err != nil {
		t.Fatal(err)
	}
	wantW, wantH := int(math.Ceil(200*dpi/72.0)), int(math.Ceil(150*dpi/72.0))
	if abs(region.Width-wantW) > 1 || abs(region.Height-wantH) > 1 {
		t.Errorf("region is %dx%d, want about %dx%d", region.Width, region.Height, wantW, wantH)
	}
	page, err := d.Render(ctx, RenderRequest{Page: 3, DPI: dpi, Format: PNG})
	if err != nil {
		t.Fatal(err)
	}
	full := decode(t, page)
	reg := decode(t, region)
	ox, oy := int(math.Floor(clip.X0*dpi/72)), int(math.Floor(clip.Y0*dpi/72))
	var diff, n float64
	for y := 0; y < reg.Bounds().Dy(); y += 3 {
		for x := 0; x < reg.Bounds().Dx(); x += 3 {
			r1, _, _, _ := reg.At(x, y).RGBA()
			r2, _, _, _ := full.At(ox+x, oy+y).RGBA()
			diff += math.Abs(float64(r1) - float64(r2))
			n++
		}
	}
	if mean := diff / n / 0xffff; mean > 0.02 {
		t.Errorf("region differs from the page render by %.3f on average", mean)
	}
	if darkFraction(reg) == 0 {
		t.Error("region is blank; pick a region with content")
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestThumbnailAndPixelCap(t *testing.T) {
	c := testClient(t, Options{Limits: Limits{MaxPixels: 2_000_000}})
	ctx := context.Background()
	cases := map[string]string{
		"text page":         "pdf/real/blood_loss_report.pdf",
		"30x30 inch page":   "bad/pdf/ocrmypdf/enormous.pdf",
		"1.2 Gpx JBIG2":     "bad/pdf/ocrmypdf/hugemono.pdf",
		"2400 dpi scan":     "pdf/scanned/2400dpi.pdf",
		"mixed page sizes":  "pdf/scanned/multipage.pdf",
		"rotated skew scan": "pdf/scanned/rotated_skew.pdf",
	}
	for name, file := range cases {
		t.Run(name, func(t *testing.T) {
			d, err := c.Open(ctx, testdata(t, file), "")
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			p, err := d.Page(ctx, 0, PageOptions{ThumbSize: 256})
			if err != nil {
				t.Fatal(err)
			}
			img, err := jpeg.Decode(bytes.NewReader(p.Thumb))
			if err != nil {
				t.Fatalf("thumbnail: %v", err)
			}
			long := max(img.Bounds().Dx(), img.Bounds().Dy())
			if long < 250 || long > 257 || img.Bounds().Dx() != p.ThumbW {
				t.Errorf("thumbnail %v, want longest side 256", img.Bounds())
			}
			// A render asked at 600 dpi is capped by MaxPixels, lowering the DPI it reports.
			r, err := d.Render(ctx, RenderRequest{Page: 0, DPI: 600})
			if err != nil {
				t.Fatal(err)
			}
			if px := r.Width * r.Height; px > 2_000_000*101/100 {
				t.Errorf("render has %d pixels, over the 2 Mpx cap", px)
			}
			if want := 600 * math.Sqrt(2e6/(p.Width*p.Height*600*600/72/72)); want < 600 && math.Abs(r.DPI-want) > 1 {
				t.Errorf("render DPI %.1f, want %.1f", r.DPI, want)
			}
		})
	}
}

func TestScannedPageHasNoTextLayer(t *testing.T) {
	c := testClient(t, Options{})
	d, err := c.Open(context.Background(), testdata(t, "pdf/scanned/c02-22.pdf"), "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.Page(context.Background(), 0, PageOptions{ThumbSize: 128})
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(p.Text) != "" || len(p.Words) != 0 {
		t.Errorf("scan has text %q and %d words, want none (it goes to OCR)", head(p.Text, 80), len(p.Words))
	}
	if len(p.Thumb) == 0 {
		t.Error("no thumbnail")
	}
}

func TestPasswords(t *testing.T) {
	c := testClient(t, Options{})
	ctx := context.Background()
	cases := map[string]struct {
		file, password string
		want           error // nil: opens
		wrong          bool
	}{
		"user password missing":    {"bad/pdf/qpdf/enc-R3,V2,U=view,O=master.pdf", "", ErrPasswordRequired, false},
		"user password wrong":      {"bad/pdf/qpdf/enc-R3,V2,U=view,O=master.pdf", "nope", ErrPasswordRequired, true},
		"user password given":      {"bad/pdf/qpdf/enc-R3,V2,U=view,O=master.pdf", "view", nil, false},
		"aes256 given":             {"bad/pdf/qpdf/enc-XI-R6,V5,U=view,O=master.pdf", "view", nil, false},
		"rc4 40 given":             {"bad/pdf/qpdf/enc-R2,V1,U=view,O=master.pdf", "view", nil, false},
		"libreoffice given":        {"bad/pdf/pypdf-sample-files/libreoffice-writer-password.pdf", "openpassword", nil, false},
		"peanuts given":            {"bad/pdf/debian/a-text-pass-peanuts.pdf", "peanuts", nil, false},
		"owner only, no prompt":    {"bad/pdf/qpdf/enc-R3,V2,O=master.pdf", "", nil, false},
		"aes owner only":           {"bad/pdf/qpdf/enc-XI-R6,V5,O=master.pdf", "", nil, false},
		"permission flags only":    {"bad/pdf/ocrmypdf/encrypted_algo4.pdf", "", nil, false},
		"aes128 empty password":    {"bad/pdf/qpdf/V4-aes.pdf", "", nil, false},
		"skew encrypted, password": {"bad/pdf/ocrmypdf/skew-encrypted.pdf", "password", nil, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := testdata(t, tc.file)
			d, err := c.Open(ctx, path, tc.password)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				defer d.Close()
				if _, err := d.Page(ctx, 0, PageOptions{ThumbSize: 64}); err != nil {
					t.Errorf("page 1: %v", err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			var pe *PasswordError
			if !errors.As(err, &pe) || pe.Wrong != tc.wrong || pe.Path != path {
				t.Errorf("err = %#v, want Wrong=%v naming %s", err, tc.wrong, path)
			}
		})
	}
}

// TestBadPDFs opens every bad PDF through one worker: each either opens and yields page 1, or fails with an error
// that names the file; the worker survives them all.
func TestBadPDFs(t *testing.T) {
	c := testClient(t, Options{Timeout: 20 * time.Second})
	ctx := context.Background()
	files, _ := filepath.Glob(testdata(t, "bad", "pdf", "*", "*.pdf"))
	if len(files) < 50 {
		t.Fatalf("found %d bad PDFs, want the 54 of bad/README.md", len(files))
	}
	mustReject := map[string]bool{"bad1.pdf": true, "zero-bytes.pdf": true, "text-renamed.pdf": true,
		"invalid.pdf": true, "issue-335b.pdf": true, "issue-119.pdf": true}
	mustOpen := map[string]int{"bad-xref.pdf": 1, "bad-xref-entry.pdf": 1, "bad-token-startxref.pdf": 1,
		"badlin1.pdf": 30, "issue-202.pdf": 10, "negzero.pdf": 1, "no_contents.pdf": 1, "kcs.pdf": 1,
		"overlay.pdf": 1, "bad-jpeg.pdf": 1, "shattered-1.pdf": 1, "shattered-2.pdf": 1}
	for _, f := range files {
		name := filepath.Base(f)
		d, err := c.Open(ctx, f, "")
		if err != nil {
			if !strings.Contains(err.Error(), f) {
				t.Errorf("%s: error %q does not name the file", name, err)
			}
			if !errors.Is(err, ErrDamaged) && !errors.Is(err, ErrPasswordRequired) {
				t.Errorf("%s: error %v is neither damaged nor password", name, err)
			}
			if n, ok := mustOpen[name]; ok {
				t.Errorf("%s: want it opened with %d pages, got %v", name, n, err)
			}
			continue
		}
		if mustReject[name] {
			t.Errorf("%s: opened with %d pages, want rejected", name, d.Pages())
		}
		if n, ok := mustOpen[name]; ok && d.Pages() != n {
			t.Errorf("%s: %d pages, want %d", name, d.Pages(), n)
		}
		if _, err := d.Page(ctx, 0, PageOptions{ThumbSize: 64}); err != nil {
			t.Errorf("%s: page 1: %v", name, err)
		}
		d.Close()
	}
}

func TestWorkerCrashFailsOneDocument(t *testing.T) {
	c := testClient(t, Options{})
	ctx := context.Background()
	path := testdata(t, "pdf/real/hsaur3-Ch_analysis_of_variance.pdf")
	d, err := c.Open(ctx, path, "")
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	_, _, err = c.call(ctx, c.w, request{Op: "crash"}, path)
	c.mu.Unlock()
	var we *WorkerError
	if !errors.As(err, &we) || !strings.Contains(err.Error(), "crashed") || !strings.Contains(err.Error(), path) {
		t.Fatalf("crash gave %v, want a WorkerError naming the file", err)
	}
	if _, err := d.Page(ctx, 0, PageOptions{}); !errors.As(err, &we) {
		t.Errorf("document on the dead worker: %v, want WorkerError", err)
	}
	d2, err := c.Open(ctx, path, "")
	if err != nil {
		t.Fatalf("open after crash: %v", err)
	}
	if p, err := d2.Page(ctx, 2, PageOptions{}); err != nil || !strings.Contains(p.Text, "CHAPTER") {
		t.Errorf("page after restart: %v", err)
	}
}

func TestWorkerTimeoutAndCancel(t *testing.T) {
	c := testClient(t, Options{Timeout: 500 * time.Millisecond})
	ctx := context.Background()
	path := testdata(t, "pdf/real/hsaur3-Ch_analysis_of_variance.pdf")
	if _, err := c.Open(ctx, path, ""); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	_, _, err := c.call(ctx, c.w, request{Op: "hang"}, path)
	c.mu.Unlock()
	if err == nil || !strings.Contains(err.Error(), "time limit") {
		t.Fatalf("hang gave %v, want a time-limit error", err)
	}
	if _, err := c.Open(ctx, path, ""); err != nil {
		t.Fatalf("open after timeout: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	c.mu.Lock()
	_, _, err = c.call(cctx, c.w, request{Op: "hang"}, path)
	c.mu.Unlock()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call gave %v", err)
	}
	if _, err := c.Open(ctx, path, ""); err != nil {
		t.Fatalf("open after cancel: %v", err)
	}
}

func TestRendererCachesRenders(t *testing.T) {
	c := testClient(t, Options{})
	cache := NewCache(8 << 20)
	r := NewRenderer(c, cache, 2)
	ctx := context.Background()
	path := testdata(t, "pdf/real/hsaur3-Ch_multiple_linear_regression.pdf")
	req := RenderRequest{Page: 1, DPI: 100}
	a, err := r.Render(ctx, path, "", req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Render(ctx, path, "", req)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Data, b.Data) || a.Width != b.Width || a.DPI != b.DPI {
		t.Error("cached render differs")
	}
	if _, entries, hits, _ := cache.Stats(); entries != 1 || hits != 1 {
		t.Errorf("cache has %d entries and %d hits, want 1 and 1", entries, hits)
	}
	decode(t, b)
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := NewCache(100)
	c.Put("a", make([]byte, 40))
	c.Put("b", make([]byte, 40))
	c.Get("a")
	c.Put("c", make([]byte, 40)) // evicts b, the least recently used
	if _, ok := c.Get("b"); ok {
		t.Error("b survived")
	}
	for _, k := range []string{"a", "c"} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%s evicted", k)
		}
	}
	c.Put("huge", make([]byte, 101))
	if _, ok := c.Get("huge"); ok {
		t.Error("value larger than the cache was stored")
	}
	if size, n, _, _ := c.Stats(); size != 80 || n != 2 {
		t.Errorf("size %d, entries %d; want 80, 2", size, n)
	}
}

func TestParseStextXML(t *testing.T) {
	xml := `<page id="page1" width="100" height="100">
<block bbox="0 0 100 100" justify="unknown">
<line bbox="10 10 60 20" wmode="0" dir="1 0" flags="0" text="A&amp;B c">
<font name="X" size="10">
<char c="A" quad="10 10 15 10 10 20 15 20" x="10" y="18" bidi="0" color="#000000" alpha="#ff" flags="0"/>
<char c="&amp;" quad="15 10 20 10 15 20 20 20" x="15" y="18" bidi="0" color="#000000" alpha="#ff" flags="0"/>
<char c="B" quad="20 10 25 10 20 20 25 20" x="20" y="18" bidi="0" color="#000000" alpha="#ff" flags="0"/>
<char c=" " quad="25 10 28 10 25 20 28 20" x="25" y="18" bidi="0" color="#000000" alpha="#ff" flags="0"/>
<char c="c" quad="30 12 35 11 31 21 36 20" x="30" y="18" bidi="0" color="#000000" alpha="#ff" flags="0"/>
</font>
</line>
</block>
<block bbox="0 0 100 100" justify="unknown">
<line bbox="10 30 60 40" wmode="0" dir="1 0" flags="0" text="中文">
<font name="Y" size="10">
<char c="中" quad="10 30 20 30 10 40 20 40" x="10" y="38" bidi="0" color="#000000" alpha="#ff" flags="0"/>
<char c="&#x6587;" quad="20 30 30 30 20 40 30 40" x="20" y="38" bidi="0" color="#000000" alpha="#ff" flags="0"/>
</font>
</line>
</block>
</page>`
	text, words := parseStextXML([]byte(xml), 5, 0)
	if text != "A&B c\n\n中文" {
		t.Errorf("text = %q", text)
	}
	want := []Word{
		{Text: "A&B", Box: Box{5, 10, 20, 20}, Line: 0},
		{Text: "c", Box: Box{25, 11, 31, 21}, Line: 0},
		{Text: "中", Box: Box{5, 30, 15, 40}, Line: 1},
		{Text: "文", Box: Box{15, 30, 25, 40}, Line: 1},
	}
	if len(words) != len(want) {
		t.Fatalf("words = %+v", words)
	}
	for i := range want {
		if words[i] != want[i] {
			t.Errorf("word %d = %+v, want %+v", i, words[i], want[i])
		}
	}
}
