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
		{"summary.xps", "wombatxps", 1}, {"message.eml", "wombateml", 1},
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

// TestCJKTextIsDrawn lays out Chinese, Japanese and Korean text in a document that carries no font for it (a
// Markdown file laid out by htmlconv, as e-mails, CSV and OpenDocument files are): every CJK character is extracted and, with a CJK font installed, drawn, so the
// page image the visual agent sees has ink inside the word's box. The linked MuPDF has no CJK font of its own.
func TestCJKTextIsDrawn(t *testing.T) {
	if _, ok := findCJKFont(); !ok {
		t.Skip("no CJK font installed (Debian: fonts-noto-cjk); scripts/setup.sh installs it")
	}
	dir := t.TempDir()
	md := filepath.Join(dir, "cjk.md")
	if err := os.WriteFile(md, []byte("# 年度报告\n\n营业收入增长。\n\n日本語のテキスト\n\n한국어 문장\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path  string
		words []string
	}{
		// CJK text is extracted a character a word: one of each script.
		{md, []string{"年", "营", "語", "テ", "の", "한"}},
	} {
		k, err := imagefile.SniffFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		e, err := openEngineAs(c.path, "", k.DocumentMIME(), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		_, words, err := e.text(0)
		if err != nil {
			t.Fatal(err)
		}
		img, dpi, err := e.render(0, 72, nil, 0)
		e.close()
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range c.words {
			var box *Box
			for i, w := range words {
				if w.Text == want {
					box = &words[i].Box
				}
			}
			if box == nil {
				t.Errorf("%s: no word %q among %v", filepath.Base(c.path), want, words)
				continue
			}
			dark, all := 0, 0
			s := dpi / 72
			for y := int(box.Y0 * s); y < int(box.Y1*s); y++ {
				for x := int(box.X0 * s); x < int(box.X1*s); x++ {
					r, _, _, _ := img.At(x, y).RGBA()
					all++
					if r < 0x8000 {
						dark++
					}
				}
			}
			if all == 0 || dark*20 < all {
				t.Errorf("%s: %q is drawn with %d dark pixels of %d in its box: no glyphs", filepath.Base(c.path), want, dark, all)
			}
		}
	}
}
