// Package pdf extracts pages from PDFs with MuPDF (text with word boxes, thumbnails, renders), isolated in a child process.
package pdf

import (
	"errors"
	"fmt"
	"math"
)

// Box is a rectangle; X0,Y0 is the top-left corner. Page boxes are in PDF points (1/72 inch) from the page's
// top-left corner after /Rotate is applied.
type Box struct {
	X0 float64 `json:"x0"`
	Y0 float64 `json:"y0"`
	X1 float64 `json:"x1"`
	Y1 float64 `json:"y1"`
}

// Scale multiplies every coordinate by f; Scale(dpi/72) maps points to the pixels of a render at dpi.
func (b Box) Scale(f float64) Box { return Box{b.X0 * f, b.Y0 * f, b.X1 * f, b.Y1 * f} }

// Empty reports whether the box has no area.
func (b Box) Empty() bool { return b.X1 <= b.X0 || b.Y1 <= b.Y0 }

// Intersect returns the overlap of b and o.
func (b Box) Intersect(o Box) Box {
	return Box{math.Max(b.X0, o.X0), math.Max(b.Y0, o.Y0), math.Min(b.X1, o.X1), math.Min(b.Y1, o.Y1)}
}

// Union returns the smallest box containing b and o.
func (b Box) Union(o Box) Box {
	return Box{math.Min(b.X0, o.X0), math.Min(b.Y0, o.Y0), math.Max(b.X1, o.X1), math.Max(b.Y1, o.Y1)}
}

// Word is one word of a page's text layer.
type Word struct {
	Text string `json:"text"`
	Box  Box    `json:"box"`
	// Line numbers the text lines of the page from 0 in reading order, so callers can rebuild lines.
	Line int `json:"line"`
}

// Info describes an opened document.
type Info struct {
	Pages     int               `json:"pages"`
	Metadata  map[string]string `json:"metadata,omitempty"`
	Encrypted bool              `json:"encrypted,omitempty"`
	// UserPassword: the document needed a user password and the one given opened it.
	UserPassword bool   `json:"user_password,omitempty"`
	Warnings     int    `json:"warnings,omitempty"`     // MuPDF warnings so far (repairs of damaged files)
	LastWarning  string `json:"last_warning,omitempty"` // the most recent one
}

// Page is what extraction produces for one page.
type Page struct {
	Index  int     `json:"index"` // 0-based
	Width  float64 `json:"width"` // points
	Height float64 `json:"height"`
	Text   string  `json:"text"`
	Words  []Word  `json:"words,omitempty"`
	// Images are the boxes of the raster images drawn on the page (points from its top-left corner), listed when
	// PageOptions.Images asks: text may exist there only as pixels.
	Images []Box `json:"images,omitempty"`
	// Thumb is a JPEG thumbnail (nil when not asked for); ThumbW/ThumbH are its pixel size.
	Thumb  []byte `json:"-"`
	ThumbW int    `json:"thumb_w,omitempty"`
	ThumbH int    `json:"thumb_h,omitempty"`
	// Error is set when this page could not be read although the document could; the page's other fields are then
	// as complete as MuPDF allowed.
	Error string `json:"error,omitempty"`
	// wire is the words as the worker sent them (Doc.Page keeps them for EachWord).
	wire []byte
}

// EachWord calls fn with each word of a page from Doc.Page, in reading order, decoding them from the worker's
// answer as it goes: text is only valid during the call. It reads the same words as Words without making them,
// so PageOptions.RawWords callers spend no allocation per word. A malformed answer (which Doc.Page reports itself
// only when it decodes Words) is an error, after fn has seen the words before the damage.
func (p *Page) EachWord(fn func(text []byte, b Box, line int)) error {
	return eachWord(p.wire, func(start, end int, b Box, line int) { fn(p.wire[start:end:end], b, line) })
}

// WordBytes is the size of the words as the worker sent them: each takes its text and at least 34 bytes more, so
// it bounds any more compact encoding of them.
func (p *Page) WordBytes() int { return len(p.wire) }

// PageOptions selects what Page extracts.
type PageOptions struct {
	NoText    bool `json:"no_text,omitempty"`
	Images    bool `json:"images,omitempty"`     // list the raster images' boxes (a second, cheap pass)
	ThumbSize int  `json:"thumb_size,omitempty"` // longest side in pixels; 0 = no thumbnail
	// ThumbQuality is the JPEG quality (1..100); 0 means 80.
	ThumbQuality int `json:"thumb_quality,omitempty"`
	// RawWords leaves Page.Words nil: the caller reads the words with Page.EachWord (the client's side only).
	RawWords bool `json:"-"`
}

// Format is an image encoding.
type Format string

// Encodings a render can be returned in.
const (
	JPEG Format = "jpeg"
	PNG  Format = "png"
)

// RenderRequest asks for a page, or a region of it, as an image.
type RenderRequest struct {
	Page int     `json:"page"` // 0-based
	DPI  float64 `json:"dpi,omitempty"`
	// Clip is the region in points from the page's top-left corner; nil renders the whole page. Rendering a small
	// clip at a high DPI is a true zoom: MuPDF draws the vectors and images again at that resolution.
	Clip *Box `json:"clip,omitempty"`
	// MaxPixels lowers the DPI when the output would have more pixels (0: the engine's limit).
	MaxPixels int    `json:"max_pixels,omitempty"`
	Format    Format `json:"format,omitempty"`  // default JPEG
	Quality   int    `json:"quality,omitempty"` // JPEG quality; 0 means 85
	// MIME is the type of the document (kb.Document.MIME), which Renderer opens it as when it is not open yet;
	// "" for a PDF. It is not sent to the worker with the render.
	MIME string `json:"-"`
}

// Rendered is an encoded image of a page or region.
type Rendered struct {
	Data   []byte  `json:"-"`
	Format Format  `json:"format"`
	Width  int     `json:"width"`
	Height int     `json:"height"`
	DPI    float64 `json:"dpi"` // the DPI actually used (lower than asked when MaxPixels applied)
}

// PasswordError reports an encrypted document that needs a user password (Wrong: the one given did not open it).
type PasswordError struct {
	Path  string
	Wrong bool
}

func (e *PasswordError) Error() string {
	if e.Wrong {
		return fmt.Sprintf("pdf %s: password required: the password given is wrong", e.Path)
	}
	return fmt.Sprintf("pdf %s: password required", e.Path)
}

// ErrPasswordRequired matches any *PasswordError with errors.Is.
var ErrPasswordRequired = errors.New("password required")

// Is lets errors.Is(err, ErrPasswordRequired) match.
func (e *PasswordError) Is(target error) bool { return target == ErrPasswordRequired }

// DamagedError reports a file MuPDF cannot open as a document.
type DamagedError struct {
	Path   string
	Reason string
	Format string // what the file was opened as ("Word document"); "" for a PDF
}

func (e *DamagedError) Error() string {
	what := "PDF"
	if e.Format != "" {
		what = "readable " + e.Format
	}
	return fmt.Sprintf("pdf %s: damaged or not a %s: %s", e.Path, what, e.Reason)
}

// ErrDamaged matches any *DamagedError with errors.Is.
var ErrDamaged = errors.New("damaged document")

// Is lets errors.Is(err, ErrDamaged) match.
func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }
