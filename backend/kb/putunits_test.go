package kb

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"testing"
)

// TestPutUnitsIsPutUnitInOrder stores the same units (more than one statement's worth, a replaced ordinal, the
// same ordinal twice, CJK and English text, word boxes) one PutUnit at a time into one database and through
// Batch.PutUnits and MarkSteps into another: ids, rows, the change log, both full-text indexes and the steps must
// come out the same.
func TestPutUnitsIsPutUnitInOrder(t *testing.T) {
	ctx := context.Background()
	var units []Unit
	for i := range 150 {
		u := Unit{Ordinal: i%140 + 1, Kind: UnitPage, Width: 612, Height: 792, TextSource: TextLayer,
			Text:  fmt.Sprintf("page %d of the annual report, revenue grew %d percent", i, i%17),
			Words: []Word{{Text: "page", X0: 72, Y0: 72.5, X1: 100.34600067138672, Y1: 84}, {Text: fmt.Sprint(i), X0: 0.1, Y0: 1, X1: 2, Y1: 3}}}
		if i%9 == 0 {
			u.Text, u.Words = fmt.Sprintf("第%d页 视觉文档问答", i), nil
		}
		units = append(units, u)
	}
	steps := make([]Step, len(units))
	for i, u := range units {
		steps[i] = Step{Ordinal: u.Ordinal, Stage: "extract", Status: StepDone}
	}
	setup := func() (*KB, int64) {
		k, c := openWithCollection(t)
		d, _, _ := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "x", Name: "x.pdf", Kind: "pdf"})
		// A unit stored earlier, which both replace (its id stays).
		if _, err := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 3, Kind: UnitPage, Text: "an older third page"}); err != nil {
			t.Fatal(err)
		}
		return k, d.ID
	}
	one, doc := setup()
	var wantIDs []int64
	for _, u := range units {
		u.DocumentID = doc
		id, err := one.Content.PutUnit(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		wantIDs = append(wantIDs, id)
	}
	for _, s := range steps {
		if err := one.Content.MarkStep(ctx, doc, s); err != nil {
			t.Fatal(err)
		}
	}
	batched, doc2 := setup()
	var gotIDs []int64
	err := batched.Content.Batch(ctx, func(b *Batch) error {
		us := make([]Unit, len(units))
		for i, u := range units {
			u.DocumentID = doc2
			us[i] = u
		}
		var err error
		if gotIDs, err = b.PutUnits(ctx, us); err != nil {
			return err
		}
		return b.MarkSteps(ctx, doc2, steps)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotIDs, wantIDs) {
		t.Fatalf("ids:\n got %v\nwant %v", gotIDs, wantIDs)
	}
	for _, q := range []string{
		`SELECT id, document_id, ordinal, kind, width, height, text, text_source, hex(words), typeof(words), cjk FROM units ORDER BY id`,
		`SELECT seq, unit_id FROM unit_changes ORDER BY seq`,
		`SELECT rowid FROM units_fts WHERE units_fts MATCH 'revenue' ORDER BY rank, rowid`,
		`SELECT rowid FROM units_fts_bigram WHERE units_fts_bigram MATCH '"文档" AND "问答"' ORDER BY rank, rowid`,
		`SELECT document_id, ordinal, stage, status, error FROM ingest_steps ORDER BY ordinal, stage`,
	} {
		a, b := dumpRows(t, one.db, q), dumpRows(t, batched.db, q)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s:\n one by one %v\n   batched %v", q, a, b)
		}
		if len(a) == 0 {
			t.Errorf("%s: no rows", q)
		}
	}
	if p, err := batched.Integrity(ctx); err != nil || len(p) > 0 {
		t.Errorf("integrity: %v %v", p, err)
	}
}

func dumpRows(t *testing.T, db *sql.DB, q string) [][]any {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals)
	}
	return out
}

// TestRowChunks checks that the runs cover every row once, in order, with lengths from the powers of two up to
// the bound: a handful of statement shapes whatever the batch sizes.
func TestRowChunks(t *testing.T) {
	shapes := map[int]bool{}
	for n := range 300 {
		next := 0
		for start, size := range rowChunks(n, 64) {
			if start != next || size < 1 || size > 64 || size&(size-1) != 0 {
				t.Fatalf("n=%d: run (%d, %d) after row %d", n, start, size, next)
			}
			shapes[size] = true
			next = start + size
		}
		if next != n {
			t.Fatalf("n=%d: runs cover %d rows", n, next)
		}
	}
	if len(shapes) != 7 {
		t.Errorf("%d statement lengths, want 7 (1 to 64)", len(shapes))
	}
}
