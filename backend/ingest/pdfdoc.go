package ingest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"proofglass/backend/kb"
	"proofglass/backend/model"
	"proofglass/backend/ocr"
	"proofglass/backend/pdf"
)

// minLayerRunes is the least number of letters and digits a page's text layer needs to count as text; pages with
// fewer (scans, pages of images) go to OCR.
const minLayerRunes = 20

func (in *Ingester) acquire(ctx context.Context) (*pdf.Client, error) {
	select {
	case c := <-in.clients:
		return c, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (in *Ingester) release(c *pdf.Client) { in.clients <- c }

// docSet is one PDF opened on several MuPDF workers, so its pages are extracted in parallel.
type docSet struct {
	j  *job
	mu sync.Mutex
	m  map[*pdf.Client]*pdf.Doc
	// pin, when set, is the one worker a short document's pages are extracted on (see splitPages); the job holds
	// it out of the pool until the document is done.
	pin *pdf.Client
}

// splitPages is the least page count for which a document's pages are spread over several workers. Every worker
// that opens a document pays again for its page tree, fonts and glyph cache (on the CJK test PDFs, 15 and 32
// pages, two workers spent 15.7 CPU ms per page where one spent 10.0, and took longer on two busy cores), while
// the documents in flight beside a short one keep the other workers busy.
const splitPages = 64

// splitHelps reports whether a document's pages gain from more than one worker: only where the cores outnumber
// the storing process (which keeps one busy) and one worker. On two cores a second worker on the same document
// only took turns with them: R-refman p. 1–200 cost 3.8–4.1 CPU ms per page on one worker and 4.7–5.5 on two,
// in about the same wall time (0.59–0.64 s against 0.56–0.58). The pool keeps its size, so other documents in
// flight still use the other workers: the 100-document benchmark library ingested in 31–36 s and 55–64 CPU s
// instead of 39–42 s and 74–79 CPU s.
func splitHelps(cpus int) bool { return cpus > 2 }

func (s *docSet) get(ctx context.Context, c *pdf.Client) (*pdf.Doc, error) {
	s.mu.Lock()
	d, ok := s.m[c]
	s.mu.Unlock()
	if ok {
		return d, nil
	}
	d, err := c.OpenAs(ctx, s.j.path, s.j.password, s.j.doc.MIME)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.m[c] = d
	s.mu.Unlock()
	return d, nil
}

// drop forgets the document on a worker that died; the next page on that client reopens it on a fresh worker.
func (s *docSet) drop(c *pdf.Client) {
	s.mu.Lock()
	delete(s.m, c)
	s.mu.Unlock()
}

func (s *docSet) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c, d := range s.m {
		d.Close()
		delete(s.m, c)
	}
}

// pdf ingests a PDF page by page: pages are extracted in parallel on the worker pool and streamed to the embed
// stage, so no more than a pool's worth of pages (and their renders) is in memory at once.
func (j *job) pdf(ctx context.Context) error {
	st, err := j.loadSteps(ctx)
	if err != nil {
		return err
	}
	docs := &docSet{j: j, m: map[*pdf.Client]*pdf.Doc{}}
	defer docs.close()
	c, err := j.in.acquire(ctx)
	if err != nil {
		return err
	}
	d, err := docs.get(ctx, c)
	if err != nil {
		j.in.release(c)
		return err
	}
	pages := d.Pages()
	if pages > j.in.o.MaxPages {
		j.in.release(c)
		return &pageLimitError{fmt.Sprintf("%s has %d pages, more than the limit of %d pages per document; nothing was read "+
			"(raise ingest.max_pages in settings.json to ingest it)", j.doc.Name, pages, j.in.o.MaxPages)}
	}
	if pages < splitPages || !splitHelps(runtime.NumCPU()) {
		docs.pin = c
		defer j.in.release(c) // once every page is done
	} else {
		j.in.release(c)
	}
	j.meta.Encrypted, j.meta.PDF = d.Info.Encrypted, d.Info.Metadata
	if isMessage(j.doc) {
		// A message's facets are its headers: subject, sender, recipients and the day it was sent.
		if info, date, err := messageMeta(j.path); err == nil {
			j.meta.PDF, j.meta.Taken = info, date
		}
	}
	j.passwordOpened = d.Info.UserPassword
	j.doc.Meta = j.meta.String()
	if err := j.begin(ctx, st, pages); err != nil {
		return err
	}

	q, err := j.startEmbedding(ctx, st, func(it *embedItem) { it.image = j.pageImage(docs, it.ordinal-1) })
	if err != nil {
		return err
	}

	w := j.startUnitWriter(ctx, q)
	var failed sync.Map
	// The blank-page rule needs the first pages read now: off on a resume that finished some of them before.
	blank := &blankPages{limit: j.in.o.MaxBlankPages, name: j.doc.Name, on: j.in.o.OCR != nil && pages >= j.in.o.MaxBlankPages &&
		!st.finished(StageExtract, 1)}
	g, gctx := errgroup.WithContext(ctx)
	// Twice the workers: while a page's text is being turned into a unit, another is being extracted on the freed
	// worker.
	g.SetLimit(2 * j.in.o.Workers)
	for i := range pages {
		if st.finished(StageExtract, i+1) {
			continue
		}
		g.Go(func() error {
			p, ok, err := j.pdfPage(gctx, docs, i, q.images())
			if err != nil {
				return err
			}
			if err := blank.page(i, p.u.Text != ""); err != nil {
				return err
			}
			if !ok {
				failed.Store(i, true)
				return nil
			}
			w.send(p)
			return nil
		})
	}
	if err := q.finish(w.finish(g.Wait())); err != nil {
		return err
	}
	if info, rerr := d.Refresh(ctx); rerr == nil && info.Warnings > 0 {
		j.warn("MuPDF repaired the file (%d warnings; last: %s)", info.Warnings, info.LastWarning)
	}
	n := 0
	failed.Range(func(any, any) bool { n++; return true })
	if n == pages && pages > 0 {
		return fmt.Errorf("%s: no page could be read (%s)", j.doc.Name, strings.Join(j.meta.Warnings, "; "))
	}
	return nil
}

// pdfPage extracts one page: text layer with word boxes, size and thumbnail; a page without a usable text layer is
// rendered and OCRed. The unit it returns is stored by the unitWriter. An unreadable page is stored empty here (so
// page numbers stay whole) with a warning, and ok is false; a returned error stops the document.
func (j *job) pdfPage(ctx context.Context, docs *docSet, i int, wantImage bool) (pu pendingUnit, ok bool, err error) {
	stored, err := j.extractPage(ctx, docs, i, wantImage, &pu)
	return pu, err == nil && stored, err
}

// extractPage is pdfPage's body: it fills pu and reports whether the page gave a unit to store.
func (j *job) extractPage(ctx context.Context, docs *docSet, i int, wantImage bool, pu *pendingUnit) (bool, error) {
	ord := i + 1
	pu.item = embedItem{ordinal: ord, fresh: true}
	c, held := docs.pin, false
	if c == nil {
		var err error
		if c, err = j.in.acquire(ctx); err != nil {
			return false, err
		}
		held = true
	}
	// free gives the worker back to the pool, unless the document is pinned to it.
	free := func() {
		if held {
			j.in.release(c)
			held = false
		}
	}
	defer free()
	d, err := docs.get(ctx, c)
	if err != nil {
		return false, err // the document opened once; failing now is a worker problem, not a page one
	}
	t0 := time.Now()
	p, err := d.Page(ctx, i, pdf.PageOptions{ThumbSize: j.in.o.ThumbSize, Images: j.in.o.OCR != nil && j.in.o.ImageOCR,
		RawWords: true})
	j.in.clock.extract.Add(since(t0))
	j.in.clock.extractN.Add(1)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		var we *pdf.WorkerError
		if errors.As(err, &we) {
			docs.drop(c)
		}
		return false, j.pageFailed(ctx, ord, err)
	}
	if p.Error != "" {
		j.warn("page %d: %s", ord, p.Error)
	}
	good, bad := runeCounts(p.Text)
	usable := good >= minLayerRunes && bad*4 < good
	short := usable && good <= thinLayerRunes
	if short && j.in.o.OCR != nil && !j.in.o.ImageOCR {
		// A short text layer may be a stamp over a scan: list the page's pictures to tell (scanPicture).
		if ip, err := d.Page(ctx, i, pdf.PageOptions{NoText: true, Images: true}); err == nil {
			p.Images = ip.Images
		}
	}
	u := kb.Unit{DocumentID: j.doc.ID, Ordinal: ord, Kind: kb.UnitPage, Width: p.Width, Height: p.Height,
		Text: strings.TrimSpace(p.Text), TextSource: kb.TextLayer}
	// The text layer's words go from the worker's answer straight to their stored form (encodeLayerWords), unless
	// image OCR needs them as Words or OCR replaces them.
	fromLayer := true
	thin := short && scanPicture(p)
	layerOK := usable && !thin
	if layerOK || j.in.o.OCR == nil {
		var clips []imageClip
		if layerOK && j.in.o.OCR != nil && j.in.o.ImageOCR {
			clips = j.renderImages(ctx, d, i, imageRegions(p)) // text only in pictures (imageocr.go)
		}
		// The worker is free for the next page while this one is stored.
		free()
		if len(clips) > 0 {
			if u.Words, err = layerWords(p); err != nil {
				return false, j.pageFailed(ctx, ord, fmt.Errorf("pdf %s: page %d: %w", j.doc.Name, ord, err))
			}
			fromLayer = false
		}
		if err := j.ocrImages(ctx, &u, clips); err != nil {
			return false, err
		}
	} else {
		j.emit(Progress{Stage: StageRender, Ordinal: ord})
		t1 := time.Now()
		defer func() {
			j.in.clock.ocr.Add(since(t1))
			j.in.clock.ocrN.Add(1)
		}()
		r, err := d.Render(ctx, pdf.RenderRequest{Page: i, DPI: j.in.o.OCRDPI, MaxPixels: j.in.o.OCRMaxPixels, Format: pdf.PNG})
		free()
		if err != nil {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			var we *pdf.WorkerError
			if errors.As(err, &we) {
				docs.drop(c)
			}
			j.warn("page %d: render for OCR: %v", ord, err)
			_ = j.in.kb.Content.MarkStep(ctx, j.doc.ID, kb.Step{Ordinal: ord, Stage: StageOCR, Status: kb.StepFailed, Error: j.clean(err.Error())})
		} else {
			j.emit(Progress{Stage: StageOCR, Ordinal: ord})
			res, err := j.recognize(ctx, fmt.Sprintf("page %d of %s", ord, j.doc.Name), r.Data)
			if err != nil {
				if ctx.Err() != nil {
					return false, ctx.Err()
				}
				j.warn("page %d: %v", ord, err)
				_ = j.in.kb.Content.MarkStep(ctx, j.doc.ID, kb.Step{Ordinal: ord, Stage: StageOCR, Status: kb.StepFailed, Error: err.Error()})
			} else {
				if txt := strings.TrimSpace(res.Text); thin && txt != "" {
					// A scan under a stamp: both texts, each with its boxes (OCR pixels → points at r.DPI).
					lw, err := layerWords(p)
					if err != nil {
						return false, j.pageFailed(ctx, ord, fmt.Errorf("pdf %s: page %d: %w", j.doc.Name, ord, err))
					}
					u.Text, u.Words, u.TextSource = txt+"\n\n"+u.Text, append(ocrWords(res, 72/r.DPI), lw...), kb.TextMixed
					fromLayer = false
				} else if preferOCR(u.Text, txt) {
					// OCR pixels → points: the render was made at r.DPI.
					u.Text, u.Words, u.TextSource = txt, ocrWords(res, 72/r.DPI), kb.TextOCR
					fromLayer = false
				}
				if err := j.in.kb.Content.MarkStep(ctx, j.doc.ID, kb.Step{Ordinal: ord, Stage: StageOCR, Status: kb.StepDone}); err != nil {
					return false, err
				}
				j.mu.Lock()
				j.meta.OCRUnits++
				j.mu.Unlock()
			}
		}
	}
	if u.Text == "" {
		u.TextSource, u.Words = kb.TextNone, nil
	} else if fromLayer {
		var malformed error
		if u.EncodedWords, malformed, err = encodeLayerWords(p); malformed != nil {
			// As when Doc.Page decoded the words itself: the page is unreadable, the document goes on.
			return false, j.pageFailed(ctx, ord, fmt.Errorf("pdf %s: page %d: %w", j.doc.Name, ord, malformed))
		} else if err != nil {
			return false, fmt.Errorf("store page %d of %s: %w", ord, j.doc.Name, err) // a box that is not a number
		}
	}
	pu.u, pu.thumb = u, p.Thumb
	if wantImage {
		pu.item.image = j.pageImage(docs, i)
	}
	pu.item.text = u.Text
	return true, nil
}

