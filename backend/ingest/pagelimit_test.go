package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"proofglass/backend/fixture"
	"proofglass/backend/kb"
)

// writePDF writes a PDF of n pages, each with the content stream content(i) (empty for a blank page).
func writePDF(t *testing.T, path string, n int, content func(i int) string) {
	t.Helper()
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>"}
	kids := make([]string, n)
	for i := range n {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	objs = append(objs, fmt.Sprintf("<< /Type /Pages /Count %d /Kids [%s] >>", n, strings.Join(kids, " ")),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i := range n {
		c := content(i)
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(c), c))
	}
	if err := os.WriteFile(path, fixture.PDF(objs, ""), 0o644); err != nil {
		t.Fatal(err)
	}
}

func blank(int) string { return "" }

// TestPageLimits: pathological page counts are stopped early with a clear message, by a page-count rule rather
// than the per-file time limit: a PDF over MaxPages before anything is read, and a PDF whose pages all come out
// without text (even by OCR) after MaxBlankPages of them. A document with text is not stopped by the blank rule.
func TestPageLimits(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	many := filepath.Join(dir, "many-empty-pages.pdf")
	writePDF(t, many, 300, blank)
	withText := filepath.Join(dir, "text-then-blank.pdf")
	writePDF(t, withText, 14, func(i int) string {
		if i == 4 { // text on page 5; the 13 others are blank, more than the limit of 10, but the document has text
			return "BT /F1 14 Tf 20 100 Td (The quarterly revenue grew by twelve percent) Tj ET"
		}
		return ""
	})
	t.Run("more pages than MaxPages", func(t *testing.T) {
		k := openKB(t, t.TempDir())
		in := New(k, nil, Options{Workers: 2, NoOCR: true, PDF: workerOptions(), MaxPages: 100})
		defer in.Close()
		res, err := in.Add(ctx, "c", []string{many}, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := res[0].Document
		if d.Status != kb.StatusFailed || !strings.Contains(d.Error, "many-empty-pages.pdf has 300 pages, more than the limit of 100") ||
			!strings.Contains(d.Error, "ingest.max_pages") {
			t.Errorf("%s: %q", d.Status, d.Error)
		}
		if us, _ := k.Content.Units(ctx, d.ID); len(us) != 0 {
			t.Errorf("%d pages read from a document over the limit", len(us))
		}
	})

	fixture.Command(t, "tesseract")
	t.Run("blank pages beyond MaxBlankPages", func(t *testing.T) {
		k := openKB(t, t.TempDir())
		in := New(k, nil, Options{Workers: 2, PDF: workerOptions(), OCRDPI: 50, MaxBlankPages: 10})
		defer in.Close()
		res, err := in.Add(ctx, "c", []string{many}, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := res[0].Document
		if d.Status != kb.StatusFailed || !strings.Contains(d.Error, "stopped after its first 10 pages gave no text at all, even by OCR") ||
			!strings.Contains(d.Error, "ingest.max_blank_pages") {
			t.Errorf("%s: %q", d.Status, d.Error)
		}
		us, _ := k.Content.Units(ctx, d.ID)
		if len(us) >= 300 {
			t.Errorf("all %d pages were read: the rule did not stop the document", len(us))
		}
		t.Logf("stopped with %d of 300 pages stored: %s", len(us), d.Error)
	})
	t.Run("a page with text", func(t *testing.T) {
		k := openKB(t, t.TempDir())
		in := New(k, nil, Options{Workers: 2, PDF: workerOptions(), OCRDPI: 50, MaxBlankPages: 10})
		defer in.Close()
		res, err := in.Add(ctx, "c", []string{withText}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := res[0].Document; d.Status != kb.StatusReady || d.Pages != 14 {
			t.Errorf("%s, %d pages: %q", d.Status, d.Pages, d.Error)
		}
	})
}
