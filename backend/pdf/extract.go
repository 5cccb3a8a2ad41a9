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

// endText closes the page's words in buf and appends its text after them.
func (w *pageWire) endText() {
	w.wordsLen, w.textLen = len(w.buf), len(w.text)
	w.buf = append(w.buf, w.text...)
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
	var thumb image.Image // rendered in the text's pass
	if !o.NoText && o.ThumbSize > 0 && math.Max(pw, ph) > 0 && !separatePasses {
		thumb = e.textThumb(i, o, p, w, thumbDPI(pw, ph, o.ThumbSize))
	}
	if !o.NoText && thumb == nil {
		if w != nil {
			w.text, w.buf, err = e.textWire(i, w.text[:0], w.buf)
			w.endText()
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
		if math.Max(pw, ph) <= 0 {
			return p, nil
		}
		img := thumb
		if img == nil {
			var err error
			if img, _, err = e.render(i, thumbDPI(pw, ph, o.ThumbSize), nil, o.ThumbSize*o.ThumbSize); err != nil {
				if p.Error == "" {
					p.Error = err.Error()
				}
				return p, nil
			}
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

// thumbDPI is the resolution at which a page of pw × ph points fits a thumbnail of size pixels.
func thumbDPI(pw, ph float64, size int) float64 { return 72 * float64(size) / math.Max(pw, ph) }

// textThumb extracts page i's text into w (or p) and renders its thumbnail at dpi in one pass (textRender). It
// returns nil, having set nothing, when that fails; the separate passes then report what went wrong.
func (e *engineDoc) textThumb(i int, o PageOptions, p *Page, w *pageWire, dpi float64) image.Image {
	if w != nil {
		img, text, err := e.textRender(i, dpi, o.ThumbSize*o.ThumbSize, w.text[:0], func(word []byte, b Box, line int) {
			w.buf = appendWord(w.buf, word, b, line)
		})
		if err != nil {
			w.buf = w.buf[:0]
			return nil
		}
		w.text = text
		w.endText()
		return img
	}
	var words []Word
	img, text, err := e.textRender(i, dpi, o.ThumbSize*o.ThumbSize, nil, func(word []byte, b Box, line int) {
		words = append(words, Word{Text: string(word), Box: b, Line: line})
	})
	if err != nil {
		return nil
	}
	p.Text, p.Words = string(text), words
	return img
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

// separatePasses turns the one-pass extraction off, so tests can compare it with the separate passes.
var separatePasses bool