// encodeLayerWords is the stored form of the words of a page read with RawWords; malformed reports a damaged
// answer from the worker, err a word kb cannot store.
func encodeLayerWords(p *pdf.Page) (b []byte, malformed, err error) {
	b, err = kb.EncodeWords(p.WordBytes(), func(yield func(text []byte, x0, y0, x1, y1 float64)) {
		malformed = p.EachWord(func(text []byte, b pdf.Box, _ int) { yield(text, b.X0, b.Y0, b.X1, b.Y1) })
	})
	if malformed != nil {
		return nil, malformed, nil
	}
	return b, nil, err
}

// layerWords is a page's text layer as unit words (for image OCR, which adds to them).
func layerWords(p *pdf.Page) ([]kb.Word, error) {
	var out []kb.Word
	err := p.EachWord(func(text []byte, b pdf.Box, _ int) {
		out = append(out, kb.Word{Text: string(text), X0: b.X0, Y0: b.Y0, X1: b.X1, Y1: b.Y1})
	})
	return out, err
}

// pageFailed stores an empty unit for a page MuPDF could not read, so ordinals stay whole, and records why.
func (j *job) pageFailed(ctx context.Context, ord int, cause error) error {
	msg := j.clean(cause.Error())
	j.warn("page %d: %s", ord, msg)
	if _, err := j.in.kb.Content.PutUnit(ctx, kb.Unit{DocumentID: j.doc.ID, Ordinal: ord, Kind: kb.UnitPage}); err != nil {
		return err
	}
	if err := j.in.kb.Content.MarkStep(ctx, j.doc.ID, kb.Step{Ordinal: ord, Stage: StageExtract, Status: kb.StepFailed, Error: msg}); err != nil {
		return err
	}
	return nil
}

// pageImage renders a page for an image embedder (1024 px on the long side).
func (j *job) pageImage(docs *docSet, i int) func(context.Context) (*model.Image, error) {
	return func(ctx context.Context) (*model.Image, error) {
		c, err := j.in.acquire(ctx)
		if err != nil {
			return nil, err
		}
		defer j.in.release(c)
		d, err := docs.get(ctx, c)
		if err != nil {
			return nil, err
		}
		r, err := d.Render(ctx, pdf.RenderRequest{Page: i, DPI: 150, MaxPixels: 1024 * 1024, Format: pdf.JPEG})
		if err != nil {
			var we *pdf.WorkerError
			if errors.As(err, &we) {
				docs.drop(c)
			}
			return nil, err
		}
		return &model.Image{Data: r.Data, MIME: "image/jpeg"}, nil
	}
}

// recognize runs OCR within the pool's bound on concurrent tesseract processes.
func (j *job) recognize(ctx context.Context, name string, img []byte) (*ocr.Result, error) {
	select {
	case j.in.ocrSem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-j.in.ocrSem }()
	return j.in.o.OCR.Recognize(ctx, name, img)
}

// ocrWords converts OCR word boxes (pixels of the recognised image) to unit coordinates by multiplying by scale.
func ocrWords(r *ocr.Result, scale float64) []kb.Word {
	out := make([]kb.Word, 0, len(r.Words))
	for _, w := range r.Words {
		out = append(out, kb.Word{Text: w.Text, X0: float64(w.Box.X0) * scale, Y0: float64(w.Box.Y0) * scale,
			X1: float64(w.Box.X1) * scale, Y1: float64(w.Box.Y1) * scale})
	}
	return out
}

