package kb

import (
	"context"
	"testing"
)

// A replaced passage gets a new id even when it held the largest one (SQLite alone would hand that id out again),
// so a saved index updated by comparing ids never keeps a stale vector under a reused id.
func TestPassageIDsNeverReused(t *testing.T) {
	ctx := context.Background()
	k := openTest(t)
	c, err := k.EnsureCollection(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := k.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "s", Name: "a.pdf", Kind: "pdf"})
	if err != nil {
		t.Fatal(err)
	}
	uid, err := k.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 1, Kind: UnitPage, Text: "one two"})
	if err != nil {
		t.Fatal(err)
	}
	ids := func() []int64 {
		t.Helper()
		rows, err := k.DB().QueryContext(ctx, `SELECT id FROM passages ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []int64
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			out = append(out, id)
		}
		return out
	}
	seen := map[int64]bool{}
	for round := range 4 {
		ps := []Passage{{Ordinal: 0, End: 3, Vec: []float32{1, float32(round)}}, {Ordinal: 1, End: 7, Vec: []float32{0, 1}}}
		if err := k.PutPassages(ctx, uid, "e", ps); err != nil {
			t.Fatal(err)
		}
		got := ids()
		if len(got) != 2 {
			t.Fatalf("round %d: %d passages, want 2", round, len(got))
		}
		for _, id := range got {
			if seen[id] {
				t.Errorf("round %d: passage id %d given out again", round, id)
			}
			seen[id] = true
		}
	}
}
