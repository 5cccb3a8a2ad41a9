package imagefile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// formatsDir holds ingest's test documents of every paged format (backend/ingest/testdata/formats/make.py).
const formatsDir = "../ingest/testdata/formats"

func TestSniffAtDocuments(t *testing.T) {
	cases := []struct {
		file string
		want Kind
		why  bool // a *NotDocumentError says why it is Unknown
	}{
		{"report.docx", DOCX, false}, {"workbook.xlsx", XLSX, false}, {"slides.pptx", PPTX, false},
		{"book.epub", EPUB, false}, {"comic.cbz", CBZ, false}, {"story.fb2", FB2, false},
		{"page.xhtml", XHTML, false}, {"page.html", HTML, false}, {"notes.txt", Text, false},
		{"guide.md", Markdown, false}, {"prices.csv", CSV, false}, {"stations.tsv", TSV, false},
		{"bad-truncated.docx", Unknown, true}, {"bad-norels.docx", DOCX, false}, {"bad-garbage.epub", Unknown, false},
		// XPS names its fixed document sequence by a Default content type for the extension, as Windows writes it.
		{"summary.xps", XPS, false},
		{"message.eml", EML, false}, {"mailbox.mbox", MBOX, false},
		{"bad-notmail.eml", Unknown, false}, {"bad-garbage.mbox", Unknown, false},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(formatsDir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			head := b[:min(len(b), SniffLen)]
			k, why := SniffAt(bytes.NewReader(b), int64(len(b)), head, filepath.Ext(c.file))
			if k != c.want || (why != nil) != c.why {
				t.Errorf("%q (%v), want %q (why: %v)", k, why, c.want, c.why)
			}
		})
	}
	// The name chooses among readings of text only: text named .pdf is no PDF, a DOCX named .txt is a DOCX.
	b, _ := os.ReadFile(filepath.Join(formatsDir, "report.docx"))
	if k, _ := SniffAt(bytes.NewReader(b), int64(len(b)), b[:SniffLen], ".txt"); k != DOCX {
		t.Errorf("report.docx named .txt: %q", k)
	}
	text := []byte("just words\n")
	if k, _ := SniffAt(bytes.NewReader(text), int64(len(text)), text, ".pdf"); k != Unknown {
		t.Errorf("text named .pdf: %q", k)
	}
	// A page saved without <html> (pandoc's default) is HTML under an HTML name only.
	frag := []byte("<pre><code>GNU GENERAL PUBLIC LICENSE</code></pre>\n<p>Copyright (C) 2007</p>\n")
	if k, _ := SniffAt(bytes.NewReader(frag), int64(len(frag)), frag, ".html"); k != HTML {
		t.Errorf("an HTML fragment named .html: %q", k)
	}
	if k, _ := SniffAt(bytes.NewReader(frag), int64(len(frag)), frag, ".pdf"); k != Unknown {
		t.Errorf("an HTML fragment named .pdf: %q", k)
	}
	if k, _ := SniffAt(bytes.NewReader([]byte("<notatag>")), 9, []byte("<notatag>"), ".html"); k != Unknown {
		t.Errorf("an unknown element named .html: %q", k)
	}
	mobi := append(make([]byte, 60), "BOOKMOBI"...)
	if k := Sniff(mobi); k != MOBI {
		t.Errorf("MOBI header: %q", k)
	}
}
