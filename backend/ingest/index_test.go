package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"proofglass/backend/search"
)

// After an ingest the saved dense index is current: a new searcher (the next process) opens it and never builds
// one, and it covers the new document.
func TestIngestSavesTheDenseIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	builds := 0
	counting := func(dim int, ids []int64, vecs [][]float32) (search.Index, error) {
		builds++
		return search.NewVectorIndex(dim, ids, vecs)
	}
	in, k := newIngester(t, Options{NoOCR: true})
	in.o.Index = search.New(k, search.Options{IndexDir: dir, NewIndex: counting})
	r := addOne(t, in, "c", testdata(t, "pdf", "real", "hsaur3-Ch_analysis_of_variance.pdf"))
	if builds != 1 {
		t.Fatalf("%d index builds during the first ingest, want 1", builds)
	}
	// A second document is added to the saved index, not rebuilt.
	r2 := addOne(t, in, "c", testdata(t, "pdf", "real", "hsaur3-Ch_logistic_regression_glm.pdf"))
	if builds != 1 {
		t.Errorf("second ingest rebuilt the index (%d builds)", builds)
	}
	s := search.New(k, search.Options{IndexDir: dir, NewIndex: counting})
	for _, c := range []struct {
		q   string
		doc int64
	}{{"analysis of variance weight gain", r.Document.ID}, {"logistic regression plasma fibrinogen", r2.Document.ID}} {
		res, err := s.Search(ctx, search.Query{Text: c.q, K: 20, Mode: search.Dense})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range res.Hits {
			found = found || h.DocumentID == c.doc
		}
		if !found {
			t.Errorf("%q: document %d not among the dense hits", c.q, c.doc)
		}
	}
	if builds != 1 {
		t.Errorf("a new searcher built the index although ingest saved it (%d builds)", builds)
	}
}

// Deleting a document brings the saved dense index up to date at once, so the next process's first search does not
// have to.
func TestDeleteSavesTheDenseIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	in, k := newIngester(t, Options{NoOCR: true})
	in.o.Index = search.New(k, search.Options{IndexDir: dir})
	addOne(t, in, "c", testdata(t, "pdf", "real", "hsaur3-Ch_analysis_of_variance.pdf"))
	r := addOne(t, in, "c", testdata(t, "pdf", "real", "hsaur3-Ch_logistic_regression_glm.pdf"))
	saved := func() []byte {
		t.Helper()
		var all []byte
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			all = append(append(all, f...), b...)
		}
		return all
	}
	before := saved()
	if err := in.Delete(ctx, r.Document.ID); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(saved(), before) {
		t.Fatal("the saved dense index did not change when a document was deleted")
	}
	res, err := search.New(k, search.Options{IndexDir: dir}).Search(ctx, search.Query{Text: "logistic regression plasma fibrinogen", K: 20, Mode: search.Dense})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.DocumentID == r.Document.ID {
			t.Fatalf("deleted document found: %+v", h)
		}
	}
}

// A deleted document's remembered PDF password goes with it — unless another collection holds the same file.
func TestDeleteForgetsThePassword(t *testing.T) {
	ctx := context.Background()
	in, _ := newIngester(t, Options{NoOCR: true})
	p := testdata(t, "bad", "pdf", "debian", "a-text-pass-peanuts.pdf")
	var ids []int64
	for _, c := range []string{"c1", "c2"} {
		res, err := in.AddRequest(ctx, Request{Collection: c, Paths: []string{p}, Password: "peanuts"}, nil)
		if err != nil || res[0].Document.Status != "ready" {
			t.Fatalf("%s: %v %+v", c, err, res)
		}
		ids = append(ids, res[0].Document.ID)
	}
	sha, err := in.kb.Docs.Document(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	key := PasswordKey(sha.SHA256)
	if in.getSecret(key) != "peanuts" {
		t.Fatal("password not remembered after ingest")
	}
	if err := in.Delete(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	if in.getSecret(key) != "peanuts" {
		t.Error("password forgotten while another collection still holds the file")
	}
	if err := in.Delete(ctx, ids[1]); err != nil {
		t.Fatal(err)
	}
	if v := in.getSecret(key); v != "" {
		t.Errorf("password still remembered after the last copy was deleted: %q", v)
	}
}
