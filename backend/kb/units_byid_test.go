package kb

import (
	"context"
	"testing"
)

func TestUnitsByID(t *testing.T) {
	ctx := context.Background()
	k := openTest(t)
	d := addTestDocument(t, k, "ab", "d.pdf")
	var ids []int64
	for i := 1; i <= 1203; i++ { // more than one chunk of 500
		id, err := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: i, Kind: UnitPage, Text: "page"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	got, err := k.Content.UnitsByID(ctx, append(ids, 999999))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ids) {
		t.Fatalf("%d units, want %d (the missing id left out)", len(got), len(ids))
	}
	for i, id := range ids {
		if got[id].Ordinal != i+1 || got[id].DocumentID != d.ID {
			t.Fatalf("unit %d: %+v", id, got[id])
		}
	}
	if none, err := k.Content.UnitsByID(ctx, nil); err != nil || len(none) != 0 {
		t.Errorf("no ids: %v %v", none, err)
	}
}

// addTestDocument adds a ready PDF document to collection "c" (created when missing).
func addTestDocument(t *testing.T, k *KB, sha, name string) Document {
	t.Helper()
	ctx := context.Background()
	col, err := k.Docs.EnsureCollection(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := k.Docs.AddDocument(ctx, Document{CollectionID: col.ID, SHA256: sha, Name: name, Kind: "pdf", Status: StatusReady})
	if err != nil {
		t.Fatal(err)
	}
	return d
}
