package imagefile

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"unicode/utf8"

	"proofglass/backend/mail"
)

// NotDocumentError says why content that looked like a document (a zip archive, an XML file) is none that
// Proofglass reads.
type NotDocumentError struct{ Reason string }

func (e *NotDocumentError) Error() string { return e.Reason }

// SniffAt recognises a file's type from its content: Sniff's signatures in head (its first SniffLen bytes, or all
// of them when it is shorter), the zip-based documents from the zip's directory and the one small part that names
// their type (r holds the size bytes of the file), and XML, HTML and UTF-8 text from head. Only that is read, so a
// huge file is known or refused at once. Text alone cannot say whether it is Markdown, CSV, TSV or plain, so ext
// (the name's extension, with its dot) chooses among those readings; text under any other name is Unknown, as a
// text file named .pdf is not a PDF. An Unknown kind has a *NotDocumentError when the content looked like a
// document but is not one (a damaged zip, an Office package of another kind), else a nil error.
func SniffAt(r io.ReaderAt, size int64, head []byte, ext string) (Kind, error) {
	if k := Sniff(head); k != Unknown {
		return k, nil
	}
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06")) {
		return sniffZip(r, size)
	}
	if k := textKind(strings.ToLower(ext)); k != Unknown && isText(head, int64(len(head)) < size) {
		return k, nil
	}
	if k := mailKind(head, strings.ToLower(ext)); k != Unknown {
		return k, nil
	}
	k, err := sniffMarkup(head)
	if k == Unknown && err == nil && isHTMLName(ext) && isText(head, int64(len(head)) < size) && htmlFragment(head) {
		return HTML, nil // a page saved without its <html> (pandoc's and many exporters' default)
	}
	return k, err
}

func isHTMLName(ext string) bool {
	ext = strings.ToLower(ext)
	return ext == ".html" || ext == ".htm"
}

// fragmentTags are the elements an HTML fragment starts with: a page's body written without <html> or <body>.
var fragmentTags = map[string]bool{"p": true, "div": true, "pre": true, "table": true, "ul": true, "ol": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "section": true, "article": true,
	"header": true, "main": true, "nav": true, "blockquote": true, "title": true, "meta": true, "style": true,
	"figure": true, "img": true, "a": true, "span": true, "b": true, "em": true, "strong": true, "br": true, "hr": true}

// htmlFragment reports whether head starts with an HTML element fragments start with ("<p>", "<h1 id=…>").
func htmlFragment(head []byte) bool {
	b := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(b) < 3 || b[0] != '<' {
		return false
	}
	end := bytes.IndexAny(b[1:], " \t\r\n/>")
	if end <= 0 {
		return false
	}
	return fragmentTags[strings.ToLower(string(b[1:1+end]))]
}

// textKind is the text reading an extension names.
func textKind(ext string) Kind {
	switch ext {
	case ".txt", ".text":
		return Text
	case ".md", ".markdown":
		return Markdown
	case ".csv":
		return CSV
	case ".tsv", ".tab":
		return TSV
	}
	return Unknown
}

// mailKind finds e-mail by its content under the names mail is saved with: a message (.eml) starts with its
// header, a mailbox (.mbox, .mbx, or no extension, as mail programs keep their folders) with a "From " line.
func mailKind(head []byte, ext string) Kind {
	switch ext {
	case ".eml":
		if mail.HeadLooksLikeMessage(head) {
			return EML
		}
	case ".mbox", ".mbx", "":
		if mail.LooksLikeMbox(head) {
			return MBOX
		}
	}
	return Unknown
}

// isText reports whether b is UTF-8 without control characters other than tab, line and page breaks; cut says b
// is the start of a longer file, whose last character may be cut short.
func isText(b []byte, cut bool) bool {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if len(b) == 0 {
		return false
	}
	for len(b) > 0 {
		c, n := utf8.DecodeRune(b)
		if c == utf8.RuneError && n <= 1 {
			return cut && len(b) < utf8.UTFMax && !utf8.FullRune(b)
		}
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' || c == 0x7f {
			return false
		}
		b = b[n:]
	}
	return true
}

