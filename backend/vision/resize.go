// Package vision does the pixel arithmetic of the visual agents: Qwen smart_resize, VRAG image sizing, bbox mapping, crops, JPEG under a byte budget and visual-token estimates.
package vision

import (
	"fmt"
	"math"
)

// Size is an image size in pixels.
type Size struct {
	W int `json:"w"`
	H int `json:"h"`
}

// Pixels is W·H.
func (s Size) Pixels() int { return s.W * s.H }

// Encoder describes how a vision-language model's image processor resizes an image before patching it: each side
// becomes a multiple of Factor (patch size × spatial merge) and the area is kept within [MinPixels, MaxPixels].
// A model's bbox coordinates are pixels of that resized image, so the agent must compute it exactly as the server does.
type Encoder struct {
	Name      string
	Factor    int
	MinPixels int
	MaxPixels int
}

var (
	// Qwen25VL is Qwen2.5-VL (VRAG's model): 14 px patches merged 2×2, the limits from the reference's mapping formula
	// smart_resize(h, w, factor=28, min_pixels=56*56, max_pixels=14*14*4*1280).
	Qwen25VL = Encoder{Name: "qwen2.5-vl", Factor: 28, MinPixels: 56 * 56, MaxPixels: 14 * 14 * 4 * 1280}
	// Qwen3VL is Qwen3-VL (VimRAG's model family): 16 px patches merged 2×2; limits of its image processor
	// (shortest_edge 65,536 px, longest_edge 16,777,216 px).
	Qwen3VL = Encoder{Name: "qwen3-vl", Factor: 32, MinPixels: 65536, MaxPixels: 16777216}
)

// VRAG's sizing of every image it sends (demo and training alike): about 256 to 512 visual tokens at 28×28 px each.
const (
	VRAGMinPixels = 256 * 28 * 28 // 200,704
	VRAGMaxPixels = 512 * 28 * 28 // 401,408
)

// maxAspect is the aspect ratio above which Qwen's processor refuses an image.
const maxAspect = 200

// roundHalfEven matches Python's round(), which smart_resize uses.
func roundHalfEven(x float64) float64 { return math.RoundToEven(x) }

// SmartResize reproduces Qwen's smart_resize: round each side to the nearest multiple of factor (at least factor),
// then, if the area is outside [minPixels, maxPixels], rescale by √ of the area ratio, flooring (too big) or
// ceiling (too small) to multiples of factor.
func SmartResize(s Size, factor, minPixels, maxPixels int) (Size, error) {
	if s.W <= 0 || s.H <= 0 || factor <= 0 {
		return Size{}, fmt.Errorf("smart_resize %dx%d factor %d: non-positive size", s.W, s.H, factor)
	}
	h, w := float64(s.H), float64(s.W)
	if math.Max(h, w)/math.Min(h, w) > maxAspect {
		return Size{}, fmt.Errorf("smart_resize %dx%d: aspect ratio over %d", s.W, s.H, maxAspect)
	}
	f := float64(factor)
	hBar := math.Max(f, roundHalfEven(h/f)*f)
	wBar := math.Max(f, roundHalfEven(w/f)*f)
	switch {
	case hBar*wBar > float64(maxPixels):
		beta := math.Sqrt(h * w / float64(maxPixels))
		hBar = math.Max(f, math.Floor(h/beta/f)*f)
		wBar = math.Max(f, math.Floor(w/beta/f)*f)
	case hBar*wBar < float64(minPixels):
		beta := math.Sqrt(float64(minPixels) / (h * w))
		hBar = math.Ceil(h*beta/f) * f
		wBar = math.Ceil(w*beta/f) * f
	}
	return Size{W: int(wBar), H: int(hBar)}, nil
}

// Resize is the size e's processor turns an image of size s into: the frame of the model's bbox coordinates.
func (e Encoder) Resize(s Size) (Size, error) {
	return SmartResize(s, e.Factor, e.MinPixels, e.MaxPixels)
}

// Tokens estimates the visual tokens an image of size s costs (one token per Factor×Factor block after resizing);
// 0 if s is not a valid image size.
func (e Encoder) Tokens(s Size) int {
	r, err := e.Resize(s)
	if err != nil {
		return 0
	}
	return (r.W / e.Factor) * (r.H / e.Factor)
}

// FitPixels reproduces VRAG's process_image sizing: scale both sides by √(max/area) when the area is above max, then by
// √(min/area) when it is below min, truncating each side to an integer. minPixels or maxPixels ≤ 0 disables that bound.
func FitPixels(s Size, minPixels, maxPixels int) Size {
	if s.W <= 0 || s.H <= 0 {
		return s
	}
	if maxPixels > 0 && s.W*s.H > maxPixels {
		r := math.Sqrt(float64(maxPixels) / float64(s.W*s.H))
		s = Size{W: int(float64(s.W) * r), H: int(float64(s.H) * r)}
	}
	if minPixels > 0 && s.W*s.H < minPixels && s.W*s.H > 0 {
		r := math.Sqrt(float64(minPixels) / float64(s.W*s.H))
		s = Size{W: int(float64(s.W) * r), H: int(float64(s.H) * r)}
	}
	if s.W < 1 {
		s.W = 1
	}
	if s.H < 1 {
		s.H = 1
	}
	return s
}

// VRAGSize is the size VRAG sends an image of raw size s at (256·28² … 512·28² pixels).
func VRAGSize(s Size) Size { return FitPixels(s, VRAGMinPixels, VRAGMaxPixels) }

// ScaleToWidth sizes the image of a w×h region drawn width pixels wide, keeping its aspect, scaled down until
// neither side exceeds maxSide and its area stays within maxPixels (0: no bound). Each side is at least one pixel,
// so a sliver's aspect is kept only as far as whole pixels allow.
func ScaleToWidth(w, h float64, width, maxSide, maxPixels int) Size {
	if w <= 0 || h <= 0 || width <= 0 {
		return Size{W: max(1, width), H: 1}
	}
	s := float64(width) / w
	if maxSide > 0 {
		s = min(s, float64(maxSide)/w, float64(maxSide)/h)
	}
	if maxPixels > 0 && w*s*h*s > float64(maxPixels) {
		s = math.Sqrt(float64(maxPixels) / (w * h))
	}
	out := Size{W: max(1, int(w*s+0.5)), H: max(1, int(h*s+0.5))}
	if maxPixels > 0 && out.W*out.H > maxPixels { // rounded up past the bound: round down instead
		out = Size{W: max(1, int(w*s)), H: max(1, int(h*s))}
	}
	return out
}
