package pdf

import (
	"fmt"
	"io"
	"os"

	"proofglass/backend/htmlconv"
	"proofglass/backend/imagefile"
)

// Pages of reflowable documents (HTML, EPUB, Markdown, ...): A4 with 11-point text. Every open lays a document out
// the same way, so its pages are the same at ingest and at every render.
const (
	reflowW  = 595.28
	reflowH  = 841.89
	reflowEm = 11
)

// openAs says how the worker opens a document of one kind that is not a PDF: as the magic MuPDF's handlers know
// (their extension), after convert when MuPDF does not lay the format out itself.
type openAs struct {
	name    string // what a damaged one is called
	magic   string
	convert func(io.Reader) ([]byte, error)
}

var openKinds = map[imagefile.Kind]openAs{
	imagefile.DOCX:  {name: "Word document", magic: "docx"},
	imagefile.XLSX:  {name: "Excel workbook", magic: "xhtml", convert: htmlconv.WorkbookPage},
	imagefile.PPTX:  {name: "PowerPoint presentation", magic: "pptx"},
	imagefile.EPUB:  {name: "EPUB e-book", magic: "epub"},
	imagefile.CBZ:   {name: "comic book archive", magic: "cbz"},
	imagefile.XPS:   {name: "XPS document", magic: "xps"},
	imagefile.OXPS:  {name: "OpenXPS document", magic: "oxps"},
	imagefile.MOBI:  {name: "Mobipocket e-book", magic: "mobi"},
	imagefile.FB2:   {name: "FictionBook e-book", magic: "fb2"},
	imagefile.HTML:  {name: "HTML page", magic: "html"},
	imagefile.XHTML: {name: "XHTML page", magic: "xhtml"},
	imagefile.Text:  {name: "text file", magic: "txt"},
	// Converted in the worker on every open, from the original the blob store keeps: no second, derived blob to
	// keep in step with it, and a converter that fails on a hostile file fails in the worker like MuPDF would.
	imagefile.Markdown: {name: "Markdown file", magic: "xhtml", convert: htmlconv.Markdown},
	imagefile.CSV:      {name: "CSV file", magic: "xhtml", convert: func(r io.Reader) ([]byte, error) { return htmlconv.Table(r, ',') }},
	imagefile.TSV:      {name: "TSV file", magic: "xhtml", convert: func(r io.Reader) ([]byte, error) { return htmlconv.Table(r, '\t') }},
	imagefile.ODT:      {name: "OpenDocument text", magic: "xhtml", convert: htmlconv.OpenDocument},
	imagefile.ODS:      {name: "OpenDocument spreadsheet", magic: "xhtml", convert: htmlconv.OpenDocumentSpreadsheetPage},
	imagefile.ODP:      {name: "OpenDocument presentation", magic: "xhtml", convert: htmlconv.OpenDocument},
	imagefile.EML:      {name: "e-mail message", magic: "xhtml", convert: htmlconv.Message},
}

// opening finds how to open a document of type mime ("" or a PDF's: MuPDF's own detection, as for every PDF).
func opening(path, mime string) (openAs, bool, error) {
	if mime == "" || mime == "application/pdf" {
		return openAs{}, false, nil
	}
	how, ok := openKinds[imagefile.DocumentKind(mime)]
	if !ok {
		return openAs{}, false, fmt.Errorf("pdf %s: the worker does not open documents of type %q", path, mime)
	}
	return how, true, nil
}

// converted reads path and converts it.
func (o openAs) converted(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return o.convert(f)
}