// sniffMarkup finds FictionBook and (X)HTML files by their first element, past an XML declaration, comments and a
// doctype.
func sniffMarkup(head []byte) (Kind, error) {
	b := bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	xmlDecl, doctypeHTML := false, false
	for {
		b = bytes.TrimLeft(b, " \t\r\n")
		switch {
		case bytes.HasPrefix(b, []byte("<?")):
			xmlDecl = xmlDecl || bytes.HasPrefix(b, []byte("<?xml"))
			i := bytes.Index(b, []byte("?>"))
			if i < 0 {
				return Unknown, nil
			}
			b = b[i+2:]
			continue
		case bytes.HasPrefix(b, []byte("<!--")):
			i := bytes.Index(b, []byte("-->"))
			if i < 0 {
				return Unknown, nil
			}
			b = b[i+3:]
			continue
		case len(b) >= 9 && strings.EqualFold(string(b[:9]), "<!doctype"):
			i := bytes.IndexByte(b, '>')
			if i < 0 {
				return Unknown, nil
			}
			doctypeHTML = strings.HasPrefix(strings.ToLower(strings.TrimSpace(string(b[9:i]))), "html")
			b = b[i+1:]
			if len(bytes.TrimSpace(b)) == 0 && doctypeHTML {
				return HTML, nil
			}
			continue
		}
		break
	}
	if len(b) < 2 || b[0] != '<' {
		return Unknown, nil
	}
	end := bytes.IndexAny(b[1:], " \t\r\n/>")
	if end < 0 {
		end = len(b) - 1
	}
	name := string(b[1 : 1+end])
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[i+1:]
	}
	switch strings.ToLower(name) {
	case "fictionbook":
		return FB2, nil
	case "html":
		if xmlDecl || bytes.Contains(head, []byte("http://www.w3.org/1999/xhtml")) {
			return XHTML, nil
		}
		return HTML, nil
	case "head", "body":
		if doctypeHTML {
			return HTML, nil
		}
	}
	return Unknown, nil
}

// maxTypePart bounds what is read of the part that names a zip's type ([Content_Types].xml, mimetype, the
// package relationships).
const maxTypePart = 1 << 20

// The main parts' content types of the Office Open XML documents (ECMA-376 part 1, and Microsoft's macro-enabled
// and template variants), and of XPS (the fixed document sequence, the same in OpenXPS).
var officeMain = map[string]Kind{
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml":   DOCX,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml":   DOCX,
	"application/vnd.ms-word.document.macroenabled.main+xml":                             DOCX,
	"application/vnd.ms-word.template.macroenabledtemplate.main+xml":                     DOCX,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml":         XLSX,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml":      XLSX,
	"application/vnd.ms-excel.sheet.macroenabled.main+xml":                               XLSX,
	"application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml": PPTX,
	"application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml":    PPTX,
	"application/vnd.openxmlformats-officedocument.presentationml.template.main+xml":     PPTX,
	"application/vnd.ms-powerpoint.presentation.macroenabled.main+xml":                   PPTX,
	"application/vnd.ms-package.xps-fixeddocumentsequence+xml":                           XPS,
}

// cbzPages are the picture names a comic book archive holds.
var cbzPages = map[string]bool{".jpg": true, ".jpeg": true, ".png": true, ".gif": true, ".bmp": true, ".tif": true, ".tiff": true}

