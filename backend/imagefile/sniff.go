// Package imagefile sniffs file types by content and turns image files into safe, upright JPEGs and thumbnails.
package imagefile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Kind is a file type recognised from content.
type Kind string

// Kinds that Sniff recognises.
const (
	Unknown  Kind = ""
	PDF      Kind = "pdf"
	JPEG     Kind = "jpeg"
	PNG      Kind = "png"
	GIF      Kind = "gif"
	WebP     Kind = "webp"
	TIFF     Kind = "tiff"
	BMP      Kind = "bmp"
	MP4      Kind = "mp4"      // ISO base media: MP4, MOV, 3GP, M4V
	Matroska Kind = "matroska" // MKV and WebM
	Ogg      Kind = "ogg"
	AVI      Kind = "avi"
	MPEGPS   Kind = "mpeg-ps"
	MPEGTS   Kind = "mpeg-ts"

	// Paged documents MuPDF opens, found by SniffAt (the zip-based ones from their directory).
	DOCX     Kind = "docx"
	XLSX     Kind = "xlsx"
	PPTX     Kind = "pptx"
	EPUB     Kind = "epub"
	CBZ      Kind = "cbz" // a zip of images
	XPS      Kind = "xps"
	OXPS     Kind = "oxps"
	MOBI     Kind = "mobi"
	FB2      Kind = "fb2"
	HTML     Kind = "html"
	XHTML    Kind = "xhtml"
	Text     Kind = "text" // UTF-8 plain text
	Markdown Kind = "markdown"
	CSV      Kind = "csv"
	TSV      Kind = "tsv"
	ODT      Kind = "odt" // OpenDocument text, spreadsheet and presentation: converted, MuPDF reads none of them
	ODS      Kind = "ods"
	ODP      Kind = "odp"
	EML      Kind = "eml"  // an e-mail message (RFC 5322): converted, its attachments become documents of their own
	MBOX     Kind = "mbox" // a mailbox of messages: not a document itself, each message is one
)

// Class is what Proofglass does with a kind.
type Class string

// Classes of kinds.
const (
	ClassNone     Class = ""
	ClassDocument Class = "document"
	ClassImage    Class = "image"
	ClassVideo    Class = "video"
)

// Class returns the class of k.
func (k Kind) Class() Class {
	switch k {
	case PDF, DOCX, XLSX, PPTX, EPUB, CBZ, XPS, OXPS, MOBI, FB2, HTML, XHTML, Text, Markdown, CSV, TSV, ODT, ODS, ODP, EML, MBOX:
		return ClassDocument
	case JPEG, PNG, GIF, WebP, TIFF, BMP:
		return ClassImage
	case MP4, Matroska, Ogg, AVI, MPEGPS, MPEGTS:
		return ClassVideo
	}
	return ClassNone
}

// SniffLen is how many leading bytes Sniff looks at.
const SniffLen = 1024

// Sniff recognises a file type from its first bytes (at least SniffLen when the file is that long). Extensions are
// never consulted: a JPEG named .pdf is a JPEG.
func Sniff(b []byte) Kind {
	has := func(off int, sig string) bool {
		return len(b) >= off+len(sig) && string(b[off:off+len(sig)]) == sig
	}
	switch {
	case len(b) == 0:
		return Unknown
	case pdfHeader(b):
		return PDF
	case has(0, "\xff\xd8\xff"):
		return JPEG
	case has(0, "\x89PNG\r\n\x1a\n"):
		return PNG
	case has(0, "GIF87a"), has(0, "GIF89a"):
		return GIF
	case has(0, "RIFF") && has(8, "WEBP"):
		return WebP
	case has(0, "RIFF") && has(8, "AVI "):
		return AVI
	case has(0, "II*\x00"), has(0, "MM\x00*"):
		return TIFF
	case has(0, "BM") && len(b) >= 26 && b[14] >= 12 && b[15] == 0 && b[16] == 0 && b[17] == 0:
		return BMP
	case has(4, "ftyp"):
		return MP4
	case has(4, "moov"), has(4, "mdat"), has(4, "free"), has(4, "wide"), has(4, "moof"):
		return MP4
	case has(0, "\x1a\x45\xdf\xa3"):
		return Matroska
	case has(0, "OggS"):
		return Ogg
	case has(60, "BOOKMOBI"):
		return MOBI
	case has(0, "\x00\x00\x01\xba"):
		return MPEGPS
	case len(b) >= 189 && b[0] == 0x47 && b[188] == 0x47:
		return MPEGTS
	}
	return Unknown
}

// pdfHeader accepts "%PDF-" within the first 1024 bytes, as PDF readers do (some files have junk in front).
func pdfHeader(b []byte) bool {
	n := min(len(b), 1024)
	return bytes.Contains(b[:n], []byte("%PDF-"))
}

// SniffFile reads the start of path (and a zip's directory) and sniffs it as SniffAt does, with the extension of
// path choosing among the readings of plain text. A file that is not one of the known kinds is Unknown with a nil
// error.
func SniffFile(path string) (Kind, error) {
	f, err := os.Open(path)
	if err != nil {
		return Unknown, fmt.Errorf("sniff %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Unknown, fmt.Errorf("sniff %s: %w", path, err)
	}
	b := make([]byte, SniffLen)
	n, err := io.ReadFull(f, b)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return Unknown, fmt.Errorf("sniff %s: %w", path, err)
	}
	k, _ := SniffAt(f, st.Size(), b[:n], filepath.Ext(path))
	return k, nil
}

// docMIME are the MIME types of the paged documents other than PDF: what a document of the kind is recorded as,
// and what the MuPDF worker is told to open it as.
var docMIME = map[Kind]string{
	PDF:      "application/pdf",
	DOCX:     "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	XLSX:     "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	PPTX:     "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	EPUB:     "application/epub+zip",
	CBZ:      "application/vnd.comicbook+zip",
	XPS:      "application/vnd.ms-xpsdocument",
	OXPS:     "application/oxps",
	MOBI:     "application/x-mobipocket-ebook",
	FB2:      "application/x-fictionbook+xml",
	HTML:     "text/html",
	XHTML:    "application/xhtml+xml",
	Text:     "text/plain",
	Markdown: "text/markdown",
	CSV:      "text/csv",
	TSV:      "text/tab-separated-values",
	ODT:      "application/vnd.oasis.opendocument.text",
	ODS:      "application/vnd.oasis.opendocument.spreadsheet",
	ODP:      "application/vnd.oasis.opendocument.presentation",
	EML:      "message/rfc822",
	MBOX:     "application/mbox",
}

// DocumentMIME is the MIME type of a document kind ("" for the others).
func (k Kind) DocumentMIME() string { return docMIME[k] }

// DocumentKind is the document kind of a MIME type that DocumentMIME gives (Unknown for any other).
func DocumentKind(mime string) Kind {
	for k, m := range docMIME {
		if m == mime {
			return k
		}
	}
	return Unknown
}