// A text layer carries real text when it has enough letters or digits and is not mostly the replacement or
// private-use characters that fonts without a Unicode mapping produce. A thin one over a scan — a page that is
// mostly one picture whose layer holds only a line or two (a court's filing stamp, a running header, a page
// number) — is a scan, and is OCR'd like one.
const (
	thinLayerRunes = 200  // at most this many letters and digits in a thin layer
	scanImageShare = 0.70 // of the page covered by one picture
)

// scanPicture reports whether one picture covers most of the page.
func scanPicture(p *pdf.Page) bool {
	area := p.Width * p.Height
	for _, b := range imageRegions(p) {
		if area > 0 && boxArea(b) >= scanImageShare*area {
			return true
		}
	}
	return false
}

// preferOCR decides between a short or garbled text layer and the OCR of the same page.
func preferOCR(layer, ocrText string) bool {
	lg, lb := runeCounts(layer)
	og, _ := runeCounts(ocrText)
	return lb*4 >= lg || og > lg
}

func runeCounts(s string) (good, bad int) {
	for _, r := range s {
		if r < utf8.RuneSelf { // ASCII without the Unicode tables: the same classes
			switch {
			case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
				good++
			case r < 0x20 && r != '\t' && r != '\n' && r != '\v' && r != '\f' && r != '\r', r == 0x7f:
				bad++
			}
			continue
		}
		switch {
		case r == unicode.ReplacementChar, unicode.Is(unicode.Co, r), unicode.IsControl(r) && !unicode.IsSpace(r):
			bad++
		case unicode.IsLetter(r), unicode.IsDigit(r):
			good++
		}
	}
	return good, bad
}

