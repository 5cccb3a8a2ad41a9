package kbagent

import (
	"context"
	"image"
	"image/color"
	"math"
	"testing"

	"proofglass/backend/vision"
)

func TestFitRender(t *testing.T) {
	out := vision.Size{W: 40, H: 30}
	cases := map[string]struct {
		in      vision.Size
		fx, fy  float64 // where the region starts in the render
		cropped bool    // a window of the render, not a resample
		origin  image.Point
	}{
		"exact":                        {vision.Size{W: 40, H: 30}, 0, 0, true, image.Point{}},
		"exact, origin inside a pixel": {vision.Size{W: 40, H: 30}, 0.7, 0.9, true, image.Point{}},
		"one pixel of rounding":        {vision.Size{W: 41, H: 31}, 0.2, 0.6, true, image.Point{Y: 1}},
		"two pixels":                   {vision.Size{W: 42, H: 32}, 0.5, 0.4, true, image.Point{X: 1}},
		"smaller: resized":             {vision.Size{W: 39, H: 30}, 0, 0, false, image.Point{}},
		"much larger: resized":         {vision.Size{W: 80, H: 60}, 0, 0, false, image.Point{}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			src := image.NewGray(image.Rect(0, 0, c.in.W, c.in.H))
			for i := range src.Pix {
				src.Pix[i] = uint8(i * 7)
			}
			got := fitRender(src, out, c.fx, c.fy)
			if vision.SizeOf(got) != out {
				t.Fatalf("size %v, want %v", vision.SizeOf(got), out)
			}
			g, ok := got.(*image.Gray)
			if !ok {
				t.Fatalf("result %T", got)
			}
			shared := len(g.Pix) > 0 && &g.Pix[0] == &src.Pix[src.PixOffset(g.Rect.Min.X, g.Rect.Min.Y)]
			if shared != c.cropped {
				t.Fatalf("cropped %v, want %v", shared, c.cropped)
			}
			if c.cropped && g.Rect.Min != c.origin {
				t.Fatalf("window at %v, want %v", g.Rect.Min, c.origin)
			}
		})
	}
}

// TestRenderPDFRegionAligned: a region rendered on its own (a zoom at the page's own scale here) must line up pixel
// for pixel with the same region cut from the whole page's render: the clip and the fitting to the asked size shift
// nothing. Shifts of one pixel either way must match worse.
func TestRenderPDFRegionAligned(t *testing.T) {
	r, u, info := firstPDFPage(t)
	ctx := context.Background()
	ps := vision.VRAGSize(info.Size)
	page, err := r.Render(ctx, u, vision.Rect{}, ps)
	if err != nil {
		t.Fatal(err)
	}
	sx, sy := float64(info.Size.W)/float64(ps.W), float64(info.Size.H)/float64(ps.H)
	// The title band, in page-render pixels.
	want := image.Rect(60, 50, 480, 150)
	region := vision.Rect{X0: float64(want.Min.X) * sx, Y0: float64(want.Min.Y) * sy, X1: float64(want.Max.X) * sx, Y1: float64(want.Max.Y) * sy}
	got, err := r.Render(ctx, u, region, vision.Size{W: want.Dx(), H: want.Dy()})
	if err != nil {
		t.Fatal(err)
	}
	best, bestErr := image.Point{}, math.Inf(1)
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			e := meanAbsDiff(got, page, want.Min.Add(image.Point{X: dx, Y: dy}))
			t.Logf("shift (%d,%d): mean |diff| %.2f", dx, dy, e)
			if e < bestErr {
				best, bestErr = image.Point{X: dx, Y: dy}, e
			}
		}
	}
	if best != (image.Point{}) {
		t.Fatalf("the region render matches the page render best shifted by %v", best)
	}
	if bestErr > 2 {
		t.Fatalf("the region render differs from the page render's pixels by %.2f levels on average", bestErr)
	}
}

// meanAbsDiff compares a's pixels with b's starting at b's pixel at (relative to b's origin).
func meanAbsDiff(a, b image.Image, at image.Point) float64 {
	ab, bb := a.Bounds(), b.Bounds()
	sum := 0.0
	for y := 0; y < ab.Dy(); y++ {
		for x := 0; x < ab.Dx(); x++ {
			g1 := color.GrayModel.Convert(a.At(ab.Min.X+x, ab.Min.Y+y)).(color.Gray).Y
			g2 := color.GrayModel.Convert(b.At(bb.Min.X+at.X+x, bb.Min.Y+at.Y+y)).(color.Gray).Y
			sum += math.Abs(float64(g1) - float64(g2))
		}
	}
	return sum / float64(ab.Dx()*ab.Dy())
}
