package vision

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Rect is a box in pixels: [X0, X1) × [Y0, Y1).
type Rect struct {
	X0 float64 `json:"x0"`
	Y0 float64 `json:"y0"`
	X1 float64 `json:"x1"`
	Y1 float64 `json:"y1"`
}

// W is the width of r.
func (r Rect) W() float64 { return r.X1 - r.X0 }

// H is the height of r.
func (r Rect) H() float64 { return r.Y1 - r.Y0 }

// Array returns r as [x0, y0, x1, y1].
func (r Rect) Array() [4]float64 { return [4]float64{r.X0, r.Y0, r.X1, r.Y1} }

// Full is the rect covering an image of size s.
func Full(s Size) Rect { return Rect{X1: float64(s.W), Y1: float64(s.H)} }

// CropPad is VRAG's padding around a requested crop, in raw pixels.
const CropPad = 56

// View is an image the model has seen: which part of the raw page it shows (in raw page pixels; the whole page for a
// retrieved page, the padded region for a crop) and the size the model's encoder saw it at (the bbox frame).
type View struct {
	Region  Rect
	Encoded Size
}

// ErrBadBBox reports a box that cannot be mapped to a non-empty region.
var ErrBadBBox = errors.New("invalid bbox")

// MapBBox maps a box the model wrote (pixels of v.Encoded) to raw page pixels: scale by raw/encoded per axis, widen by
// pad raw pixels on every side, clamp to the view's region. Because the result is in page pixels, a crop of a crop
// maps through the previous crop's region. A box with corners swapped is accepted; one that ends up empty is not.
func MapBBox(v View, box [4]float64, pad float64) (Rect, error) {
	if v.Encoded.W <= 0 || v.Encoded.H <= 0 || v.Region.W() <= 0 || v.Region.H() <= 0 {
		return Rect{}, fmt.Errorf("%w: no image to crop", ErrBadBBox)
	}
	for _, c := range box {
		if math.IsNaN(c) || math.IsInf(c, 0) || c < 0 {
			return Rect{}, fmt.Errorf("%w: coordinates must be non-negative numbers: %v", ErrBadBBox, box)
		}
	}
	x0, y0, x1, y1 := box[0], box[1], box[2], box[3]
	if x1 < x0 {
		x0, x1 = x1, x0
	}
	if y1 < y0 {
		y0, y1 = y1, y0
	}
	sx := v.Region.W() / float64(v.Encoded.W)
	sy := v.Region.H() / float64(v.Encoded.H)
	r := Rect{
		X0: math.Max(v.Region.X0+x0*sx-pad, v.Region.X0),
		Y0: math.Max(v.Region.Y0+y0*sy-pad, v.Region.Y0),
		X1: math.Min(v.Region.X0+x1*sx+pad, v.Region.X1),
		Y1: math.Min(v.Region.Y0+y1*sy+pad, v.Region.Y1),
	}
	if r.W() < 1 || r.H() < 1 {
		return Rect{}, fmt.Errorf("%w: %v lies outside the %dx%d image", ErrBadBBox, box, v.Encoded.W, v.Encoded.H)
	}
	return r, nil
}

// ParseBBox reads the body of a <bbox> tag: four non-negative numbers, normally a JSON list "[x1, y1, x2, y2]".
// It is lenient about brackets, parentheses and separators, but not about the count or sign of the numbers.
func ParseBBox(s string) ([4]float64, error) {
	var out [4]float64
	fields := strings.FieldsFunc(s, func(r rune) bool {
		switch r {
		case '[', ']', '(', ')', ',', ' ', '\t', '\n', '\r':
			return true
		}
		return false
	})
	if len(fields) != 4 {
		return out, fmt.Errorf("%w: want 4 numbers, got %q", ErrBadBBox, s)
	}
	for i, f := range fields {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return out, fmt.Errorf("%w: %q is not a number", ErrBadBBox, f)
		}
		if v < 0 {
			return out, fmt.Errorf("%w: negative coordinate %q", ErrBadBBox, f)
		}
		out[i] = v
	}
	return out, nil
}