// sniffZip tells the zip-based documents apart by their directory: EPUB (and OpenDocument) by the mimetype entry,
// Office Open XML and XPS by the main part [Content_Types].xml names, a comic book by holding only pictures.
func sniffZip(r io.ReaderAt, size int64) (Kind, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return Unknown, &NotDocumentError{"a damaged zip archive (" + err.Error() + ")"}
	}
	byName := map[string]*zip.File{}
	pages, others := 0, 0
	for _, f := range zr.File {
		byName[f.Name] = f
		base := path.Base(f.Name)
		switch {
		case strings.HasSuffix(f.Name, "/"), strings.HasPrefix(f.Name, "__MACOSX/"), strings.HasPrefix(base, "."),
			strings.EqualFold(base, "ComicInfo.xml"), strings.EqualFold(base, "Thumbs.db"):
		case cbzPages[strings.ToLower(path.Ext(base))]:
			pages++
		default:
			others++
		}
	}
	if f := byName["mimetype"]; f != nil {
		b, err := readPart(f, 256)
		if err != nil {
			return Unknown, &NotDocumentError{"a damaged zip archive: its mimetype entry cannot be read (" + err.Error() + ")"}
		}
		switch mt := strings.TrimSpace(string(b)); mt {
		case "application/epub+zip":
			return EPUB, nil
		case "application/vnd.oasis.opendocument.text":
			return ODT, nil
		case "application/vnd.oasis.opendocument.spreadsheet":
			return ODS, nil
		case "application/vnd.oasis.opendocument.presentation":
			return ODP, nil
		default:
			return Unknown, &NotDocumentError{fmt.Sprintf("a zip package of type %q, which Proofglass does not read", mt)}
		}
	}
	if f := byName["[Content_Types].xml"]; f != nil {
		return sniffOPC(f, byName)
	}
	if pages > 0 && others == 0 {
		return CBZ, nil
	}
	return Unknown, &NotDocumentError{"a zip archive that is no document Proofglass reads (no EPUB mimetype, no Office [Content_Types].xml, not only pictures)"}
}

// sniffOPC reads an Open Packaging Conventions package's [Content_Types].xml for the type of its main part.
func sniffOPC(ct *zip.File, byName map[string]*zip.File) (Kind, error) {
	b, err := readPart(ct, maxTypePart)
	if err != nil {
		return Unknown, &NotDocumentError{"a damaged Office package: [Content_Types].xml cannot be read (" + err.Error() + ")"}
	}
	var types struct {
		Overrides []struct {
			PartName    string `xml:"PartName,attr"`
			ContentType string `xml:"ContentType,attr"`
		} `xml:"Override"`
		Defaults []struct {
			Extension   string `xml:"Extension,attr"`
			ContentType string `xml:"ContentType,attr"`
		} `xml:"Default"`
	}
	if err := xml.Unmarshal(b, &types); err != nil {
		return Unknown, &NotDocumentError{"a damaged Office package: [Content_Types].xml is not XML (" + err.Error() + ")"}
	}
	// A part's type is its Override's, else the Default of its extension: XPS writers (Windows' among them) name
	// the fixed document sequence by a Default for ".fdseq" alone.
	typesOf := make([]string, 0, len(types.Overrides)+len(types.Defaults))
	for _, o := range types.Overrides {
		typesOf = append(typesOf, o.ContentType)
	}
	for _, d := range types.Defaults {
		ext := "." + strings.ToLower(strings.TrimPrefix(strings.TrimSpace(d.Extension), "."))
		for name := range byName {
			if strings.ToLower(path.Ext(name)) == ext {
				typesOf = append(typesOf, d.ContentType)
				break
			}
		}
	}
	for _, ct := range typesOf {
		k, ok := officeMain[strings.ToLower(strings.TrimSpace(ct))]
		if !ok {
			continue
		}
		if k == XPS {
			// OpenXPS (ECMA-388) keeps XPS's content types; its package relationships use its own namespace.
			if rels := byName["_rels/.rels"]; rels != nil {
				if rb, err := readPart(rels, maxTypePart); err == nil && bytes.Contains(rb, []byte("schemas.openxps.org")) {
					return OXPS, nil
				}
			}
		}
		return k, nil
	}
	return Unknown, &NotDocumentError{"an Office package whose main part is no Word, Excel, PowerPoint or XPS document"}
}

var errPartTooLarge = errors.New("too large")

func readPart(f *zip.File, max int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, errPartTooLarge
	}
	return b, nil
}
