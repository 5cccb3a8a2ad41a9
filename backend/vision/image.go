package vision

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"math"

	_ "image/png" // page renders and test images may be PNG

	"golang.org/x/image/draw"
)

// DefaultQuality is the JPEG quality the reference uses everywhere (PIL's default, and VimRAG's explicit 75).
const DefaultQuality = 75

// MemoryJPEGBytes is VimRAG's cap on one memory image or frame.
const MemoryJPEGBytes = 38000

// Scaler resamples the image types Resize has no fast path for. Catmull-Rom is close to PIL's bicubic default and
// keeps small text legible; the fast paths (resample.go) compute the same filter.
var Scaler draw.Scaler = draw.CatmullRom

// Decode reads a JPEG or PNG.
func Decode(data []byte) (image.Image, error) {
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode image (%d bytes): %w", len(data), err)
	}
	return img, nil
}

// SizeOf returns an image's size.
func SizeOf(img image.Image) Size {
	b := img.Bounds()
	return Size{W: b.Dx(), H: b.Dy()}
}

// Resize returns img scaled to exactly s (img itself when it already has that size) with a Catmull-Rom filter.
// RGBA, Gray and YCbCr images (JPEG's, scaled plane by plane at their subsampling) keep their type; others become
// RGBA.
func Resize(img image.Image, s Size) image.Image {
	if SizeOf(img) == s {
		return img
	}
	if s.W <= 0 || s.H <= 0 || img.Bounds().Empty() {
		return image.NewRGBA(image.Rect(0, 0, max(0, s.W), max(0, s.H)))
	}
	switch m := img.(type) {
	case *image.RGBA:
		return resizeRGBA(m, s)
	case *image.Gray:
		return resizeGray(m, s)
	case *image.YCbCr:
		if out, ok := resizeYCbCr(m, s); ok {
			return out
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, s.W, s.H))
	Scaler.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
	return dst
}

// PixelRect rounds r to whole pixels the way PIL's crop does (half to even) and clamps it to s.
func PixelRect(r Rect, s Size) image.Rectangle {
	pr := image.Rect(int(math.RoundToEven(r.X0)), int(math.RoundToEven(r.Y0)),
		int(math.RoundToEven(r.X1)), int(math.RoundToEven(r.Y1)))
	return pr.Intersect(image.Rect(0, 0, s.W, s.H))
}

// Crop cuts r (in img's pixel coordinates, origin at its top-left) out of img without copying where possible.
func Crop(img image.Image, r Rect) image.Image {
	b := img.Bounds()
	pr := PixelRect(r, SizeOf(img)).Add(b.Min)
	if si, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	}); ok {
		return si.SubImage(pr)
	}
	dst := image.NewRGBA(image.Rect(0, 0, pr.Dx(), pr.Dy()))
	draw.Draw(dst, dst.Bounds(), img, pr.Min, draw.Src)
	return dst
}

// EncodeJPEG encodes img as JPEG at quality q.
func EncodeJPEG(img image.Image, q int) ([]byte, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
		return nil, fmt.Errorf("encode jpeg %v: %w", SizeOf(img), err)
	}
	return buf.Bytes(), nil
}

// EncodeJPEGUnder encodes img at quality q; while the file is over maxBytes it shrinks the image by
// √(0.95·maxBytes/size) (VimRAG's rule) and re-encodes from the original pixels. It returns the bytes and the final
// size. maxBytes ≤ 0 means no cap.
func EncodeJPEGUnder(img image.Image, maxBytes, q int) ([]byte, Size, error) {
	s := SizeOf(img)
	cur := img
	for attempt := 0; ; attempt++ {
		data, err := EncodeJPEG(cur, q)
		if err != nil {
			return nil, Size{}, err
		}
		if maxBytes <= 0 || len(data) <= maxBytes {
			return data, s, nil
		}
		if attempt == 12 || (s.W == 1 && s.H == 1) {
			return nil, Size{}, fmt.Errorf("encode jpeg under %d bytes: still %d bytes at %dx%d", maxBytes, len(data), s.W, s.H)
		}
		r := math.Sqrt(0.95 * float64(maxBytes) / float64(len(data)))
		s = Size{W: max(1, int(float64(s.W)*r)), H: max(1, int(float64(s.H)*r))}
		cur = Resize(img, s)
	}
}

// FitImage scales img down (never up) so that it has at most maxPixels pixels, with FitPixels' arithmetic.
func FitImage(img image.Image, maxPixels int) image.Image {
	return Resize(img, FitPixels(SizeOf(img), 0, maxPixels))
}
