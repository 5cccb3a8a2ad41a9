package ingest

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"proofglass/backend/fixture"
	"proofglass/backend/kb"
	"proofglass/backend/search"
)

// chartPixels draws lines of text into a grey image, enlarged so the 7×13 bitmap font reads like a chart's labels.
func chartPixels(lines []string, scale int) *image.Gray {
	w, h := 0, 16*len(lines)+8
	for _, l := range lines {
		w = max(w, 7*len(l)+16)
	}
	small := image.NewGray(image.Rect(0, 0, w, h))
	for i := range small.Pix {
		small.Pix[i] = 255
	}
	d := font.Drawer{Dst: small, Src: image.NewUniform(color.Gray{0}), Face: basicfont.Face7x13}
	for i, l := range lines {
		d.Dot = fixed.P(8, 16*(i+1))
		d.DrawString(l)
	}
	big := image.NewGray(image.Rect(0, 0, w*scale, h*scale))
	for y := range h * scale {
		for x := range w * scale {
			big.Pix[y*big.Stride+x] = small.Pix[(y/scale)*small.Stride+x/scale]
		}
	}
	return big
}

// bornDigitalPDF writes a one-page PDF with a real text layer (Helvetica) and a raster image whose words exist only
// as pixels, placed at (x, y, w, h) points from the bottom-left.
func bornDigitalPDF(t *testing.T, text []string, img *image.Gray, x, y, w, h float64) string {
	t.Helper()
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(img.Pix)
	zw.Close()
	var content strings.Builder
	content.WriteString("BT /F1 12 Tf 72 740 Td 16 TL\n")
	for _, l := range text {
		fmt.Fprintf(&content, "(%s) Tj T*\n", l)
	}
	content.WriteString("ET\n")
	fmt.Fprintf(&content, "q %g 0 0 %g %g %g cm /Im1 Do Q\n", w, h, x, y)
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /XObject << /Im1 5 0 R >> >> /Contents 6 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream",
			img.Bounds().Dx(), img.Bounds().Dy(), z.Len(), z.String()),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", content.Len(), content.String()),
	}
	p := filepath.Join(t.TempDir(), "chart.pdf")
	if err := os.WriteFile(p, fixture.PDF(objs, ""), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOCROfEmbeddedImages(t *testing.T) {
	needTool(t, "tesseract")
	text := []string{
		"Annual report of the regional energy office.",
		"The chart below summarises the production of the wind farms during the year.",
		"Figures are provisional and will be revised in the next edition.",
	}
	chart := chartPixels([]string{"TURBINE OUTPUT", "MEGAWATT HOURS 2019"}, 6)
	path := bornDigitalPDF(t, text, chart, 90, 300, 432, 432*float64(chart.Bounds().Dy())/float64(chart.Bounds().Dx()))

	cases := map[string]struct {
		opts Options
		want bool // the chart's words are found
	}{
		"image-ocr": {Options{OCR: engOCR(), ImageOCR: true}, true},
		"default":   {Options{OCR: engOCR()}, false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			in, k := newIngester(t, c.opts)
			r := addOne(t, in, "reports", path)
			if r.Document.Status != kb.StatusReady {
				t.Fatalf("status %s: %s", r.Document.Status, r.Error)
			}
			u := units(t, k, r.Document.ID)[0]
			if !strings.Contains(u.Text, "wind farms") {
				t.Fatalf("text layer lost: %q", u.Text)
			}
			res, err := search.New(k, search.Options{}).Search(context.Background(),
				search.Query{Text: "turbine megawatt", Mode: search.BM25})
			if err != nil {
				t.Fatal(err)
			}
			if !c.want {
				if len(res.Hits) != 0 || u.TextSource != kb.TextLayer {
					t.Fatalf("image OCR is opt-in, yet the chart words were found (%s): %q", u.TextSource, u.Text)
				}
				return
			}
			// Tesseract reads the enlarged 7×13 bitmap font's words reliably; its digits less so, so only words are
			// asserted.
			if up := strings.ToUpper(u.Text); u.TextSource != kb.TextMixed || !strings.Contains(up, "TURBINE") ||
				!strings.Contains(up, "MEGAWATT") {
				t.Fatalf("page text (%s) = %q; want the layer plus the chart's words", u.TextSource, u.Text)
			}
			if len(res.Hits) != 1 || len(res.Hits[0].Boxes) == 0 {
				t.Fatalf("search = %+v: want the page with hit boxes", res.Hits)
			}
			// The chart's boxes are in points and lie where the image was drawn (y from the top: 792-300-h .. 492).
			for _, b := range res.Hits[0].Boxes {
				if b.X0 < 90-1 || b.X1 > 90+432+1 || b.Y1 > 792-300+1 || b.Y0 < 100 {
					t.Errorf("box %+v outside the image's place on the page", b)
				}
			}
		})
	}
}
