package search

import (
	"context"
	"slices"
	"testing"

	"proofglass/backend/kb"
)

// fillForPlans gives the planner a library-shaped database: many passages per embedder, a few per unit.
func fillForPlans(t *testing.T, k *kb.KB) {
	t.Helper()
	ctx := context.Background()
	db := k.DB()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO collections(id, name, text_embedder, text_dim, created_at) VALUES (1, 'c', 'e', 2, 0)`)
	vec := kb.EncodeVector([]float32{1, 0})
	for d := 1; d <= 5; d++ {
		exec(`INSERT INTO documents(id, collection_id, sha256, name, kind, created_at, updated_at) VALUES (?, 1, ?, 'd', 'pdf', 0, 0)`,
			d, string(rune('a'+d)))
		for o := 1; o <= 40; o++ {
			u := d*100 + o
			exec(`INSERT INTO units(id, document_id, ordinal, kind, text) VALUES (?, ?, ?, 'page', 'words')`, u, d, o)
			exec(`INSERT INTO vectors(unit_id, embedder, modality, dim, vec) VALUES (?, 'e', 'text', 2, ?)`, u, vec)
			exec(`INSERT INTO ingest_steps(document_id, ordinal, stage, status, updated_at) VALUES (?, ?, 'embed', 'done', 0)`, d, o)
			if o%2 == 0 {
				for p := range 6 {
					exec(`INSERT INTO passages(unit_id, embedder, ordinal, start, end, dim, vec) VALUES (?, 'e', ?, 0, 1, 2, ?)`, u, p, vec)
				}
			}
		}
	}
}

// The ids a saved text index is compared with are SQLite's full list, whether the shortcut (count the saved
// passages, list only the newer ones) is taken — after additions — or not — after a deletion.
func TestCurrentIDsMatchesFullList(t *testing.T) {
	ctx := context.Background()
	k := openKB(t)
	fillForPlans(t, k)
	s := New(k, Options{})
	key := indexKey{embedder: "e", modality: kb.ModalityText, dim: 2}
	full := func() []int64 {
		t.Helper()
		ids, err := k.IndexedIDs(ctx, key.set())
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(ids)
		return ids
	}
	savedMeta := func() *metaTable {
		t.Helper()
		m := &metaTable{}
		err := k.ScanIndexItems(ctx, key.set(), false, func(it kb.IndexItem) error {
			m.add(it.ID, unitMeta{unit: it.Unit, collection: it.Collection, document: it.Document, kind: it.Kind})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return m.sorted()
	}
	saved := savedMeta()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := k.DB().ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	vec := kb.EncodeVector([]float32{0, 1})
	for i, step := range []struct {
		name   string
		change func()
		fast   bool
	}{
		{"unchanged", func() {}, true},
		{"a page with passages and one indexed by its whole text added", func() {
			exec(`INSERT INTO units(id, document_id, ordinal, kind, text) VALUES (901, 1, 41, 'page', 'new words')`)
			exec(`INSERT INTO units(id, document_id, ordinal, kind, text) VALUES (902, 1, 42, 'page', 'more words')`)
			exec(`INSERT INTO vectors(unit_id, embedder, modality, dim, vec) VALUES (901, 'e', 'text', 2, ?), (902, 'e', 'text', 2, ?)`, vec, vec)
			exec(`INSERT INTO passages(id, unit_id, embedder, ordinal, start, end, dim, vec) VALUES (5000, 901, 'e', 0, 0, 1, 2, ?), (5001, 901, 'e', 1, 0, 1, 2, ?)`, vec, vec)
		}, true},
		{"a page with passages deleted", func() { exec(`DELETE FROM units WHERE id = 104`) }, false},
		// A knowledge base whose every text vector has passages, saved; then a unit indexed by its whole text
		// arrives: only units added since are checked for that, and it is found.
		{"saved without whole-text units", func() {
			exec(`DELETE FROM vectors WHERE unit_id NOT IN (SELECT unit_id FROM passages)`)
			saved = savedMeta()
		}, true},
		{"a unit indexed by its whole text added", func() {
			exec(`INSERT INTO units(id, document_id, ordinal, kind, text) VALUES (903, 2, 41, 'page', 'text')`)
			exec(`INSERT INTO vectors(unit_id, embedder, modality, dim, vec) VALUES (903, 'e', 'text', 2, ?)`, vec)
		}, true},
	} {
		step.change()
		got, fast, err := s.currentIDs(ctx, key, saved)
		if err != nil {
			t.Fatal(err)
		}
		if want := full(); !slices.Equal(got, want) {
			t.Errorf("%d %s: ids %v…, want %v…", i, step.name, got[:min(8, len(got))], want[:min(8, len(want))])
		}
		if fast != step.fast {
			t.Errorf("%d %s: shortcut taken %v, want %v", i, step.name, fast, step.fast)
		}
	}
}

// Units without an embed step are counted per collection; with every unit's step recorded, none are.
func TestPendingUnits(t *testing.T) {
	ctx := context.Background()
	k := openKB(t)
	fillForPlans(t, k)
	s := New(k, Options{})
	got, err := s.pendingUnits(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("every unit has its embed step: pending %v (%v)", got, err)
	}
	if _, err := k.DB().ExecContext(ctx, `DELETE FROM ingest_steps WHERE document_id = 2 AND ordinal <= 3`); err != nil {
		t.Fatal(err)
	}
	if got, err = s.pendingUnits(ctx); err != nil || got[1] != 3 || len(got) != 1 {
		t.Errorf("three units without their step: pending %v (%v), want collection 1: 3", got, err)
	}
}
