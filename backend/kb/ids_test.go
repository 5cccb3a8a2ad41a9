package kb

import (
	"context"
	"testing"
)

// TestIdsNeverReused: a page file or client that remembers a deleted document's or unit's id must never get a
// later document's content under it.
func TestIdsNeverReused(t *testing.T) {
	ctx := context.Background()
	k, c := openWithCollection(t)
	var gone []Deleted
	k.OnDelete(func(_ context.Context, ds []Deleted) { gone = append(gone, ds...) })
	add := func(sha string) (int64, int64) {
		d, _, err := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: sha, Name: sha + ".pdf", Kind: "pdf"})
		if err != nil {
			t.Fatal(err)
		}
		u, err := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 1, Kind: UnitPage, Text: "x"})
		if err != nil {
			t.Fatal(err)
		}
		return d.ID, u
	}
	d1, u1 := add("aaa")
	if err := k.Docs.DeleteDocument(ctx, d1); err != nil {
		t.Fatal(err)
	}
	if len(gone) != 1 || gone[0].ID != d1 || gone[0].SHA256 != "aaa" || gone[0].Collection != "c" {
		t.Errorf("delete hook got %+v", gone)
	}
	d2, u2 := add("bbb")
	if d2 <= d1 || u2 <= u1 {
		t.Errorf("ids reused after delete: document %d then %d, unit %d then %d", d1, d2, u1, u2)
	}
	if err := k.Docs.DeleteCollection(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if len(gone) != 2 || gone[1].ID != d2 {
		t.Errorf("collection delete hook got %+v", gone)
	}
}
