package ingest

import (
	"path/filepath"
	"slices"
	"strings"
)

// A Format is a kind of file ingest reads. The add dialog offers Extensions; a file found in a folder is taken when
// its name has one of them or of Unread (ingest decides from the content, never the name, which only says where a
// failure shows up).
type Format struct {
	// ID names the format for the window's catalogue (dialog.fileTypes.<ID>); unique in Formats.
	ID string
	// Kind is the document kind ingest records: "pdf" (paged: every document MuPDF lays out as pages, whatever its
	// MIME type says it is), "image" or "video".
	Kind       string
	Name       string   // what the add dialog calls these files
	Extensions []string // lower case, with the dot: the names of the files ingest reads as this kind
	// Unread are names that claim this kind though ingest cannot read their content (HEIC, JPEG 2000, ...): a file
	// found in a folder with one is recorded as failed with why, rather than skipped without a word.
	Unread []string
}

// Formats are the files ingest accepts, the one table the add dialog's filters and ingest's name checks read.
// The README's list of accepted formats is written from it (TestReadmeListsFormats).
var Formats = []Format{
	{ID: "pdf", Kind: "pdf", Name: "PDF documents", Extensions: []string{".pdf"}},
	{ID: "word", Kind: "pdf", Name: "Word documents", Extensions: []string{".docx"}, Unread: []string{".doc", ".rtf"}},
	{ID: "excel", Kind: "pdf", Name: "Excel workbooks", Extensions: []string{".xlsx"}, Unread: []string{".xls"}},
	{ID: "powerpoint", Kind: "pdf", Name: "PowerPoint presentations", Extensions: []string{".pptx"}, Unread: []string{".ppt"}},
	{ID: "opendocument", Kind: "pdf", Name: "OpenDocument files", Extensions: []string{".odt", ".ods", ".odp"}},
	{ID: "ebook", Kind: "pdf", Name: "E-books", Extensions: []string{".epub", ".mobi", ".fb2"}, Unread: []string{".azw", ".azw3"}},
	{ID: "xps", Kind: "pdf", Name: "XPS documents", Extensions: []string{".xps", ".oxps"}},
	{ID: "comic", Kind: "pdf", Name: "Comic book archives", Extensions: []string{".cbz"}, Unread: []string{".cbr"}},
	{ID: "web", Kind: "pdf", Name: "Web pages", Extensions: []string{".html", ".htm", ".xhtml"}},
	{ID: "text", Kind: "pdf", Name: "Text files", Extensions: []string{".txt"}},
	{ID: "markdown", Kind: "pdf", Name: "Markdown files", Extensions: []string{".md", ".markdown"}},
	{ID: "table", Kind: "pdf", Name: "CSV and TSV tables", Extensions: []string{".csv", ".tsv"}},
	// A mailbox is no document of its own: each message is one, and each message's attachments are documents
	// linked to it.
	{ID: "mail", Kind: "pdf", Name: "E-mail messages and mailboxes", Extensions: []string{".eml", ".mbox"}, Unread: []string{".msg", ".pst"}},
	{
		ID: "image", Kind: "image", Name: "Images",
		Extensions: []string{".jpg", ".jpeg", ".png", ".gif", ".webp", ".tif", ".tiff", ".bmp"},
		Unread:     []string{".heic", ".icns", ".sgi", ".j2k", ".jp2", ".blp", ".dds", ".fli"},
	},
	{
		ID: "video", Kind: "video", Name: "Videos",
		Extensions: []string{".mp4", ".m4v", ".mov", ".mkv", ".webm", ".ogv", ".ogg", ".avi", ".mpeg", ".mpg", ".ts"},
	},
}

// noun is the format's name as a sentence says it: "e-books", but "Word documents" and "XPS documents".
func (f Format) noun() string {
	first, _, _ := strings.Cut(f.Name, " ")
	switch {
	case first == "Word" || first == "Excel" || first == "Markdown":
		return f.Name
	case len(first) > 1 && strings.ToLower(first[1:]) != first[1:]: // PDF, PowerPoint, OpenDocument, XPS, CSV
		return f.Name
	}
	return strings.ToLower(f.Name[:1]) + f.Name[1:]
}

// formatOf is the format whose extensions (read or not) the name's extension is among.
func formatOf(path string) (Format, bool) {
	ext := strings.ToLower(filepath.Ext(path))
	for _, f := range Formats {
		if slices.Contains(f.Extensions, ext) || slices.Contains(f.Unread, ext) {
			return f, true
		}
	}
	return Format{}, false
}

// formatKinds maps every extension of formats, read or not, to its kind.
func formatKinds(formats []Format) map[string]string {
	m := map[string]string{}
	for _, f := range formats {
		for _, e := range append(append([]string(nil), f.Extensions...), f.Unread...) {
			m[strings.ToLower(e)] = f.Kind
		}
	}
	return m
}