// pageLimitError is a PDF stopped by a page-count rule (MaxPages, MaxBlankPages).
type pageLimitError struct{ msg string }

func (e *pageLimitError) Error() string { return e.msg }

// blankPages stops a document whose first pages, limit of them, all came out without any text, even by OCR: a
// file of thousands of empty pages would otherwise render and OCR every one until the per-file time limit. The
// first pages by number decide, whatever order the workers finish them in, so the rule gives the same answer
// every time.
type blankPages struct {
	limit int
	name  string
	on    bool

	mu    sync.Mutex
	seen  []int8 // per page among the first limit: 0 not yet read, 1 blank, 2 text
	known int    // pages of seen read
}

// page records page i (0-based) read, and fails once the first limit pages are read and all blank.
func (b *blankPages) page(i int, hasText bool) error {
	if !b.on || i >= b.limit {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.seen == nil {
		b.seen = make([]int8, b.limit)
	}
	if b.seen[i] != 0 {
		return nil
	}
	b.seen[i] = 1
	if hasText {
		b.seen[i] = 2
		b.on = false // the document has text: the rule is off
		return nil
	}
	b.known++
	if b.known == b.limit {
		return &pageLimitError{fmt.Sprintf("%s: stopped after its first %d pages gave no text at all, even by OCR: a document "+
			"of blank pages (raise ingest.max_blank_pages in settings.json to read further)", b.name, b.limit)}
	}
	return nil
}
