//go:build cgo

package pdf

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"testing"
)

// jpegPSNR is the PSNR in dB of the decoded JPEG against src over R, G and B.
func jpegPSNR(t *testing.T, src image.Image, data []byte) float64 {
	t.Helper()
	dec, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if dec.Bounds().Size() != src.Bounds().Size() {
		t.Fatalf("decoded size %v, want %v", dec.Bounds().Size(), src.Bounds().Size())
	}
	sb, db := src.Bounds(), dec.Bounds()
	var se float64
	for y := 0; y < sb.Dy(); y++ {
		for x := 0; x < sb.Dx(); x++ {
			r1, g1, b1, _ := src.At(sb.Min.X+x, sb.Min.Y+y).RGBA()
			r2, g2, b2, _ := dec.At(db.Min.X+x, db.Min.Y+y).RGBA()
			for _, d := range [3]float64{float64(r1>>8) - float64(r2>>8), float64(g1>>8) - float64(g2>>8), float64(b1>>8) - float64(b2>>8)} {
				se += d * d
			}
		}
	}
	mse := se / float64(3*sb.Dx()*sb.Dy())
	if mse == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/mse)
}

// TestJPEGEncoderMatchesImageJPEG encodes real renders (text, scanned, CJK pages; grey and colour; thumbnails and
// a 144-dpi page) and synthetic images with edges that are not multiples of the block size, and checks that Go's
// decoder reads them back at the same size with a fidelity no worse than image/jpeg's at the same quality, in
// about the same number of bytes.
func TestJPEGEncoderMatchesImageJPEG(t *testing.T) {
	type tc struct {
		img     image.Image
		quality int
	}
	cases := map[string]tc{}
	for name, page := range map[string]struct {
		file string
		page int
		dpi  float64
	}{
		"text thumbnail":     {"pdf/real/R-refman.pdf", 12, 0},
		"text page 144 dpi":  {"pdf/real/R-refman.pdf", 0, 144},
		"colour figure page": {"pdf/real/hsaur3-Ch_graphical_display.pdf", 3, 0},
		"scanned thumbnail":  {"pdf/scanned/c02-22.pdf", 0, 0},
		"cjk thumbnail":      {"pdf/cjk/zhlipsum.pdf", 1, 0},
	} {
		e, err := openEngine(testdata(t, page.file), "", Limits{})
		if err != nil {
			t.Fatal(err)
		}
		dpi := page.dpi
		if dpi == 0 {
			w, h, err := e.pageSize(page.page)
			if err != nil {
				t.Fatal(err)
			}
			dpi = 72 * 256 / math.Max(w, h)
		}
		img, _, err := e.render(page.page, dpi, nil, 0)
		e.close()
		if err != nil {
			t.Fatal(err)
		}
		cases[name] = tc{img, 80}
		cases[name+" q95"] = tc{img, 95}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []image.Point{{1, 1}, {7, 13}, {17, 33}, {255, 130}} {
		noise := image.NewRGBA(image.Rect(0, 0, size.X, size.Y))
		grad := image.NewRGBA(image.Rect(0, 0, size.X, size.Y))
		grey := image.NewGray(image.Rect(0, 0, size.X, size.Y))
		for y := range size.Y {
			for x := range size.X {
				noise.Set(x, y, color.RGBA{uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)), 255})
				grad.Set(x, y, color.RGBA{uint8(x * 255 / max(size.X, 2)), uint8(y * 255 / max(size.Y, 2)), 200, 255})
				grey.SetGray(x, y, color.Gray{uint8((x*x + 3*y) % 256)})
			}
		}
		s := size.String()
		cases["noise "+s] = tc{noise, 80}
		cases["gradient "+s] = tc{grad, 80}
		cases["grey "+s] = tc{grey, 80}
		cases["noise q100 "+s] = tc{noise, 100}
		cases["gradient q5 "+s] = tc{grad, 5}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			ours, ok, err := appendJPEG(nil, c.img, c.quality)
			if !ok || err != nil {
				t.Fatalf("encodeJPEG: ok %v, %v", ok, err)
			}
			var theirs bytes.Buffer
			if err := jpeg.Encode(&theirs, c.img, &jpeg.Options{Quality: c.quality}); err != nil {
				t.Fatal(err)
			}
			pOurs, pGo := jpegPSNR(t, c.img, ours), jpegPSNR(t, c.img, theirs.Bytes())
			t.Logf("%d bytes, PSNR %.2f dB; image/jpeg %d bytes, %.2f dB", len(ours), pOurs, theirs.Len(), pGo)
			if pOurs < pGo-0.3 {
				t.Errorf("PSNR %.2f dB, image/jpeg gets %.2f dB", pOurs, pGo)
			}
			if len(ours) > theirs.Len()*11/10+64 {
				t.Errorf("%d bytes, image/jpeg needs %d", len(ours), theirs.Len())
			}
			if _, isGrey := c.img.(*image.Gray); isGrey {
				if dec, _ := jpeg.Decode(bytes.NewReader(ours)); dec.ColorModel() != color.GrayModel {
					t.Errorf("grey image decoded as %T", dec)
				}
			}
		})
	}
}

// TestJPEGFlatBlocks checks the path that codes flat blocks without a DCT: flat images of several levels decode to
// their level.
func TestJPEGFlatBlocks(t *testing.T) {
	for _, level := range []uint8{0, 1, 127, 128, 200, 254, 255} {
		img := image.NewRGBA(image.Rect(0, 0, 40, 24))
		for i := range img.Pix {
			img.Pix[i] = level
		}
		data, _, err := appendJPEG(nil, img, 80)
		if err != nil {
			t.Fatal(err)
		}
		dec, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for y := 0; y < 24; y++ {
			for x := 0; x < 40; x++ {
				r, g, b, _ := dec.At(x, y).RGBA()
				for _, v := range []uint32{r >> 8, g >> 8, b >> 8} {
					if d := int(v) - int(level); d < -2 || d > 2 {
						t.Fatalf("level %d: pixel (%d,%d) decodes to %d", level, x, y, v)
					}
				}
			}
		}
	}
}
