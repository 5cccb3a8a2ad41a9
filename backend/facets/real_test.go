package facets_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"proofglass/backend/facets"
	"proofglass/backend/fixture"
	"proofglass/backend/pdf"
)

func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

// sourceOfFile reads a PDF as ingest stores it: its info dictionary and the text of its leading pages.
func sourceOfFile(t *testing.T, c *pdf.Client, path string) facets.Source {
	t.Helper()
	ctx := context.Background()
	d, err := c.Open(ctx, path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	src := facets.Source{FileName: filepath.Base(path), Info: d.Info.Metadata}
	for i := 0; i < min(d.Pages(), 30); i++ {
		pg, err := d.Page(ctx, i, pdf.PageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		src.Pages = append(src.Pages, pg.Text)
	}
	return src
}

func pdfClient(t *testing.T) *pdf.Client {
	c := pdf.NewClient(pdf.Options{})
	t.Cleanup(func() { c.Close() })
	return c
}

func TestDumpReal(t *testing.T) {
	c := pdfClient(t)
	dir := fixture.Dir(t)
	var files []string
	for _, g := range []string{"pdf/real/*.pdf", "pdf/cjk/*.pdf", "../eval/dev/docs/*.pdf"} {
		m, _ := filepath.Glob(filepath.Join(dir, g))
		files = append(files, m...)
	}
	for _, f := range files {
		if filepath.Base(f) == "R-refman.pdf" {
			continue
		}
		src := sourceOfFile(t, c, f)
		t.Logf("%s: %+v running=%q info=%v", filepath.Base(f), facets.Extract(src), facets.RunningLines(src.Pages), src.Info["created"])
	}
}
