package kb

import (
	"context"
	"reflect"
	"testing"
)

// A replaced passage gets a new id even when it held the largest one (SQLite alone would hand that id out again),
// so a saved index updated by comparing ids never keeps a stale vector under a reused id.
func TestPassageIDsNeverReused(t *testing.T) {
	ctx := context.Background()
	k, _, _, uid := openWithPage(t, "one two")
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
		if err := k.Content.PutPassages(ctx, uid, "e", ps); err != nil {
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

// TestPassagesBatchedGetTheSameIDs stores passages (two units, more than one statement's worth, replaced, and with
// the counter behind the largest id, as in databases older than the counter) through putPassages and through a
// statement per passage, as putPassages once did: ids, rows and the counter must come out the same.
func TestPassagesBatchedGetTheSameIDs(t *testing.T) {
	ctx := context.Background()
	onePerStatement := func(ctx context.Context, db execer, unitID int64, embedder string, ps []Passage) error {
		if _, err := db.ExecContext(ctx, `DELETE FROM passages WHERE unit_id = ? AND embedder = ?`, unitID, embedder); err != nil {
			return err
		}
		for _, p := range ps {
			if _, err := db.ExecContext(ctx, `INSERT INTO passages(id, unit_id, embedder, ordinal, start, end, dim, vec)
				VALUES (`+nextPassageID+`,?,?,?,?,?,?,?)`, unitID, embedder, p.Ordinal, p.Start, p.End, len(p.Vec), EncodeVector(p.Vec)); err != nil {
				return err
			}
		}
		return nil
	}
	passages := func(n int, seed float32) []Passage {
		ps := make([]Passage, n)
		for i := range ps {
			ps[i] = Passage{Ordinal: i, Start: 10 * i, End: 10*i + 64, Vec: []float32{seed, float32(i), -1}}
		}
		return ps
	}
	run := func(put func(ctx context.Context, db execer, unitID int64, embedder string, ps []Passage) error) [][]any {
		k := openTest(t)
		c, _ := k.Docs.EnsureCollection(ctx, "c")
		d, _, _ := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "s", Name: "a.pdf", Kind: "pdf"})
		u1, _ := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 1, Kind: UnitPage, Text: "one"})
		u2, _ := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 2, Kind: UnitPage, Text: "two"})
		var out [][]any
		for i, step := range []struct {
			unit int64
			n    int
		}{{u1, 3}, {u2, 300}, {u1, 5}, {-1, 0}, {u2, 2}, {u1, 0}} {
			if step.unit < 0 { // the counter falls behind the largest id
				if _, err := k.db.Exec(`UPDATE counters SET value = 1 WHERE name = 'vectors'`); err != nil {
					t.Fatal(err)
				}
				continue
			}
			err := k.Content.Batch(ctx, func(b *Batch) error { return put(ctx, b.tx, step.unit, "e", passages(step.n, float32(i))) })
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, dumpRows(t, k.db, `SELECT id, unit_id, embedder, ordinal, start, end, dim, hex(vec),
				(SELECT value FROM counters WHERE name = 'vectors') FROM passages ORDER BY id`)...)
		}
		return out
	}
	want, got := run(onePerStatement), run(putPassages)
	if len(want) != 3+303+305+7+2 {
		t.Fatalf("reference stored %d passage rows over the steps, want %d", len(want), 3+303+305+7+2)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("batched:\n%v\none per statement:\n%v", got, want)
	}
}
