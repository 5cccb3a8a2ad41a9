package ingest

import (
	"context"
	"fmt"
	"strings"

	"proofglass/backend/kb"
	"proofglass/backend/pdf"
)

// Text that is only in pictures: a born-digital page whose text layer is fine may still carry charts, scanned
// figures or slide screenshots whose words exist only as pixels. Each large enough raster image on such a page is
// rendered on its own (a clip of the page, so overlaid vector text and the image are read as the reader sees them)
// and OCRed; the words not already in the text layer are added to the page's text with their boxes.

const (
	// minImagePoints is the smallest side of an image worth reading (half an inch): icons, bullets and rules are
	// skipped.
	minImagePoints = 36
	// minImageShare is the smallest share of the page an image must cover.
	minImageShare = 0.02
	// maxPageImages bounds the images read per page (a page of thumbnails would otherwise cost dozens of OCR runs).
	maxPageImages = 6
)

// imageRegions picks the page's images worth OCRing, largest first.
func imageRegions(p *pdf.Page) []pdf.Box {
	area := p.Width * p.Height
	var out []pdf.Box
	for _, b := range p.Images {
		b = pdf.Box{X0: max(b.X0, 0), Y0: max(b.Y0, 0), X1: min(b.X1, p.Width), Y1: min(b.Y1, p.Height)}
		w, h := b.X1-b.X0, b.Y1-b.Y0
		if w < minImagePoints || h < minImagePoints || area <= 0 || w*h < minImageShare*area {
			continue
		}
		dup := false
		for _, o := range out {
			if o == b {
				dup = true
			}
		}
		if !dup {
			out = append(out, b)
		}
	}
	// Largest first: the cap keeps the images most likely to hold text.
	for i := 1; i < len(out); i++ {
		for k := i; k > 0 && boxArea(out[k]) > boxArea(out[k-1]); k-- {
			out[k], out[k-1] = out[k-1], out[k]
		}
	}
	if len(out) > maxPageImages {
		out = out[:maxPageImages]
	}
	return out
}

func boxArea(b pdf.Box) float64 { return (b.X1 - b.X0) * (b.Y1 - b.Y0) }

// imageClip is one rendered image region waiting for OCR.
type imageClip struct {
	box  pdf.Box
	data []byte
	dpi  float64
}

// renderImages renders the regions while the caller holds the PDF worker.
func (j *job) renderImages(ctx context.Context, d *pdf.Doc, i int, regions []pdf.Box) []imageClip {
	var out []imageClip
	for _, b := range regions {
		r, err := d.Render(ctx, pdf.RenderRequest{Page: i, DPI: j.in.o.OCRDPI, Clip: &b, MaxPixels: j.in.o.OCRMaxPixels,
			Format: pdf.PNG})
		if err != nil {
			if ctx.Err() == nil {
				j.warn("page %d: render an image for OCR: %v", i+1, err)
			}
			continue
		}
		out = append(out, imageClip{box: b, data: r.Data, dpi: r.DPI})
	}
	return out
}

// ocrImages reads the rendered regions and adds to u the words the text layer does not already have there.
func (j *job) ocrImages(ctx context.Context, u *kb.Unit, clips []imageClip) error {
	var added []string
	for n, c := range clips {
		res, err := j.recognize(ctx, fmt.Sprintf("image %d on page %d of %s", n+1, u.Ordinal, j.doc.Name), c.data)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			j.warn("page %d: %v", u.Ordinal, err)
			continue
		}
		scale := 72 / c.dpi
		var line []string
		lastLine := -1
		for _, w := range res.Words {
			t := strings.TrimSpace(w.Text)
			if t == "" || w.Conf < minImageWordConf {
				continue
			}
			kw := kb.Word{Text: t, X0: c.box.X0 + float64(w.Box.X0)*scale, Y0: c.box.Y0 + float64(w.Box.Y0)*scale,
				X1: c.box.X0 + float64(w.Box.X1)*scale, Y1: c.box.Y0 + float64(w.Box.Y1)*scale}
			if coveredByLayer(u.Words, kw) {
				continue // vector text drawn over the image is already in the layer
			}
			if w.Line != lastLine && len(line) > 0 {
				added = append(added, strings.Join(line, " "))
				line = line[:0]
			}
			lastLine = w.Line
			line = append(line, t)
			u.Words = append(u.Words, kw)
		}
		if len(line) > 0 {
			added = append(added, strings.Join(line, " "))
		}
	}
	if len(added) > 0 {
		u.Text = strings.TrimSpace(u.Text + "\n\n" + strings.Join(added, "\n"))
		u.TextSource = kb.TextMixed
	}
	return nil
}

// minImageWordConf drops the words tesseract is least sure of: photos produce confident-looking noise otherwise.
const minImageWordConf = 60

// coveredByLayer reports whether the centre of w lies in a text-layer word box of the same text.
func coveredByLayer(layer []kb.Word, w kb.Word) bool {
	cx, cy := (w.X0+w.X1)/2, (w.Y0+w.Y1)/2
	for _, l := range layer {
		if cx >= l.X0 && cx <= l.X1 && cy >= l.Y0 && cy <= l.Y1 && strings.EqualFold(l.Text, w.Text) {
			return true
		}
	}
	return false
}
