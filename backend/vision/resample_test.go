package vision

import (
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/image/draw"
)

func loadTestImage(t testing.TB, rel string) image.Image {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdata(t), rel))
	if err != nil {
		t.Skipf("test image %s missing: %v", rel, err)
	}
	img, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// reference is x/image's Catmull-Rom, the filter the fast paths reproduce.
func reference(img image.Image, s Size) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, s.W, s.H))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
	return dst
}

// psnr compares two same-sized images over R, G and B.
func psnr(a, b image.Image) float64 {
	ab, bb := a.Bounds(), b.Bounds()
	var se float64
	for y := 0; y < ab.Dy(); y++ {
		for x := 0; x < ab.Dx(); x++ {
			r1, g1, b1, _ := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, _ := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			for _, d := range []float64{float64(r1>>8) - float64(r2>>8), float64(g1>>8) - float64(g2>>8), float64(b1>>8) - float64(b2>>8)} {
				se += d * d
			}
		}
	}
	mse := se / float64(3*ab.Dx()*ab.Dy())
	if mse == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/mse)
}

func toRGBA(img image.Image) *image.RGBA {
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Src)
	return dst
}

func toGray(img image.Image) *image.Gray {
	b := img.Bounds()
	dst := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Src)
	return dst
}

// TestResizeMatchesCatmullRom checks the fast paths against x/image's Catmull-Rom on real pictures: a page-like chart
// (PNG, RGBA), a photo (JPEG, YCbCr 4:2:0) whole and cut at an odd origin, shrinks and enlargements.
func TestResizeMatchesCatmullRom(t *testing.T) {
	chart := toRGBA(loadTestImage(t, "images/charts/bkf_plot.png"))
	photo := loadTestImage(t, "images/photos/IMG_1054.JPG")
	if _, ok := photo.(*image.YCbCr); !ok {
		t.Fatalf("photo decoded as %T, want *image.YCbCr", photo)
	}
	cs, ps := SizeOf(chart), SizeOf(photo)
	oddCrop := Crop(photo, Rect{X0: 101, Y0: 57, X1: float64(ps.W) / 2, Y1: float64(ps.H)/2 + 1})
	cases := map[string]struct {
		img  image.Image
		size Size
		typ  string
	}{
		"rgba shrink 2.2x":       {chart, Size{cs.W * 10 / 22, cs.H * 10 / 22}, "*image.RGBA"},
		"rgba shrink 1px":        {chart, Size{cs.W - 1, cs.H - 2}, "*image.RGBA"},
		"rgba enlarge 1.7x":      {Crop(chart, Rect{X0: 33, Y0: 21, X1: 233, Y1: 171}), Size{340, 255}, "*image.RGBA"},
		"ycbcr vrag size":        {photo, VRAGSize(ps), "*image.YCbCr"},
		"ycbcr shrink 9x":        {photo, Size{ps.W / 9, ps.H / 9}, "*image.YCbCr"},
		"ycbcr odd crop shrink":  {oddCrop, Size{SizeOf(oddCrop).W / 3, SizeOf(oddCrop).H / 3}, "*image.YCbCr"},
		"ycbcr odd crop enlarge": {Crop(photo, Rect{X0: 301, Y0: 201, X1: 500, Y1: 350}), Size{331, 250}, "*image.YCbCr"},
		"gray shrink":            {toGray(chart), Size{cs.W / 3, cs.H / 2}, "*image.Gray"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := Resize(c.img, c.size)
			if SizeOf(got) != c.size {
				t.Fatalf("size %v, want %v", SizeOf(got), c.size)
			}
			if typ := typeName(got); typ != c.typ {
				t.Fatalf("result is %s, want %s", typ, c.typ)
			}
			if p := psnr(got, reference(c.img, c.size)); p < 35 {
				t.Fatalf("PSNR against x/image Catmull-Rom %.1f dB, want >= 35", p)
			} else {
				t.Logf("PSNR %.1f dB", p)
			}
		})
	}
}

func typeName(img image.Image) string {
	switch img.(type) {
	case *image.RGBA:
		return "*image.RGBA"
	case *image.YCbCr:
		return "*image.YCbCr"
	case *image.Gray:
		return "*image.Gray"
	}
	return "other"
}

// TestResizeFlatAndAlpha: unit-gain weights keep a flat colour exact, and premultiplied colour never exceeds alpha.
func TestResizeFlatAndAlpha(t *testing.T) {
	flat := image.NewRGBA(image.Rect(0, 0, 97, 61))
	draw.Draw(flat, flat.Bounds(), image.NewUniform(color.RGBA{200, 10, 99, 255}), image.Point{}, draw.Src)
	out := Resize(flat, Size{40, 33}).(*image.RGBA)
	for i := 0; i < len(out.Pix); i += 4 {
		if c := out.Pix[i : i+4]; c[0] != 200 || c[1] != 10 || c[2] != 99 || c[3] != 255 {
			t.Fatalf("flat colour changed to %v at byte %d", c, i)
		}
	}
	// A hard edge between opaque white and transparent: Catmull-Rom overshoots, the result must stay premultiplied.
	edge := image.NewRGBA(image.Rect(0, 0, 64, 8))
	draw.Draw(edge, image.Rect(0, 0, 32, 8), image.NewUniform(color.White), image.Point{}, draw.Src)
	out = Resize(edge, Size{91, 8}).(*image.RGBA)
	for i := 0; i < len(out.Pix); i += 4 {
		if c := out.Pix[i : i+4]; c[0] > c[3] || c[1] > c[3] || c[2] > c[3] {
			t.Fatalf("pixel %v not premultiplied at byte %d", c, i)
		}
	}
}

// BenchmarkResize scales a 144-DPI page-sized photo to VRAG's size with x/image's Catmull-Rom (the baseline) and with
// Resize's fast paths; compare the ns/op lines.
func BenchmarkResize(b *testing.B) {
	photo := loadTestImage(b, "images/photos/IMG_1054.JPG")
	// Through Go's encoder: a 4:2:0 JPEG like a rendered page.
	data, err := EncodeJPEG(Resize(photo, Size{1224, 1584}), 90)
	if err != nil {
		b.Fatal(err)
	}
	page, err := Decode(data)
	if err != nil {
		b.Fatal(err)
	}
	s := VRAGSize(SizeOf(page))
	b.Run("baseline-xdraw-catmullrom", func(b *testing.B) {
		for b.Loop() {
			reference(page, s)
		}
	})
	b.Run("ycbcr", func(b *testing.B) {
		for b.Loop() {
			Resize(page, s)
		}
	})
	rgba := toRGBA(page)
	b.Run("rgba", func(b *testing.B) {
		for b.Loop() {
			Resize(rgba, s)
		}
	})
}
