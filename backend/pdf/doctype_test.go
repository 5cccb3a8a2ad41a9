package pdf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"proofglass/backend/imagefile"
)

// formatsDir holds ingest's test documents of every paged format (backend/ingest/testdata/formats/make.py).
const formatsDir = "../ingest/testdata/formats"

// Every paged format opens in the engine as the type its content is sniffed as, with its marker word on a page.
func TestOpenAsEachFormat(t *testing.T) {
	cases := []struct {
		file, marker string
		pages        int
	}{
		// MuPDF's office handler turns a presentation's slides into one flow of text (a workbook is laid out by
		// htmlconv: each row a line of cells), paged by the layout: these short ones fit one page.
		{"report.docx", "wombatdocx", 1}, {"workbook.xlsx", "wombatxlsx", 4}, {"slides.pptx", "wombatpptx", 1},
		{"book.epub", "wombatepub", 2}, {"comic.cbz", "", 2}, {"story.fb2", "wombatfb", 1}, {"book.mobi", "wombatmobi", 1},
		{"page.xhtml", "wombatxhtml", 1}, {"page.html", "wombathtml", 1}, {"notes.txt", "wombattxt", 1},
		{"guide.md", "wombatmd", 1}, {"prices.csv", "wombatcsv", 1}, {"stations.tsv", "wombattsv", 1},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(formatsDir, c.file)
			k, err := imagefile.SniffFile(path)
			if err != nil || k.DocumentMIME() == "" {
				t.Fatalf("sniff: %q %v", k, err)
			}
			e, err := openEngineAs(path, "", k.DocumentMIME(), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.close()
			if c.pages > 0 && e.pages != c.pages {
				t.Errorf("%d pages, want %d", e.pages, c.pages)
			}
			var all strings.Builder
			for i := range e.pages {
				text, words, err := e.text(i)
				if err != nil {
					t.Fatal(err)
				}
				if strings.TrimSpace(text) != "" && len(words) == 0 {
					t.Errorf("page %d: text without words", i+1)
				}
				all.WriteString(text)
			}
			if !strings.Contains(all.String(), c.marker) {
				t.Errorf("%d pages, text %q lacks %q", e.pages, all.String(), c.marker)
			}
			if os.Getenv("SHOW") != "" {
				t.Logf("%d pages: %q", e.pages, all.String())
			}
		})
	}
}
