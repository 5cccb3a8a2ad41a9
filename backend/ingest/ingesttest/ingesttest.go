// Package ingesttest reads the shared test PDFs through Proofglass's own ingest for other packages' tests, once per
// test binary (whose TestMain must serve as the pdf worker).
package ingesttest

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"proofglass/backend/fixture"
	"proofglass/backend/ingest"
	"proofglass/backend/kb"
)

var (
	mu       sync.Mutex
	ingested = map[string][]kb.Unit{} // an ingest takes seconds: each file is read once
)

// Units ingests a shared PDF (relative to the shared test data; text layer, no OCR) into a scratch knowledge base
// and returns its pages with their word boxes.
func Units(t testing.TB, rel string) []kb.Unit {
	t.Helper()
	path := fixture.Path(t, rel)
	mu.Lock()
	defer mu.Unlock()
	if us, ok := ingested[rel]; ok {
		return us
	}
	ctx := context.Background()
	dir := t.TempDir()
	k, err := kb.Open(ctx, filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatalf("scratch knowledge base: %v", err)
	}
	defer k.Close()
	in := ingest.New(k, nil, ingest.Options{NoOCR: true, Workers: 1})
	defer in.Close()
	res, err := in.Add(ctx, "test", []string{path}, nil)
	if err != nil || len(res) != 1 || res[0].Error != "" {
		t.Fatalf("ingest %s: %v %+v", rel, err, res)
	}
	us, err := k.Content.Units(ctx, res[0].Document.ID)
	if err != nil {
		t.Fatalf("read %s: %v", rel, err)
	}
	ingested[rel] = us
	return us
}

// Page is page n (1-based) of a shared PDF, as Units reads it.
func Page(t testing.TB, rel string, n int) kb.Unit {
	t.Helper()
	for _, u := range Units(t, rel) {
		if u.Ordinal == n {
			return u
		}
	}
	t.Fatalf("%s has no page %d", rel, n)
	return kb.Unit{}
}
