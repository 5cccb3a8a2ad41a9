package ingest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"proofglass/backend/imagefile"
)

// openWithLeftOut are the extensions Formats reads that "Open with" does not claim: plain text and web pages (every
// editor and browser owns them), .ts (TypeScript as often as MPEG-TS) and Ogg (audio as often as video).
var openWithLeftOut = []string{".txt", ".html", ".htm", ".xhtml", ".ts", ".ogg", ".ogv"}

// TestOpenWithListsTheFormats: the Windows installer's file types and the Linux desktop entry's MIME types are the
// formats Proofglass reads, so "Open with" offers exactly what ingest takes: none left out but on purpose, none
// that ingest refuses.
func TestOpenWithListsTheFormats(t *testing.T) {
	root := filepath.Join("..", "..", "build")
	nsi, err := os.ReadFile(filepath.Join(root, "windows", "installer.nsi"))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^\s*!insertmacro \$\{M\} (\.\w+)$`).FindAllStringSubmatch(string(nsi), -1) {
		listed = append(listed, m[1])
	}
	var read []string
	for _, f := range Formats {
		for _, e := range f.Extensions {
			if !slices.Contains(openWithLeftOut, e) {
				read = append(read, e)
			}
		}
	}
	slices.Sort(listed)
	slices.Sort(read)
	if !slices.Equal(listed, read) {
		t.Errorf("installer.nsi offers %v; ingest reads %v (less %v)", listed, read, openWithLeftOut)
	}

	entry, err := os.ReadFile(filepath.Join(root, "linux", "io.github.proofglass.Proofglass.desktop"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^MimeType=(.*)$`).FindStringSubmatch(string(entry))
	if m == nil {
		t.Fatal("the desktop entry has no MimeType line")
	}
	types := strings.Split(strings.TrimSuffix(m[1], ";"), ";")
	for _, k := range []imagefile.Kind{imagefile.PDF, imagefile.DOCX, imagefile.XLSX, imagefile.PPTX, imagefile.ODT,
		imagefile.ODS, imagefile.ODP, imagefile.EPUB, imagefile.MOBI, imagefile.FB2, imagefile.XPS, imagefile.OXPS,
		imagefile.CBZ, imagefile.Markdown, imagefile.CSV, imagefile.TSV, imagefile.EML, imagefile.MBOX} {
		if !slices.Contains(types, k.DocumentMIME()) {
			t.Errorf("the desktop entry lacks %s (%s)", k.DocumentMIME(), k)
		}
	}
	for _, mt := range types {
		if mt == "image/heic" || mt == "image/heif" {
			t.Errorf("the desktop entry claims %s, which ingest refuses", mt)
		}
	}
}
