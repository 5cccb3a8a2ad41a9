package ingest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"proofglass/backend/kb"
	"proofglass/backend/pdf"
	"proofglass/backend/search"
)

// formatFile is one of testdata/formats (made by its make.py): what ingest must record for it and the word only it
// holds.
type formatFile struct {
	file, mime, marker string
	pages              int
}

var formatFiles = []formatFile{
	{"report.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "wombatdocx", 1},
	{"workbook.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "wombatxlsx", 4},
	{"slides.pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation", "wombatpptx", 1},
	{"book.epub", "application/epub+zip", "wombatepub", 2},
	{"comic.cbz", "application/vnd.comicbook+zip", "", 2},
	{"story.fb2", "application/x-fictionbook+xml", "wombatfb", 1},
	{"book.mobi", "application/x-mobipocket-ebook", "wombatmobi", 1},
	{"page.xhtml", "application/xhtml+xml", "wombatxhtml", 1},
	{"page.html", "text/html", "wombathtml", 1},
	{"notes.txt", "text/plain", "wombattxt", 1},
	{"guide.md", "text/markdown", "wombatmd", 1},
	{"prices.csv", "text/csv", "wombatcsv", 1},
	{"stations.tsv", "text/tab-separated-values", "wombattsv", 1},
	{"notes.odt", "application/vnd.oasis.opendocument.text", "wombatodt", 1},
	{"stock.ods", "application/vnd.oasis.opendocument.spreadsheet", "wombatods", 1},
	{"tour.odp", "application/vnd.oasis.opendocument.presentation", "wombatodp", 1},
	{"message.eml", "message/rfc822", "wombateml", 1},
	{"summary.xps", "application/vnd.ms-xpsdocument", "wombatxps", 1},
}

// TestFormatsIngest adds a file of every paged format and the damaged ones in one batch: each good one is a ready
// paged document with its MIME type, pages with words and their boxes, its marker word finds it first, and its page
// renders from the stored original (which has no extension); each damaged one fails with a reason naming it.
func TestFormatsIngest(t *testing.T) {
	in, k := newIngester(t, Options{NoOCR: true})
	ctx := context.Background()
	dir := filepath.Join("testdata", "formats")
	var paths []string
	for _, f := range formatFiles {
		paths = append(paths, filepath.Join(dir, f.file))
	}
	bad := map[string]string{ // damaged file → what its error must say
		"bad-truncated.docx": "damaged zip", "bad-norels.docx": "damaged or not a readable Word document",
		"bad-garbage.epub": "not one of the e-books", "bad-nocontent.odt": "no content.xml",
		"bad-notmail.eml": "not one of the e-mail messages", "bad-garbage.mbox": "not one of the e-mail messages",
		"bad-truncated.xlsx": "not one of the Excel workbooks Proofglass reads: the content is a damaged zip",
		"bad-truncated.pptx": "not one of the PowerPoint presentations Proofglass reads: the content is a damaged zip",
		"bad-truncated.ods":  "not one of the OpenDocument files Proofglass reads: the content is a damaged zip",
		"bad-truncated.odp":  "not one of the OpenDocument files Proofglass reads: the content is a damaged zip",
		"bad-truncated.cbz":  "not one of the comic book archives Proofglass reads: the content is a damaged zip",
		"bad-nofdseq.xps":    "not one of the XPS documents Proofglass reads",
		"bad-records.mobi":   "damaged or not a readable Mobipocket e-book",
		"bad-binary.csv":     "not one of the CSV and TSV tables Proofglass reads",
		"bad-binary.tsv":     "not one of the CSV and TSV tables Proofglass reads",
		"bad-binary.txt":     "not one of the text files Proofglass reads",
		"bad-binary.md":      "not one of the Markdown files Proofglass reads",
		"bad-binary.html":    "not one of the web pages Proofglass reads",
	}
	for name := range bad {
		paths = append(paths, filepath.Join(dir, name))
	}
	// A FictionBook cut short is recovered (MuPDF's XML parser closes what is open): its text up to the cut stays.
	paths = append(paths, filepath.Join(dir, "bad-unclosed.fb2"))
	res, err := in.Add(ctx, "formats", paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Result{}
	for _, r := range res {
		byName[filepath.Base(r.Path)] = r
	}
	for name, want := range bad {
		r := byName[name]
		if r.Document.Status != kb.StatusFailed || !strings.Contains(r.Error, name) || !strings.Contains(r.Error, want) ||
			strings.Contains(r.Error, k.Blobs.Dir()) {
			t.Errorf("%s: %s %q; want failed, naming the file and %q", name, r.Document.Status, r.Error, want)
		}
	}
	if r := byName["bad-unclosed.fb2"]; r.Document.Status != kb.StatusReady || !strings.Contains(units(t, k, r.Document.ID)[0].Text, "cut") {
		t.Errorf("bad-unclosed.fb2: %s %q; want its text up to the cut", r.Document.Status, r.Error)
	}
	rend := pdf.NewRenderer(pdf.NewClient(workerOptions()), nil, 2)
	s := search.New(k, search.Options{})
	for _, f := range formatFiles {
		t.Run(f.file, func(t *testing.T) {
			r := byName[f.file]
			d := r.Document
			if d.Status != kb.StatusReady || d.Kind != "pdf" || d.MIME != f.mime || d.Pages != f.pages {
				t.Fatalf("%s %s %q %d pages (%s); want ready pdf %q with %d", d.Status, d.Kind, d.MIME, d.Pages, r.Error, f.mime, f.pages)
			}
			us := units(t, k, d.ID)
			if len(us) != f.pages {
				t.Fatalf("%d units, want %d", len(us), f.pages)
			}
			img, err := rend.Render(ctx, k.Blobs.Path(d.Blob), "", pdf.RenderRequest{Page: 0, DPI: 36, MIME: d.MIME})
			if err != nil || len(img.Data) == 0 || img.Width <= 0 {
				t.Fatalf("render page 1: %v", err)
			}
			if f.marker == "" {
				return
			}
			var page *kb.Unit
			for i, u := range us {
				if strings.Contains(u.Text, f.marker) {
					page = &us[i]
				}
			}
			if page == nil {
				t.Fatalf("no page holds %q", f.marker)
			}
			boxed := false
			for _, w := range page.Words {
				boxed = boxed || strings.Contains(w.Text, f.marker) && w.X1 > w.X0 && w.Y1 > w.Y0 && w.X1 <= page.Width+1
			}
			if !boxed {
				t.Errorf("page %d: no box for %q among %d words", page.Ordinal, f.marker, len(page.Words))
			}
			hits, err := s.Search(ctx, search.Query{Text: f.marker, K: 3, Mode: search.BM25})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits.Hits) == 0 || hits.Hits[0].DocumentID != d.ID || hits.Hits[0].Page != page.Ordinal {
				t.Errorf("search %q: %+v; want %s p. %d first", f.marker, hits.Hits, f.file, page.Ordinal)
			}
		})
	}
}
