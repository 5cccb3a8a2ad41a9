package kb

import (
	"context"
	"slices"
	"testing"
)

// TestDenseItemsPlans checks the plan of every query a search runs on the dense path (with TestSearchReadsPlans),
// with and without planner statistics: none may scan, or probe by a non-key column, inside another loop. Without
// this, the index load at library size (12k units × 173k passages) did not finish in 15 minutes.
func TestDenseItemsPlans(t *testing.T) {
	text := VectorSet{Embedder: "e", Modality: ModalityText, Dim: 2}
	image := VectorSet{Embedder: "e", Modality: ModalityImage, Dim: 2}
	mk := func(s string, a []any) planQuery { return planQuery{s, a} }
	queries := map[string]planQuery{
		"text items":        mk(itemsSQL(text, true)),
		"text items meta":   mk(itemsSQL(text, false)),
		"image items":       mk(itemsSQL(image, true)),
		"items by id":       mk(itemsByIDSQL(text, []any{int64(1), int64(2)}, []any{int64(3)})),
		"image items by id": mk(itemsByIDSQL(image, []any{int64(1)}, nil)),

		"delta ids":       mk(indexedIDsSQL(text)),
		"image delta ids": mk(indexedIDsSQL(image)),
		"saved passages":  {passagesUpToSQL, []any{"e", 2, int64(100)}},
		"new passages":    {passagesAfterSQL, []any{"e", 2, int64(100)}},
		"whole-text ids":  {wholeTextIDsSQL, []any{"e", 2}},
		"new whole-text":  {newWholeTextIDsSQL, []any{int64(100), "e", 2}},
	}
	checkPlans(t, queries)
}

// TestPlanCheckCatchesTheOldProbe proves the check can fail: the probe that made the library-size load quadratic
// (passages found through passages_embedder for every unit) is reported.
func TestPlanCheckCatchesTheOldProbe(t *testing.T) {
	ctx := context.Background()
	k := openTest(t)
	fillLibraryShaped(t, k)
	if _, err := k.db.ExecContext(ctx, "DROP TABLE IF EXISTS sqlite_stat1"); err != nil {
		t.Fatal(err)
	}
	old := `SELECT -x.unit_id FROM vectors x JOIN units u ON u.id = x.unit_id JOIN documents d ON d.id = u.document_id
		WHERE x.embedder = ? AND x.modality = 'text' AND x.dim = ? AND NOT EXISTS
		(SELECT 1 FROM passages p WHERE p.unit_id = x.unit_id AND p.embedder = x.embedder AND p.dim = x.dim)`
	if err := k.CheckPlan(ctx, old, "e", 2); err == nil {
		t.Error("the old NOT EXISTS probe through passages_embedder passed the plan check")
	}
	scan := `SELECT u.id FROM units u WHERE u.id IN (SELECT p.unit_id FROM passages p WHERE p.unit_id = u.id AND p.start + 0 = u.ordinal) OR EXISTS (SELECT 1 FROM units v WHERE v.text = u.text)`
	if err := k.CheckPlan(ctx, scan); err == nil {
		t.Error("a correlated full scan of units passed the plan check")
	}
}

func TestDenseItems(t *testing.T) {
	ctx := context.Background()
	k := openTest(t)
	fillLibraryShaped(t, k)
	text := VectorSet{Embedder: "e", Modality: ModalityText, Dim: 2}
	// Every even unit has 6 passages; the odd ones are indexed by their whole text, under minus their ids.
	var items []IndexItem
	if err := k.Search.ScanIndexItems(ctx, text, true, func(it IndexItem) error { items = append(items, it); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(items) != 5*20*6+5*20 {
		t.Fatalf("%d items", len(items))
	}
	var whole []int64
	for _, it := range items {
		if len(it.Vec) != 2 || it.Collection != 1 || it.Kind != "pdf" || it.Document != it.Unit/100 {
			t.Fatalf("item %+v", it)
		}
		if it.ID < 0 {
			if it.ID != -it.Unit || it.Unit%2 == 0 {
				t.Fatalf("whole-text item %+v", it)
			}
			whole = append(whole, it.ID)
		}
	}
	ids, err := k.Search.IndexedIDs(ctx, text)
	if err != nil || len(ids) != len(items) {
		t.Fatalf("IndexedIDs: %d %v", len(ids), err)
	}
	wt, err := k.Search.WholeTextIDs(ctx, text)
	slices.Sort(wt)
	slices.Sort(whole)
	if err != nil || !slices.Equal(wt, whole) {
		t.Errorf("WholeTextIDs: %v %v", wt, err)
	}
	if after, err := k.Search.WholeTextIDsAfter(ctx, text, 500); err != nil || len(after) != 20 {
		t.Errorf("WholeTextIDsAfter(500): %d %v, want the 20 odd units of document 5", len(after), err)
	}
	var pids []int64
	for _, id := range ids {
		if id > 0 {
			pids = append(pids, id)
		}
	}
	slices.Sort(pids)
	mid := pids[len(pids)/2]
	if n, err := k.Search.PassagesUpTo(ctx, text, mid); err != nil || n != len(pids)/2+1 {
		t.Errorf("PassagesUpTo: %d %v", n, err)
	}
	if after, err := k.Search.PassageIDsAfter(ctx, text, mid); err != nil || !slices.Equal(after, pids[len(pids)/2+1:]) {
		t.Errorf("PassageIDsAfter: %d %v", len(after), err)
	}
	// By id, in batches: a passage, a whole-text unit, one gone.
	want := []int64{pids[0], whole[0], 999999}
	var got []int64
	if err := k.Search.IndexItemsByID(ctx, text, want, func(it IndexItem) error {
		if len(it.Vec) != 2 {
			t.Errorf("no vector: %+v", it)
		}
		got = append(got, it.ID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if exp := []int64{whole[0], pids[0]}; !slices.Equal(got, exp) {
		t.Errorf("IndexItemsByID: %v, want %v", got, exp)
	}
	var n int
	if err := k.Search.IndexItemsByID(ctx, text, ids, func(IndexItem) error { n++; return nil }); err != nil || n != len(ids) {
		t.Errorf("IndexItemsByID of all %d: %d %v", len(ids), n, err)
	}
	image := VectorSet{Embedder: "e", Modality: ModalityImage, Dim: 2}
	if ids, err := k.Search.IndexedIDs(ctx, image); err != nil || len(ids) != 0 {
		t.Errorf("image ids: %v %v", ids, err)
	}
}
