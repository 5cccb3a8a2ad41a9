package search

import (
	"context"
	"slices"
	"testing"

	"proofglass/backend/kb"
	"proofglass/backend/kb/kbtest"
)

// plans is what fillForPlans wrote: its collection and its documents' ids in order.
type plans struct {
	coll int64
	docs []int64
}

// fillForPlans gives the planner a library-shaped database: many passages per embedder, a few per unit.
func fillForPlans(t *testing.T, k *kb.KB) plans {
	t.Helper()
	ctx := context.Background()
	c, err := k.Docs.CreateCollection(ctx, kb.Collection{Name: "c", TextEmbedder: "e", TextDim: 2})
	if err != nil {
		t.Fatal(err)
	}
	out := plans{coll: c.ID}
	vec := []float32{1, 0}
	for d := 1; d <= 5; d++ {
		doc, _, err := k.Docs.AddDocument(ctx, kb.Document{CollectionID: c.ID, SHA256: string(rune('a' + d)), Name: "d", Kind: "pdf"})
		if err != nil {
			t.Fatal(err)
		}
		out.docs = append(out.docs, doc.ID)
		err = k.Content.Batch(ctx, func(b *kb.Batch) error {
			for o := 1; o <= 40; o++ {
				u, err := b.PutUnit(ctx, kb.Unit{DocumentID: doc.ID, Ordinal: o, Kind: kb.UnitPage, Text: "words"})
				if err != nil {
					return err
				}
				if err := b.PutVector(ctx, u, "e", kb.ModalityText, vec); err != nil {
					return err
				}
				if err := b.MarkStep(ctx, doc.ID, kb.Step{Ordinal: o, Stage: "embed", Status: "done"}); err != nil {
					return err
				}
				if o%2 == 0 {
					ps := make([]kb.Passage, 6)
					for p := range ps {
						ps[p] = kb.Passage{Ordinal: p, Start: 0, End: 1, Vec: vec}
					}
					if err := b.PutPassages(ctx, u, "e", ps); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// The ids a saved text index is compared with are SQLite's full list, whether the shortcut (count the saved
// passages, list only the newer ones) is taken — after additions — or not — after a deletion.
func TestCurrentIDsMatchesFullList(t *testing.T) {
	ctx := context.Background()
	k := openKB(t)
	filled := fillForPlans(t, k)
	s := New(k, Options{})
	key := indexKey{embedder: "e", modality: kb.ModalityText, dim: 2}
	full := func() []int64 {
		t.Helper()
		ids, err := k.Search.IndexedIDs(ctx, key.set())
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(ids)
		return ids
	}
	savedMeta := func() *metaTable {
		t.Helper()
		m := &metaTable{}
		err := k.Search.ScanIndexItems(ctx, key.set(), false, func(it kb.IndexItem) error {
			m.add(it.ID, unitMeta{unit: it.Unit, collection: it.Collection, document: it.Document, kind: it.Kind})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return m.sorted()
	}
	saved := savedMeta()
	vec := []float32{0, 1}
	// addPage adds a page with its text vector (and passages when it has some) to the document at index doc.
	addPage := func(doc, ordinal int, passages int) {
		t.Helper()
		u, err := k.Content.PutUnit(ctx, kb.Unit{DocumentID: filled.docs[doc], Ordinal: ordinal, Kind: kb.UnitPage, Text: "new words"})
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Content.PutVector(ctx, u, "e", kb.ModalityText, vec); err != nil {
			t.Fatal(err)
		}
		if passages > 0 {
			ps := make([]kb.Passage, passages)
			for p := range ps {
				ps[p] = kb.Passage{Ordinal: p, Start: 0, End: 1, Vec: vec}
			}
			if err := k.Content.PutPassages(ctx, u, "e", ps); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, step := range []struct {
		name   string
		change func()
		fast   bool
	}{
		{"unchanged", func() {}, true},
		{"a page with passages and one indexed by its whole text added", func() {
			addPage(0, 41, 2)
			addPage(0, 42, 0)
		}, true},
		{"a page with passages deleted", func() {
			u, err := k.Content.UnitID(ctx, filled.docs[0], 4)
			if err != nil {
				t.Fatal(err)
			}
			kbtest.DeleteUnit(t, k, u)
		}, false},
		// A knowledge base whose every text vector has passages, saved; then a unit indexed by its whole text
		// arrives: only units added since are checked for that, and it is found.
		{"saved without whole-text units", func() {
			kbtest.DropVectorsWithoutPassages(t, k)
			saved = savedMeta()
		}, true},
		{"a unit indexed by its whole text added", func() {
			addPage(1, 41, 0)
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
	filled := fillForPlans(t, k)
	s := New(k, Options{})
	got, err := s.pendingUnits(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("every unit has its embed step: pending %v (%v)", got, err)
	}
	kbtest.ForgetSteps(t, k, filled.docs[1], 1, 2, 3)
	if got, err = s.pendingUnits(ctx); err != nil || got[filled.coll] != 3 || len(got) != 1 {
		t.Errorf("three units without their step: pending %v (%v), want collection 1: 3", got, err)
	}
}
