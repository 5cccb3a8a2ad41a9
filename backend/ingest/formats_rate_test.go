package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFormatRates logs the ingest rate of larger Markdown, CSV and text files (PROOFGLASS_FORMAT_RATES=1, -v): a
// figure for the notes, not a check.
func TestFormatRates(t *testing.T) {
	if os.Getenv("PROOFGLASS_FORMAT_RATES") == "" {
		t.Skip("set PROOFGLASS_FORMAT_RATES=1")
	}
	dir := t.TempDir()
	var md, csv, txt strings.Builder
	for i := range 400 {
		fmt.Fprintf(&md, "## %d Section\n\nParagraph %d of the guide, with a few more words to fill the line out.\n\n", i, i)
		fmt.Fprintf(&txt, "Line %d of the notes, with a few more words to fill the line out to a width.\n", i)
	}
	csv.WriteString("id,name,amount,city\n")
	for i := range 5000 {
		fmt.Fprintf(&csv, "%d,item %d,%d.50,Town%d\n", i, i, i*3, i%40)
	}
	for name, body := range map[string]string{"big.md": md.String(), "big.csv": csv.String(), "big.txt": txt.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"big.md", "big.csv", "big.txt", "testdata/formats/report.docx", "testdata/formats/book.epub"} {
		path := name
		if !strings.HasPrefix(name, "testdata") {
			path = filepath.Join(dir, name)
		}
		in, _ := newIngester(t, Options{NoOCR: true, Workers: 1})
		start := time.Now()
		r := addOne(t, in, "rate", path)
		el := time.Since(start)
		t.Logf("%s: %s, %d pages in %s: %.1f pages/s", name, r.Document.MIME, r.Document.Pages, el.Round(time.Millisecond),
			float64(r.Document.Pages)/el.Seconds())
	}
}
