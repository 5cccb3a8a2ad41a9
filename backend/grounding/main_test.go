package grounding

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"proofglass/backend/fixture"
	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/pdf"
)

// TestMain lets the test binary serve as the pdf worker, as the proofglass binary does.
func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

// ingested ingests real files of the shared test data into a fresh knowledge base (OCR only when ocr is set) and
// returns it with each file's page units, by base name.
func ingested(t testing.TB, ocr bool, rels ...string) (*kb.KB, map[string][]kb.Unit) {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	k, err := kb.Open(ctx, filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	var paths []string
	for _, rel := range rels {
		paths = append(paths, fixture.Path(t, rel))
	}
	in := ingest.New(k, nil, ingest.Options{NoOCR: !ocr, Workers: 1})
	t.Cleanup(func() { in.Close() })
	res, err := in.Add(ctx, "docs", paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]kb.Unit{}
	for i, r := range res {
		if r.Error != "" {
			t.Fatalf("ingest %s: %s", rels[i], r.Error)
		}
		units, err := k.Content.Units(ctx, r.Document.ID)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(rels[i])] = units
	}
	return k, out
}
