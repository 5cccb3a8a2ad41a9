package imagefile

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	_ "image/gif" // decoders registered for image.Decode
	"image/jpeg"
	_ "image/png"
	"os"

	xdraw "golang.org/x/image/draw"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/tiff"
	_ "golang.org/x/image/webp"
)

// Errors an image can fail with; the returned errors wrap one of these and name the file.
var (
	ErrEmpty       = errors.New("empty file")
	ErrUnsupported = errors.New("unsupported or unrecognised image format")
	ErrTooLarge    = errors.New("image too large (possible decompression bomb)")
	ErrCorrupt     = errors.New("damaged image")
)

// Options bounds and shapes Process.
type Options struct {
	// MaxPixels refuses images whose header declares more pixels; checked before any pixel is decoded.
	// 0 means DefaultMaxPixels.
	MaxPixels int
	// MaxFileBytes refuses larger files; 0 means 256 MiB.
	MaxFileBytes int64
	// NormalSide is the longest side of the normalised JPEG (images are never enlarged); 0 means 2048.
	NormalSide int
	// ThumbSide is the longest side of the thumbnail; 0 means 256.
	ThumbSide int
	// Quality is the normalised JPEG's quality; 0 means 90. Thumbnails use 80.
	Quality int
}

// DefaultMaxPixels allows common camera photos (up to about 60 megapixels) and refuses bombs.
const DefaultMaxPixels = 64_000_000

func (o Options) withDefaults() Options {
	if o.MaxPixels <= 0 {
		o.MaxPixels = DefaultMaxPixels
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = 256 << 20
	}
	if o.NormalSide <= 0 {
		o.NormalSide = 2048
	}
	if o.ThumbSide <= 0 {
		o.ThumbSide = 256
	}
	if o.Quality <= 0 {
		o.Quality = 90
	}
	return o
}

// Result is an image made safe for the knowledge base.
type Result struct {
	Kind Kind `json:"kind"`
	// Width and Height are the upright size of the original (after EXIF orientation).
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	Orientation int    `json:"orientation"`     // the EXIF orientation applied (1 = none)
	Taken       string `json:"taken,omitempty"` // the date the EXIF says it was taken, YYYY-MM-DD
	// Normal is an upright JPEG no larger than Options.NormalSide; Thumb likewise for Options.ThumbSide.
	Normal  []byte `json:"-"`
	NormalW int    `json:"normal_w"`
	NormalH int    `json:"normal_h"`
	Thumb   []byte `json:"-"`
	ThumbW  int    `json:"thumb_w"`
	ThumbH  int    `json:"thumb_h"`
}

// ProcessFile reads and processes the image at path.
func ProcessFile(path string, o Options) (*Result, error) {
	o = o.withDefaults()
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", path, err)
	}
	if st.Size() > o.MaxFileBytes {
		return nil, fmt.Errorf("image %s: %w: file of %d bytes exceeds %d", path, ErrTooLarge, st.Size(), o.MaxFileBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", path, err)
	}
	return Process(path, b, o)
}

// Process checks the declared size of the encoded image b, decodes it, turns it upright and encodes the normalised
// JPEG and the thumbnail. name identifies the image in errors.
func Process(name string, b []byte, o Options) (res *Result, err error) {
	o = o.withDefaults()
	if len(b) == 0 {
		return nil, fmt.Errorf("image %s: %w", name, ErrEmpty)
	}
	kind := Sniff(b[:min(len(b), SniffLen)])
	if kind.Class() != ClassImage {
		return nil, fmt.Errorf("image %s: %w", name, ErrUnsupported)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("image %s: %w: reading the %s header: %v", name, ErrCorrupt, kind, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, fmt.Errorf("image %s: %w: header declares %dx%d", name, ErrCorrupt, cfg.Width, cfg.Height)
	}
	if int64(cfg.Width)*int64(cfg.Height) > int64(o.MaxPixels) {
		return nil, fmt.Errorf("image %s: %w: header declares %dx%d = %d pixels, the limit is %d", name, ErrTooLarge,
			cfg.Width, cfg.Height, int64(cfg.Width)*int64(cfg.Height), o.MaxPixels)
	}
	// Third-party decoders have panicked on fuzzed input before; one bad file must not take the process down.
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("image %s: %w: decoder panicked: %v", name, ErrCorrupt, r)
		}
	}()
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("image %s: %w: %v", name, ErrCorrupt, err)
	}
	orientation, taken := 1, ""
	if kind == JPEG {
		orientation, taken = jpegOrientation(b), jpegTaken(b)
	}
	img = orient(img, orientation)
	res = &Result{Kind: kind, Width: img.Bounds().Dx(), Height: img.Bounds().Dy(), Orientation: orientation, Taken: taken}
	normal := fit(img, o.NormalSide)
	if res.Normal, err = encodeJPEG(normal, o.Quality); err != nil {
		return nil, fmt.Errorf("image %s: %w", name, err)
	}
	res.NormalW, res.NormalH = normal.Bounds().Dx(), normal.Bounds().Dy()
	thumb := fit(normal, o.ThumbSide)
	if res.Thumb, err = encodeJPEG(thumb, 80); err != nil {
		return nil, fmt.Errorf("image %s: %w", name, err)
	}
	res.ThumbW, res.ThumbH = thumb.Bounds().Dx(), thumb.Bounds().Dy()
	return res, nil
}

// fit scales img down so its longest side is at most side, keeping at least one pixel on each side.
func fit(img image.Image, side int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= side && h <= side {
		return img
	}
	var nw, nh int
	if w >= h {
		nw, nh = side, max(1, int(float64(h)*float64(side)/float64(w)+0.5))
	} else {
		nw, nh = max(1, int(float64(w)*float64(side)/float64(h)+0.5)), side
	}
	dst := image.NewRGBA(image.Rect(0, 0, nw, nh))
	xdraw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}

// toRGBA returns img as an *image.RGBA with its origin at 0,0, flattened onto white where it is transparent.
func toRGBA(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok && r.Bounds().Min == (image.Point{}) && opaque(img) {
		return r
	}
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Bounds(), image.White, image.Point{}, draw.Src)
	draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Over)
	return dst
}

func opaque(img image.Image) bool {
	o, ok := img.(interface{ Opaque() bool })
	return ok && o.Opaque()
}

func encodeJPEG(img image.Image, q int) ([]byte, error) {
	if !opaque(img) {
		img = toRGBA(img) // JPEG has no alpha: flatten onto white rather than black
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
		return nil, fmt.Errorf("encode jpeg: %w", err)
	}
	return buf.Bytes(), nil
}
