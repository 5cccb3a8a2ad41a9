package summary

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

// ingested ingests real files of the shared test data (text layer, no OCR) into a fresh knowledge base and returns
// it with each file's document id, by base name.
func ingested(t testing.TB, rels ...string) (*kb.KB, map[string]int64) {
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
	in := ingest.New(k, nil, ingest.Options{NoOCR: true, Workers: 1})
	t.Cleanup(func() { in.Close() })
	res, err := in.Add(ctx, "docs", paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for i, r := range res {
		if r.Error != "" {
			t.Fatalf("ingest %s: %s", rels[i], r.Error)
		}
		out[filepath.Base(rels[i])] = r.Document.ID
	}
	return k, out
}
