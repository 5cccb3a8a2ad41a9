package kbagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // stored images and frames are JPEG
	_ "image/png"
	"math"
	"sync"

	"proofglass/backend/agent"
	"proofglass/backend/imagefile"
	"proofglass/backend/kb"
	"proofglass/backend/pdf"
	"proofglass/backend/vision"
)

// RawDPI is the resolution a PDF page's raw pixels are measured at: VRAG's corpus was rendered at 200 DPI, so the
// model's bbox padding (56 raw px) and crop sizes mean the same on Proofglass's pages as in training.
const RawDPI = 200

// Renderer draws units for the agent: PDF pages through MuPDF (any region at the resolution asked: a true zoom),
// images and video clips from their stored normalised pixels. Safe for concurrent use.
type Renderer struct {
	KB  *kb.KB
	PDF *pdf.Renderer // nil: PDF pages cannot be rendered
	// Password returns the remembered password of an encrypted PDF; nil means none.
	Password func(kb.Document) string

	mu    sync.Mutex
	units map[int64]*unitSource
	last  *decoded // the most recently decoded stored image: crops of one picture come in a row
}

type unitSource struct {
	unit kb.Unit
	doc  kb.Document
	size vision.Size // raw pixels: the original's upright size for an image kept at full resolution
	// stored is the size of the unit's stored (display) image when the original is larger: regions that need more
	// pixels than it has are cut from the original.
	stored vision.Size
}

// imageMeta is the part of a document's meta ingest writes for an image: the original's upright size.
type imageMeta struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

type decoded struct {
	blob string
	img  image.Image
}

func (r *Renderer) source(ctx context.Context, unitID string) (*unitSource, error) {
	id, err := ParseID(unitID)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	s, ok := r.units[id]
	r.mu.Unlock()
	if ok {
		return s, nil
	}
	u, err := r.KB.Content.Unit(ctx, id)
	if err != nil {
		return nil, err
	}
	d, err := r.KB.Docs.Document(ctx, u.DocumentID)
	if err != nil {
		return nil, fmt.Errorf("unit %d: %w", id, err)
	}
	s = &unitSource{unit: u, doc: d}
	switch {
	case u.Kind == kb.UnitPage:
		if u.Width <= 0 || u.Height <= 0 {
			return nil, fmt.Errorf("unit %d (page %d of %s) has no page size", id, u.Ordinal, d.Name)
		}
		s.size = vision.Size{W: pointsToRaw(u.Width), H: pointsToRaw(u.Height)}
	case u.ImageBlob != "":
		f, err := r.KB.Blobs.Open(u.ImageBlob)
		if err != nil {
			return nil, fmt.Errorf("unit %d of %s: stored image: %w", id, d.Name, err)
		}
		cfg, _, err := image.DecodeConfig(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("unit %d of %s: stored image %s: %w", id, d.Name, u.ImageBlob, err)
		}
		s.size = vision.Size{W: cfg.Width, H: cfg.Height}
		// An image whose original is larger than its stored copy (kept at ≤ 2048 px for the grid and the viewer):
		// raw pixels are the original's, as VRAG crops image_raw.
		var m imageMeta
		if u.Kind == kb.UnitImage && d.Kind == "image" && d.Blob != "" && json.Unmarshal([]byte(d.Meta), &m) == nil &&
			m.Width > cfg.Width && m.Height > cfg.Height && r.KB.Blobs.Has(d.Blob) {
			s.stored, s.size = s.size, vision.Size{W: m.Width, H: m.Height}
		}
	default:
		return nil, fmt.Errorf("unit %d of %s (%s) has no stored image", id, d.Name, u.Kind)
	}
	r.mu.Lock()
	if r.units == nil {
		r.units = map[int64]*unitSource{}
	}
	r.units[id] = s
	r.mu.Unlock()
	return s, nil
}

func pointsToRaw(pt float64) int { return max(1, int(math.Round(pt*RawDPI/72))) }

