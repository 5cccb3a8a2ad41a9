package search

import (
	"bytes"
	"context"
	"math"
	"os"
	"slices"
	"testing"
)

// After a small addition a save writes only the changes beside the untouched index file; a new process opens base
// and changes and answers exactly as an index built from SQLite. Unreadable changes are ignored (the process
// catches up from SQLite), and past an eighth of the base the whole index is saved again.
func TestSavedChangesReplayed(t *testing.T) {
	ctx := context.Background()
	k := openKB(t)
	c := collection(t, k, "c")
	for _, p := range []string{"pdf/real/reportlab-userguide.pdf", "pdf/real/hsaur3-Ch_graphical_display.pdf",
		"pdf/real/hsaur3-Ch_multiple_linear_regression.pdf", "pdf/real/hsaur3-Ch_logistic_regression_glm.pdf"} {
		addPDF(t, k, c, testdata(t, p))
	}
	dir := t.TempDir()
	builds := 0
	counting := func(dim int, ids []int64, vecs [][]float32) (Index, error) {
		builds++
		return NewVectorIndex(dim, ids, vecs)
	}
	saved := func() *Searcher { return New(k, Options{IndexDir: dir, NewIndex: counting}) }
	if err := saved().Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	key := indexKey{embedder: c.TextEmbedder, modality: "text", dim: c.TextDim}
	path := indexPath(dir, key)
	base, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	queries := []string{"analysis of variance weight gain rats", "paragraph styles and fonts", "logistic regression plasma", "scatterplot matrix"}
	sameAsBuilt := func(label string) {
		t.Helper()
		s := saved()
		fresh := New(k, Options{})
		for _, q := range queries {
			got, err := s.Search(ctx, Query{Text: q, K: 10, Mode: Dense})
			if err != nil {
				t.Fatal(err)
			}
			want, err := fresh.Search(ctx, Query{Text: q, K: 10, Mode: Dense})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Hits) != len(want.Hits) || len(got.Hits) == 0 {
				t.Fatalf("%s, %q: %d hits, built index %d", label, q, len(got.Hits), len(want.Hits))
			}
			for i := range got.Hits {
				g, w := got.Hits[i], want.Hits[i]
				if g.UnitID != w.UnitID || math.Abs(*g.Scores.Text-*w.Scores.Text) > 1e-5 {
					t.Fatalf("%s, %q: hit %d is unit %d (%.6f), built index: unit %d (%.6f)", label, q, i, g.UnitID,
						*g.Scores.Text, w.UnitID, *w.Scores.Text)
				}
			}
		}
	}

	added := addPDF(t, k, c, testdata(t, "pdf/real/hsaur3-Ch_analysis_of_variance.pdf"))
	if err := saved().Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, base) {
		t.Error("a small addition rewrote the index file")
	}
	if _, err := os.Stat(changesPath(path)); err != nil {
		t.Fatalf("no changes saved: %v", err)
	}
	// Opened, base and changes are the current state: nothing is left to read from SQLite.
	s := saved()
	_, meta, gen, _, err := s.openSaved(key)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := s.fingerprint(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := s.diffIDs(ctx, key, meta); gen != fp.generation() || err != nil || len(d.added)+len(d.removed) > 0 {
		t.Errorf("base + changes: generation %d (database %d), %d ids to add and %d to remove (%v)", gen, fp.generation(),
			len(d.added), len(d.removed), err)
	}
	before := builds
	sameAsBuilt("base + changes")
	if res, _ := saved().Search(ctx, Query{Text: queries[0], K: 1, Mode: Dense}); len(res.Hits) == 0 || res.Hits[0].DocumentID != added {
		t.Errorf("the added document is not the best answer: %+v", res.Hits)
	}

	// A damaged changes file: the base alone is used and brought up to date from SQLite.
	ch, _ := os.ReadFile(changesPath(path))
	ch[len(ch)-3] ^= 0xff
	if err := os.WriteFile(changesPath(path), ch, 0o600); err != nil {
		t.Fatal(err)
	}
	sameAsBuilt("base + damaged changes")
	if builds != before {
		t.Errorf("opening base and changes rebuilt the index (%d builds, was %d)", builds, before)
	}

	// Past an eighth of the base, the whole index is saved again and the changes file goes.
	if err := k.Docs.DeleteDocument(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := saved().Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(path); bytes.Equal(now, base) {
		t.Error("the index file was not saved again after large changes")
	}
	if _, err := os.Stat(changesPath(path)); !isMissing(err) {
		t.Errorf("changes file left beside a new base: %v", err)
	}
	sameAsBuilt("new base")
}

// A changes file reads back as written, and every cut or damaged copy of it is refused.
func TestChangesFileRoundTrip(t *testing.T) {
	path := t.TempDir() + "/ix.changes"
	c := &indexChanges{baseGen: 7, gen: 9, removed: []int64{-40, 3, 12},
		added: []changedItem{{id: 20, m: unitMeta{unit: 5, collection: 1, document: 2, kind: "pdf"}, vec: []float32{0.6, 0.8}},
			{id: 21, m: unitMeta{unit: 6, collection: 1, document: 2, kind: "image"}}}}
	if err := c.save(path, 2); err != nil {
		t.Fatal(err)
	}
	got, err := loadChanges(path, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got.baseGen != 7 || got.gen != 9 || len(got.removed) != 3 || got.removed[0] != -40 || len(got.added) != 2 ||
		got.added[0].m != c.added[0].m || got.added[1].m != c.added[1].m || got.added[0].vec[1] != 0.8 || got.added[1].vec != nil {
		t.Fatalf("read back %+v, wrote %+v", got, c)
	}
	if _, err := loadChanges(path, 3); err == nil {
		t.Error("changes for 2 dimensions accepted by a 3-dimension index")
	}
	raw, _ := os.ReadFile(path)
	for i := 0; i < len(raw); i += 5 {
		bad := bytes.Clone(raw)
		bad[i] ^= 0x10
		os.WriteFile(path, bad, 0o600)
		if _, err := loadChanges(path, 2); err == nil {
			t.Errorf("byte %d damaged: accepted", i)
		}
		os.WriteFile(path, raw[:i], 0o600)
		if _, err := loadChanges(path, 2); err == nil {
			t.Errorf("cut at %d bytes: accepted", i)
		}
	}
}

// The changes between two metadata tables: removed and added ids in order, vectors only for indexed ids, and nothing
// past the limit.
func TestChangesSince(t *testing.T) {
	mk := func(ids ...int64) *metaTable {
		m := &metaTable{}
		for _, id := range ids {
			m.add(id, unitMeta{unit: id * 10, collection: 1, document: 2, kind: "pdf"})
		}
		return m
	}
	vec := func(id int64) ([]float32, bool) { return []float32{float32(id)}, id != 7 }
	base, now := mk(-5, 1, 2, 3, 4), mk(-9, -5, 2, 4, 6, 7)
	c := changesSince(base, now, vec, 5)
	if c == nil || !slices.Equal(c.removed, []int64{1, 3}) || len(c.added) != 3 {
		t.Fatalf("changes %+v, want 1 and 3 removed, -9, 6 and 7 added", c)
	}
	for i, want := range []int64{-9, 6, 7} {
		a := c.added[i]
		if a.id != want || a.m.unit != want*10 || (a.vec == nil) != (want == 7) {
			t.Errorf("added %d: %+v, want id %d (a vector unless 7)", i, a, want)
		}
	}
	if c := changesSince(base, now, vec, 4); c != nil {
		t.Errorf("5 changes under a limit of 4: %+v", c)
	}
}
