package kb

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

func TestDocumentSummaries(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	k, err := Open(ctx, filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	col, err := k.Docs.CreateCollection(ctx, Collection{Name: "c"})
	if err != nil {
		t.Fatal(err)
	}
	doc, _, err := k.Docs.AddDocument(ctx, Document{CollectionID: col.ID, Name: "a.pdf", SHA256: "ab", Kind: "pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Docs.DocumentSummary(ctx, doc.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("before any: %v, want ErrNotFound", err)
	}
	for _, body := range []string{`{"text":"one"}`, `{"text":"two"}`} {
		if err := k.Docs.PutDocumentSummary(ctx, DocumentSummary{DocumentID: doc.ID, Model: "m", Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := k.Docs.DocumentSummary(ctx, doc.ID)
	if err != nil || s.Body != `{"text":"two"}` || s.Model != "m" || s.Created.IsZero() {
		t.Fatalf("got %+v, %v", s, err)
	}
	if err := k.Docs.PutDocumentSummary(ctx, DocumentSummary{DocumentID: 999, Model: "m", Body: "{}"}); err == nil {
		t.Fatal("a summary of a missing document was stored")
	}
	if err := k.Docs.DeleteDocument(ctx, doc.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Docs.DocumentSummary(ctx, doc.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after the document was deleted: %v, want ErrNotFound", err)
	}
}
