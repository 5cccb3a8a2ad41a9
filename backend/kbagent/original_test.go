package kbagent

import (
	"context"
	"image"
	"math"
	"os"
	"strconv"
	"testing"

	"proofglass/backend/imagefile"
	"proofglass/backend/vision"
)

// psnrOf compares two images of one size in dB over RGB (+Inf when identical).
func psnrOf(t *testing.T, a, b image.Image) float64 {
	t.Helper()
	if vision.SizeOf(a) != vision.SizeOf(b) {
		t.Fatalf("sizes %v and %v", vision.SizeOf(a), vision.SizeOf(b))
	}
	ab, bb := a.Bounds(), b.Bounds()
	var se float64
	n := 0
	for y := 0; y < ab.Dy(); y++ {
		for x := 0; x < ab.Dx(); x++ {
			r1, g1, b1, _ := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, _ := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			for _, d := range []float64{float64(r1>>8) - float64(r2>>8), float64(g1>>8) - float64(g2>>8), float64(b1>>8) - float64(b2>>8)} {
				se += d * d
			}
			n += 3
		}
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/(se/float64(n)))
}

// TestCropOfLargeImageIsFullResolution: a 6000×4500 photo is stored at 2048 px for display; the agent's raw frame is
// the original, and a crop at the original's own scale comes from its pixels, not from the 2.9× smaller copy.
func TestCropOfLargeImageIsFullResolution(t *testing.T) {
	k := openKB(t)
	ctx := context.Background()
	path := testdata(t, "images/large/large-6000x4500-27MP.jpg")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := imagefile.Process(path, data, imagefile.Options{MaxPixels: 40_000_000})
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := k.Blobs.Put(data)
	meta := `{"width":` + itoa(res.Width) + `,"height":` + itoa(res.Height) + `}`
	id, normal := addImageUnit(t, k, "large.jpg", orig, meta, res)
	r := &Renderer{KB: k}
	info, err := r.PageInfo(ctx, ID(id))
	if err != nil {
		t.Fatal(err)
	}
	if info.Size != (vision.Size{W: res.Width, H: res.Height}) {
		t.Fatalf("raw size %v, want the original's %dx%d (stored copy %dx%d)", info.Size, res.Width, res.Height, res.NormalW, res.NormalH)
	}
	full, err := imagefile.DecodeUpright("large.jpg", data)
	if err != nil {
		t.Fatal(err)
	}
	region := vision.Rect{X0: 2400, Y0: 1800, X1: 3000, Y1: 2250} // 600×450 original pixels
	out := vision.Size{W: 600, H: 450}
	got, err := r.Render(ctx, ID(id), region, out)
	if err != nil {
		t.Fatal(err)
	}
	want := vision.Crop(full, region)
	// What a crop of the stored copy gives: the same region, 205×154 stored pixels upscaled.
	sc := float64(res.NormalW) / float64(res.Width)
	storedImg, _ := vision.Decode(res.Normal)
	fromCopy := vision.Resize(vision.Crop(storedImg, vision.Rect{X0: region.X0 * sc, Y0: region.Y0 * sc, X1: region.X1 * sc, Y1: region.Y1 * sc}), out)
	pGot, pCopy := psnrOf(t, got, want), psnrOf(t, fromCopy, want)
	t.Logf("PSNR against the original's crop: full-resolution crop %.1f dB, crop of the %dx%d copy %.1f dB", pGot, res.NormalW, res.NormalH, pCopy)
	if pGot < 45 || pGot < pCopy+10 {
		t.Fatalf("crop PSNR %.1f dB (copy %.1f dB): not cut from the original", pGot, pCopy)
	}
	// The whole image at display size still comes from the stored copy (no 27 MP decode for a thumbnail-sized look).
	r.last = nil
	if _, err := r.Render(ctx, ID(id), vision.Rect{}, vision.Size{W: 800, H: 600}); err != nil {
		t.Fatal(err)
	}
	if r.last == nil || r.last.blob != normal {
		t.Fatalf("a downscaled whole image must use the stored copy, used %v", r.last)
	}
}

func itoa(n int) string {
	return strconv.Itoa(n)
}
