package pdf

/*
#cgo CFLAGS: -O2
// Windows (MinGW-w64): the glue's pthread mutexes from winpthreads, linked statically so the executables need no
// MinGW DLL beside them (and see mingw_compat_windows.c).
#cgo windows LDFLAGS: -l:libwinpthread.a
#include <stdlib.h>
#include "mupdf_glue.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"image"
	"math"
	"strings"
	"sync"
	"unsafe"

	// go-fitz carries the static MuPDF 1.28 libraries this package links against.
	_ "github.com/gen2brain/go-fitz"
)

// cjkOnce sets the CJK font once.
var cjkOnce sync.Once

// useCJKFont tells MuPDF, once per process and before its first context, which installed font draws CJK text that
// a document has no font for. With none found, such text is still extracted and searched but drawn as nothing.
func useCJKFont() {
	cjkOnce.Do(func() {
		f, ok := findCJKFont()
		if !ok {
			return
		}
		cp := C.CString(f.path)
		defer C.free(unsafe.Pointer(cp))
		C.lp_set_cjk_font(cp, C.int(f.tc), C.int(f.sc), C.int(f.jp), C.int(f.kr))
	})
}

// engineDoc is one document opened in this process. Each engineDoc has its own MuPDF context, a clone of the
// process's base context (whose resource store, glyph cache and colour transforms they share), and a mutex
// serialises calls on it.
type engineDoc struct {
	mu     sync.Mutex
	d      *C.lp_doc
	path   string
	limits Limits
	pages  int
	authed bool // opened with a user password
}

// openEngine opens the PDF at path in this process. A non-empty password is tried when the document needs one.
func openEngine(path, password string, lim Limits) (*engineDoc, error) {
	return openEngineAs(path, password, "", lim)
}

// openEngineAs opens path as a document of type mime ("": a PDF, or whatever MuPDF finds in the content).
func openEngineAs(path, password, mime string, lim Limits) (*engineDoc, error) {
	how, typed, err := opening(path, mime)
	if err != nil {
		return nil, err
	}
	var data []byte
	if how.convert != nil {
		if data, err = how.converted(path); err != nil {
			return nil, &DamagedError{Path: path, Reason: err.Error(), Format: how.name}
		}
		if len(data) == 0 {
			return nil, &DamagedError{Path: path, Reason: "nothing to lay out", Format: how.name}
		}
	}
	lim = lim.withDefaults()
	useCJKFont()
	d := C.lp_new(C.size_t(lim.MemoryBytes), C.size_t(lim.StoreBytes))
	if d == nil {
		return nil, fmt.Errorf("pdf %s: cannot create MuPDF context", path)
	}
	e := &engineDoc{d: d, path: path, limits: lim}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	rc := C.int(C.LP_OK)
	switch {
	case !typed:
		rc = C.lp_open(d, cpath)
	case data != nil:
		cmagic := C.CString(how.magic)
		rc = C.lp_open_as(d, nil, (*C.uchar)(unsafe.Pointer(&data[0])), C.size_t(len(data)), cmagic, reflowW, reflowH, reflowEm)
		C.free(unsafe.Pointer(cmagic))
	default:
		cmagic := C.CString(how.magic)
		rc = C.lp_open_as(d, cpath, nil, 0, cmagic, reflowW, reflowH, reflowEm)
		C.free(unsafe.Pointer(cmagic))
	}
	switch rc {
	case C.LP_OK:
	case C.LP_NEEDS_PASSWORD:
		if password == "" {
			return nil, e.passwordFailure(path, "", &PasswordError{Path: path})
		}
		cpw := C.CString(password)
		rc := C.lp_authenticate(d, cpw)
		C.free(unsafe.Pointer(cpw))
		if rc != C.LP_OK {
			return nil, e.passwordFailure(path, password, &PasswordError{Path: path, Wrong: true})
		}
		e.authed = true
	default:
		msg := e.lastErr()
		e.close()
		return nil, &DamagedError{Path: path, Reason: msg, Format: how.name}
	}
	var n C.int
	if C.lp_count_pages(d, &n) != C.LP_OK {
		msg := e.lastErr()
		e.close()
		return nil, &DamagedError{Path: path, Reason: "cannot count pages: " + msg, Format: how.name}
	}
	if n <= 0 {
		reason := "document has no pages"
		if _, w := e.warnings(); w != "" {
			reason += " (MuPDF: " + w + ")"
		}
		e.close()
		return nil, &DamagedError{Path: path, Reason: reason, Format: how.name}
	}
	e.pages = int(n)
	return e, nil
}

// passwordFailure closes e and reports why it did not open: a damaged encryption dictionary when it is one (no
// password would ever open the file), else err.
func (e *engineDoc) passwordFailure(path, password string, err *PasswordError) error {
	reason := e.encryptionDamage(password)
	e.close()
	if reason != "" {
		return &DamagedError{Path: path, Reason: reason}
	}
	return err
}

func (e *engineDoc) lastErr() string {
	return strings.TrimSpace(C.GoString(&e.d.err[0]))
}

func (e *engineDoc) warnings() (int, string) {
	return int(e.d.warnings), C.GoString(&e.d.last_warning[0])
}

func (e *engineDoc) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.d != nil {
		C.lp_free_doc(e.d)
		e.d = nil
	}
}

func (e *engineDoc) info() Info {
	e.mu.Lock()
	defer e.mu.Unlock()
	meta := map[string]string{}
	buf := make([]byte, 1024)
	for key, name := range map[string]string{
		"format": "format", "encryption": "encryption", "title": "info:Title", "author": "info:Author",
		"subject": "info:Subject", "keywords": "info:Keywords", "creator": "info:Creator",
		"producer": "info:Producer", "created": "info:CreationDate", "modified": "info:ModDate",
	} {
		ck := C.CString(name)
		n := C.lp_metadata(e.d, ck, (*C.char)(unsafe.Pointer(&buf[0])), C.int(len(buf)))
		C.free(unsafe.Pointer(ck))
		if n > 0 {
			if v := strings.TrimSpace(strings.TrimRight(C.GoString((*C.char)(unsafe.Pointer(&buf[0]))), "\x00")); v != "" {
				meta[key] = v
			}
		}
	}
	w, last := e.warnings()
	enc := meta["encryption"]
	return Info{Pages: e.pages, Metadata: meta, Encrypted: enc != "" && enc != "None", UserPassword: e.authed, Warnings: w, LastWarning: last}
}

func (e *engineDoc) checkPage(i int) error {
	if e.d == nil {
		return fmt.Errorf("pdf %s: document closed", e.path)
	}
	if i < 0 || i >= e.pages {
		return fmt.Errorf("pdf %s: page %d out of range 1..%d", e.path, i+1, e.pages)
	}
	return nil
}

// bound returns the page rectangle in points (rotation applied, origin top-left).
func (e *engineDoc) bound(i int) (Box, error) {
	if err := e.checkPage(i); err != nil {
		return Box{}, err
	}
	var b [4]C.float
	if C.lp_bound(e.d, C.int(i), &b[0]) != C.LP_OK {
		return Box{}, fmt.Errorf("pdf %s: page %d: %s", e.path, i+1, e.lastErr())
	}
	return Box{float64(b[0]), float64(b[1]), float64(b[2]), float64(b[3])}, nil
}

// PageSize returns a page's width and height in points.
func (e *engineDoc) pageSize(i int) (w, h float64, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, err := e.bound(i)
	if err != nil {
		return 0, 0, err
	}
	return b.X1 - b.X0, b.Y1 - b.Y0, nil
}

// text extracts the page's text layer with word boxes in points relative to the page's top-left corner.
func (e *engineDoc) text(i int) (string, []Word, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var words []Word
	text, err := e.walk(i, nil, func(w []byte, b Box, line int) {
		words = append(words, Word{Text: string(w), Box: b, Line: line})
	})
	return string(text), words, err
}

// textWire is text for the worker's answer: the text is appended to text, the words to wire as appendWords
// writes them.
func (e *engineDoc) textWire(i int, text, wire []byte) ([]byte, []byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	text, err := e.walk(i, text, func(w []byte, b Box, line int) { wire = appendWord(wire, w, b, line) })
	return text, wire, err
}

// walk extracts page i's text, appending it to text and handing each word to emit (walkText); the caller holds
// e.mu.
func (e *engineDoc) walk(i int, text []byte, emit func([]byte, Box, int)) ([]byte, error) {
	b, err := e.bound(i)
	if err != nil {
		return text, err
	}
	var out *C.lp_char
	var n C.size_t
	if C.lp_text_chars(e.d, C.int(i), &out, &n) != C.LP_OK {
		return text, fmt.Errorf("pdf %s: page %d text: %s", e.path, i+1, e.lastErr())
	}
	return walkRecs(out, n, b, text, emit), nil
}

// walkRecs hands the n text records at out (which belong to the document and stay valid until its next text call)
// to walkText, with boxes relative to the corner of the page rectangle b.
func walkRecs(out *C.lp_char, n C.size_t, b Box, text []byte, emit func([]byte, Box, int)) []byte {
	if n == 0 {
		return text
	}
	recs := unsafe.Slice(out, int(n))
	if text == nil {
		text = make([]byte, 0, len(recs))
	}
	return walkText(len(recs), func(k int) stextRec {
		r := &recs[k]
		return stextRec{kind: int(r.kind), c: rune(r.c), box: Box{float64(r.x0), float64(r.y0), float64(r.x1), float64(r.y1)}}
	}, b.X0, b.Y0, text, emit)
}

// textRender is walk and render (whole page, at dpi within maxPixels) of page i in one run of the page through
// both devices, for extraction, which needs both once. An error leaves nothing to use: the caller falls back to
// the separate passes, which keep the text when only the render fails.
func (e *engineDoc) textRender(i int, dpi float64, maxPixels int, text []byte, emit func([]byte, Box, int)) (image.Image, []byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, err := e.bound(i)
	if err != nil {
		return nil, text, err
	}
	r, dpi, err := e.area(i, dpi, nil, maxPixels)
	if err != nil {
		return nil, text, err
	}
	img := newRGBA(r.Dx(), r.Dy())
	px := (*C.uchar)(unsafe.Pointer(&img.Pix[0]))
	var out *C.lp_char
	var n C.size_t
	if C.lp_text_render(e.d, C.int(i), C.float(dpi/72), C.int(r.Min.X), C.int(r.Min.Y), C.int(r.Max.X), C.int(r.Max.Y),
		px, &out, &n) != C.LP_OK {
		releaseImage(img)
		return nil, text, fmt.Errorf("pdf %s: page %d: %s", e.path, i+1, e.lastErr())
	}
	text = walkRecs(out, n, b, text, emit)
	if C.lp_to_gray(px, C.size_t(r.Dx()*r.Dy())) == 1 {
		return &image.Gray{Pix: img.Pix[:r.Dx()*r.Dy()], Stride: r.Dx(), Rect: img.Rect}, text, nil
	}
	return img, text, nil
}

// imageBoxes lists the boxes of the page's raster images in points relative to its top-left corner.
func (e *engineDoc) imageBoxes(i int) ([]Box, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, err := e.bound(i)
	if err != nil {
		return nil, err
	}
	var out *C.lp_char
	var n C.size_t
	if C.lp_image_boxes(e.d, C.int(i), &out, &n) != C.LP_OK {
		return nil, fmt.Errorf("pdf %s: page %d images: %s", e.path, i+1, e.lastErr())
	}
	if out == nil {
		return nil, nil
	}
	defer C.free(unsafe.Pointer(out))
	var boxes []Box
	for _, r := range unsafe.Slice(out, int(n)) {
		boxes = append(boxes, Box{float64(r.x0) - b.X0, float64(r.y0) - b.Y0, float64(r.x1) - b.X0, float64(r.y1) - b.Y0})
	}
	return boxes, nil
}

// textXML is the page's text through MuPDF's XML output, the slower path the direct walk is tested against.
func (e *engineDoc) textXML(i int) (string, []Word, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, err := e.bound(i)
	if err != nil {
		return "", nil, err
	}
	var out *C.char
	var n C.size_t
	if C.lp_text_xml(e.d, C.int(i), &out, &n) != C.LP_OK {
		return "", nil, fmt.Errorf("pdf %s: page %d text: %s", e.path, i+1, e.lastErr())
	}
	defer C.free(unsafe.Pointer(out))
	xml := unsafe.Slice((*byte)(unsafe.Pointer(out)), int(n))
	text, words := parseStextXML(xml, b.X0, b.Y0)
	return text, words, nil
}

// area computes what render draws: the pixel rectangle of the page (or of clip, in points from the page's
// top-left corner) at the DPI used, which is lowered so the pixel count stays within Limits.MaxPixels (and
// maxPixels when it is smaller and positive). The caller holds e.mu.
func (e *engineDoc) area(i int, dpi float64, clip *Box, maxPixels int) (image.Rectangle, float64, error) {
	pb, err := e.bound(i)
	if err != nil {
		return image.Rectangle{}, 0, err
	}
	area := pb
	if clip != nil {
		c := Box{clip.X0 + pb.X0, clip.Y0 + pb.Y0, clip.X1 + pb.X0, clip.Y1 + pb.Y0}
		area = c.Intersect(pb)
		if area.Empty() {
			return image.Rectangle{}, 0, fmt.Errorf("pdf %s: page %d: clip %v outside the page", e.path, i+1, *clip)
		}
	}
	if dpi <= 0 {
		dpi = 72
	}
	limit := e.limits.MaxPixels
	if maxPixels > 0 && maxPixels < limit {
		limit = maxPixels
	}
	wpt, hpt := area.X1-area.X0, area.Y1-area.Y0
	if px := wpt * hpt * (dpi / 72) * (dpi / 72); px > float64(limit) {
		dpi *= math.Sqrt(float64(limit) / px)
	}
	zoom := dpi / 72
	r := image.Rect(int(math.Floor(area.X0*zoom)), int(math.Floor(area.Y0*zoom)),
		int(math.Ceil(area.X1*zoom)), int(math.Ceil(area.Y1*zoom)))
	if r.Dx() < 1 {
		r.Max.X = r.Min.X + 1
	}
	if r.Dy() < 1 {
		r.Max.Y = r.Min.Y + 1
	}
	return r, dpi, nil
}

// render rasterises the page, or the clip (in points, page coordinates) of it, at dpi (see area); the DPI used is
// returned. A page that renders all grey comes back as *image.Gray (cheaper to encode), any other as *image.RGBA.
func (e *engineDoc) render(i int, dpi float64, clip *Box, maxPixels int) (image.Image, float64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r, dpi, err := e.area(i, dpi, clip, maxPixels)
	if err != nil {
		return nil, 0, err
	}
	img := newRGBA(r.Dx(), r.Dy())
	px := (*C.uchar)(unsafe.Pointer(&img.Pix[0]))
	if C.lp_render(e.d, C.int(i), C.float(dpi/72), C.int(r.Min.X), C.int(r.Min.Y), C.int(r.Max.X), C.int(r.Max.Y),
		px) != C.LP_OK {
		return nil, 0, fmt.Errorf("pdf %s: page %d render: %s", e.path, i+1, e.lastErr())
	}
	if C.lp_to_gray(px, C.size_t(r.Dx()*r.Dy())) == 1 {
		return &image.Gray{Pix: img.Pix[:r.Dx()*r.Dy()], Stride: r.Dx(), Rect: img.Rect}, dpi, nil
	}
	return img, dpi, nil
}

// pixPool recycles render buffers: a fresh thumbnail buffer per page was most of a worker's garbage, and the
// collections it caused (with their preemptions) cost more than the allocation.
var pixPool sync.Pool

func getPix(n int) []byte {
	if b, ok := pixPool.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]byte, n)
}

func putPix(b []byte) {
	if cap(b) > 64<<20 {
		return // a huge render: let it go rather than keep it
	}
	pixPool.Put(&b)
}

// newRGBA is image.NewRGBA over a recycled buffer; its contents are undefined (the renderer clears it).
func newRGBA(w, h int) *image.RGBA {
	return &image.RGBA{Pix: getPix(4 * w * h), Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
}

// releaseImage recycles the buffer of an image that render returned, once it is no longer used.
func releaseImage(img image.Image) {
	switch m := img.(type) {
	case *image.RGBA:
		putPix(m.Pix[:cap(m.Pix)])
	case *image.Gray:
		putPix(m.Pix[:cap(m.Pix)])
	}
}

// initWorker prepares this process to be a worker, whose calls into MuPDF all come from one goroutine (ServeWorker's,
// one request at a time): MuPDF's locks are skipped, and malloc keeps the memory every page reuses.
func initWorker() { C.lp_worker_init() }

var errClosed = errors.New("pdf: document closed")