// PageInfo gives a unit's raw size: the 200-DPI pixel size of a PDF page, the stored pixels of an image or clip.
func (r *Renderer) PageInfo(ctx context.Context, unitID string) (agent.PageInfo, error) {
	s, err := r.source(ctx, unitID)
	if err != nil {
		return agent.PageInfo{}, err
	}
	return agent.PageInfo{Size: s.size, Vector: s.unit.Kind == kb.UnitPage}, nil
}

// Render draws region (raw pixels; zero means the whole unit) at exactly out.
func (r *Renderer) Render(ctx context.Context, unitID string, region vision.Rect, out vision.Size) (image.Image, error) {
	if out.W <= 0 || out.H <= 0 {
		return nil, fmt.Errorf("render unit %s: output size %dx%d", unitID, out.W, out.H)
	}
	s, err := r.source(ctx, unitID)
	if err != nil {
		return nil, err
	}
	full := vision.Full(s.size)
	if region == (vision.Rect{}) {
		region = full
	}
	region = vision.Rect{X0: max(0, region.X0), Y0: max(0, region.Y0), X1: min(full.X1, region.X1), Y1: min(full.Y1, region.Y1)}
	if region.W() <= 0 || region.H() <= 0 {
		return nil, fmt.Errorf("render unit %s: region %v lies outside the %dx%d page", unitID, region.Array(), s.size.W, s.size.H)
	}
	if s.unit.Kind == kb.UnitPage {
		return r.renderPDF(ctx, s, region, out)
	}
	if s.stored.W > 0 {
		// The stored copy suffices when the region has at least out's pixels in it; a closer look needs the original.
		fx, fy := float64(s.stored.W)/float64(s.size.W), float64(s.stored.H)/float64(s.size.H)
		if region.W()*fx < float64(out.W) || region.H()*fy < float64(out.H) {
			img, err := r.original(s)
			if err != nil {
				return nil, err
			}
			return scale(vision.Crop(img, region), out), nil
		}
		region = vision.Rect{X0: region.X0 * fx, Y0: region.Y0 * fy, X1: region.X1 * fx, Y1: region.Y1 * fy}
	}
	img, err := r.stored(s)
	if err != nil {
		return nil, err
	}
	return scale(vision.Crop(img, region), out), nil
}

// original decodes the document's original upright (cached like the stored images: crops of one picture come in a
// row).
func (r *Renderer) original(s *unitSource) (image.Image, error) {
	key := "original:" + s.doc.Blob
	r.mu.Lock()
	last := r.last
	r.mu.Unlock()
	if last != nil && last.blob == key {
		return last.img, nil
	}
	data, err := r.KB.Blobs.Get(s.doc.Blob)
	if err != nil {
		return nil, fmt.Errorf("unit %d of %s: original %s: %w", s.unit.ID, s.doc.Name, s.doc.Blob, err)
	}
	img, err := imagefile.DecodeUpright(s.doc.Name, data)
	if err != nil {
		return nil, fmt.Errorf("unit %d: %w", s.unit.ID, err)
	}
	if got := vision.SizeOf(img); got != s.size {
		return nil, fmt.Errorf("unit %d of %s: the original decodes to %dx%d, its record says %dx%d", s.unit.ID, s.doc.Name, got.W, got.H, s.size.W, s.size.H)
	}
	r.mu.Lock()
	r.last = &decoded{blob: key, img: img}
	r.mu.Unlock()
	return img, nil
}

// scale resizes to exactly out. vision.Resize scales JPEG's YCbCr planes directly, so a decoded page or render is
// never expanded to RGBA.
func scale(img image.Image, out vision.Size) image.Image { return vision.Resize(img, out) }

