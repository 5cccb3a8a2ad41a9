package pdf

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math"
)

// extractPage produces text, words, size and thumbnail of page i with the in-process engine.
func (e *engineDoc) extractPage(i int, o PageOptions) (*Page, error) {
	return e.extract(i, o, nil)
}

// pageWire is the worker's answer to a page request, reused from page to page: buf holds the words (appendWords),
// the text and the thumbnail, in that order; the Page keeps the rest.
type pageWire struct {
	buf               []byte
	text              []byte // scratch for the page text
	wordsLen, textLen int
}

// extract is extractPage; with w non-nil the words, text and thumbnail go into w instead of the Page.
func (e *engineDoc) extract(i int, o PageOptions, w *pageWire) (*Page, error) {
	pw, ph, err := e.pageSize(i)
	if err != nil {
		return nil, err
	}
	p := &Page{Index: i, Width: pw, Height: ph}
	if w != nil {
		w.buf, w.wordsLen, w.textLen = w.buf[:0], 0, 0
	}
	if !o.NoText {
		if w != nil {
			w.text, w.buf, err = e.textWire(i, w.text[:0], w.buf)
			w.wordsLen, w.textLen = len(w.buf), len(w.text)
			w.buf = append(w.buf, w.text...)
		} else {
			p.Text, p.Words, err = e.text(i)
		}
		if err != nil {
			// A page whose content stream is broken still gets its size and, if possible, a thumbnail.
			p.Error = err.Error()
		}
	}
	if o.Images {
		boxes, err := e.imageBoxes(i)
		if err != nil && p.Error == "" {
			p.Error = err.Error()
		}
		p.Images = boxes
	}
	if o.ThumbSize > 0 {
		long := math.Max(pw, ph)
		if long <= 0 {
			return p, nil
		}
		dpi := 72 * float64(o.ThumbSize) / long
		img, _, err := e.render(i, dpi, nil, o.ThumbSize*o.ThumbSize)
		if err != nil {
			if p.Error == "" {
				p.Error = err.Error()
			}
			return p, nil
		}
		q := o.ThumbQuality
		if q <= 0 {
			q = 80
		}
		var dst []byte
		if w != nil {
			dst = w.buf
		}
		data, err := appendEncoded(dst, img, JPEG, q)
		releaseImage(img)
		if err != nil {
			return nil, fmt.Errorf("pdf %s: page %d thumbnail: %w", e.path, i+1, err)
		}
		if w != nil {
			w.buf = data
		} else {
			p.Thumb = data
		}
		p.ThumbW, p.ThumbH = img.Bounds().Dx(), img.Bounds().Dy()
	}
	return p, nil
}

// renderEncoded renders and encodes a request with the in-process engine.
func (e *engineDoc) renderEncoded(r RenderRequest) (*Rendered, error) {
	img, dpi, err := e.render(r.Page, r.DPI, r.Clip, r.MaxPixels)
	if err != nil {
		return nil, err
	}
	f := r.Format
	if f == "" {
		f = JPEG
	}
	q := r.Quality
	if q <= 0 {
		q = 85
	}
	data, err := encodeImage(img, f, q)
	releaseImage(img)
	if err != nil {
		return nil, fmt.Errorf("pdf %s: page %d: %w", e.path, r.Page+1, err)
	}
	return &Rendered{Data: data, Format: f, Width: img.Bounds().Dx(), Height: img.Bounds().Dy(), DPI: dpi}, nil
}

func encodeImage(img image.Image, f Format, quality int) ([]byte, error) {
	return appendEncoded(nil, img, f, quality)
}

// appendEncoded appends the encoded image to dst.
func appendEncoded(dst []byte, img image.Image, f Format, quality int) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	switch f {
	case JPEG:
		if data, ok, err := appendJPEG(dst, img, quality); ok {
			return data, err
		}
		buf.Grow(img.Bounds().Dx() * img.Bounds().Dy() / 8) // about the size of a JPEG at these qualities
		if err := jpeg.Encode(buf, img, &jpeg.Options{Quality: quality}); err != nil {
			return nil, fmt.Errorf("encode jpeg: %w", err)
		}
	case PNG:
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		if err := enc.Encode(buf, img); err != nil {
			return nil, fmt.Errorf("encode png: %w", err)
		}
	default:
		return nil, fmt.Errorf("unknown image format %q", f)
	}
	return buf.Bytes(), nil
}
