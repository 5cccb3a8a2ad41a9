package kbagent

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"math"

	"proofglass/backend/kb"
	"proofglass/backend/ocr"
	"proofglass/backend/vision"
)

// RegionReader OCRs a region of a page on demand, for the grounding pass over a page without text (a scan
// ingested without OCR): the region is rendered as the agent's crops are, then read by tesseract.
type RegionReader struct {
	Renderer *Renderer
	OCR      *ocr.Engine
}

// minOCRWidth is the narrowest rendering tesseract is given: a narrow region is rendered larger, as small type
// reads badly at the page's reference resolution.
const minOCRWidth = 1600

// RegionWords implements grounding.RegionOCR.
func (r *RegionReader) RegionWords(ctx context.Context, u kb.Unit, region [4]float64) ([]kb.Word, error) {
	info, err := r.Renderer.PageInfo(ctx, ID(u.ID))
	if err != nil {
		return nil, err
	}
	W, H := float64(info.Size.W), float64(info.Size.H)
	rect := vision.Rect{X0: region[0] * W, Y0: region[1] * H, X1: region[2] * W, Y1: region[3] * H}
	if rect.X1-rect.X0 < 1 || rect.Y1-rect.Y0 < 1 {
		return nil, fmt.Errorf("region %v of unit %d is empty", region, u.ID)
	}
	scale := math.Max(1, minOCRWidth/(rect.X1-rect.X0))
	scale = math.Min(scale, math.Sqrt(16e6/((rect.X1-rect.X0)*(rect.Y1-rect.Y0)))) // at most 16 megapixels
	out := vision.Size{W: max(1, int(math.Round((rect.X1-rect.X0)*scale))), H: max(1, int(math.Round((rect.Y1-rect.Y0)*scale)))}
	img, err := r.Renderer.Render(ctx, ID(u.ID), rect, out)
	if err != nil {
		return nil, fmt.Errorf("render region of unit %d: %w", u.ID, err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode region of unit %d: %w", u.ID, err)
	}
	res, err := r.OCR.Recognize(ctx, fmt.Sprintf("region of page %d (unit %d)", u.Ordinal, u.ID), buf.Bytes())
	if err != nil {
		return nil, err
	}
	// Image pixels → the unit's word space: the region's place on the page plus the word's place in the region.
	x0, y0 := region[0]*u.Width, region[1]*u.Height
	sx, sy := (region[2]-region[0])*u.Width/float64(out.W), (region[3]-region[1])*u.Height/float64(out.H)
	words := make([]kb.Word, 0, len(res.Words))
	for _, w := range res.Words {
		words = append(words, kb.Word{Text: w.Text, X0: x0 + float64(w.Box.X0)*sx, Y0: y0 + float64(w.Box.Y0)*sy,
			X1: x0 + float64(w.Box.X1)*sx, Y1: y0 + float64(w.Box.Y1)*sy})
	}
	return words, nil
}