// renderPDF asks MuPDF for the region at the DPI that makes it out.W pixels wide, then fits the last pixel of
// rounding by resizing.
func (r *Renderer) renderPDF(ctx context.Context, s *unitSource, region vision.Rect, out vision.Size) (image.Image, error) {
	if r.PDF == nil {
		return nil, errors.New("render pdf page: no pdf renderer configured")
	}
	path, err := r.pdfPath(s)
	if err != nil {
		return nil, err
	}
	dpi := RawDPI * float64(out.W) / region.W()
	pt := 72.0 / RawDPI
	clip := pdf.Box{X0: region.X0 * pt, Y0: region.Y0 * pt, X1: region.X1 * pt, Y1: region.Y1 * pt}
	password := ""
	if r.Password != nil {
		password = r.Password(s.doc)
	}
	rend, err := r.PDF.Render(ctx, path, password, pdf.RenderRequest{
		Page: s.unit.Ordinal - 1, DPI: dpi, Clip: &clip, Format: pdf.JPEG, Quality: 92,
		MaxPixels: 2 * (out.W + 2) * (out.H + 2), MIME: s.doc.MIME,
	})
	if err != nil {
		return nil, fmt.Errorf("render page %d of %s: %w", s.unit.Ordinal, s.doc.Name, err)
	}
	img, _, err := image.Decode(bytes.NewReader(rend.Data))
	if err != nil {
		return nil, fmt.Errorf("render page %d of %s: decode: %w", s.unit.Ordinal, s.doc.Name, err)
	}
	// The pdf engine's pixel rectangle starts at floor(clip origin × zoom) (page boxes at the origin, as usual).
	zoom := rend.DPI / RawDPI
	fx, fy := region.X0*zoom, region.Y0*zoom
	return fitRender(img, out, fx-math.Floor(fx), fy-math.Floor(fy)), nil
}

// fitRender makes a MuPDF render exactly out. MuPDF renders the clip rounded outwards to whole pixels, so at the
// asked scale a render is usually a pixel or two larger than out, with the region starting at (fx, fy) inside it:
// cutting the out-sized window nearest that origin keeps every pixel sharp and in place, where resampling by a
// fraction of a percent would soften the whole image, shift it by up to half a pixel, and cost a pass over it.
// Anything else (MaxPixels lowered the DPI) is resized.
func fitRender(img image.Image, out vision.Size, fx, fy float64) image.Image {
	in := vision.SizeOf(img)
	dx, dy := in.W-out.W, in.H-out.H
	if dx < 0 || dy < 0 || dx > 2 || dy > 2 {
		return scale(img, out)
	}
	x0 := min(float64(dx), math.Round(fx))
	y0 := min(float64(dy), math.Round(fy))
	return vision.Crop(img, vision.Rect{X0: x0, Y0: y0, X1: x0 + float64(out.W), Y1: y0 + float64(out.H)})
}

// pdfPath is the original in the blob store, or the file it was added from when the store has no copy.
func (r *Renderer) pdfPath(s *unitSource) (string, error) {
	if s.doc.Blob != "" && r.KB.Blobs.Has(s.doc.Blob) {
		return r.KB.Blobs.Path(s.doc.Blob), nil
	}
	if s.doc.SourcePath != "" {
		return s.doc.SourcePath, nil
	}
	return "", fmt.Errorf("document %d (%s): the original PDF is neither in the blob store nor at a source path", s.doc.ID, s.doc.Name)
}

func (r *Renderer) stored(s *unitSource) (image.Image, error) {
	blob := s.unit.ImageBlob
	r.mu.Lock()
	last := r.last
	r.mu.Unlock()
	if last != nil && last.blob == blob {
		return last.img, nil
	}
	img, err := decodeBlob(r.KB, blob)
	if err != nil {
		return nil, fmt.Errorf("unit %d of %s: %w", s.unit.ID, s.doc.Name, err)
	}
	r.mu.Lock()
	r.last = &decoded{blob: blob, img: img}
	r.mu.Unlock()
	return img, nil
}

func decodeBlob(k *kb.KB, blob string) (image.Image, error) {
	data, err := k.Blobs.Get(blob)
	if err != nil {
		return nil, fmt.Errorf("stored image %s: %w", blob, err)
	}
	img, err := vision.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("stored image %s: %w", blob, err)
	}
	return img, nil
}

// Forget drops what the renderer remembers of units and images, so a deleted document's units are looked up in the
// database again (and not found) instead of being drawn from memory.
func (r *Renderer) Forget() {
	r.mu.Lock()
	r.units = nil
	r.last = nil
	r.mu.Unlock()
}
