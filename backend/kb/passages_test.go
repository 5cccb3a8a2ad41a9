package kb

import (
	"context"
	"testing"
)

func TestPassagesAndGeneration(t *testing.T) {
	ctx := context.Background()
	k, _, d, uid := openWithPage(t, "one two three")
	gen := func() int64 {
		t.Helper()
		g, err := k.Content.VectorsGeneration(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	last := gen()
	bumps := map[string]func() error{
		"insert vector": func() error { return k.Content.PutVector(ctx, uid, "e", ModalityText, []float32{1, 0}) },
		"replace vector in place": func() error {
			return k.Content.PutVector(ctx, uid, "e", ModalityText, []float32{0, 1})
		},
		"put passages": func() error {
			return k.Content.PutPassages(ctx, uid, "e", []Passage{{Ordinal: 0, Start: 0, End: 7, Vec: []float32{1, 0}},
				{Ordinal: 1, Start: 4, End: 13, Vec: []float32{0, 1}}})
		},
		"replace passages": func() error {
			return k.Content.PutPassages(ctx, uid, "e", []Passage{{Ordinal: 0, Start: 0, End: 13, Vec: []float32{1, 1}}})
		},
	}
	for _, name := range []string{"insert vector", "replace vector in place", "put passages", "replace passages"} {
		t.Run(name, func(t *testing.T) {
			if err := bumps[name](); err != nil {
				t.Fatal(err)
			}
			if g := gen(); g <= last {
				t.Errorf("generation %d after %s, was %d", g, name, last)
			} else {
				last = g
			}
		})
	}
	ps, err := k.Content.Passages(ctx, uid, "e")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].End != 13 || ps[0].Vec[1] != 1 {
		t.Fatalf("passages after replace = %+v, want the one 0..13 window", ps)
	}

	// Deleting the document cascades to units, vectors and passages: the generation must move too.
	if err := k.Docs.DeleteDocument(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if g := gen(); g <= last {
		t.Errorf("generation %d after a cascading delete, was %d", g, last)
	}
	var n int
	k.DB().QueryRow(`SELECT (SELECT count(*) FROM passages) + (SELECT count(*) FROM vectors)`).Scan(&n)
	if n != 0 {
		t.Errorf("%d vectors and passages left after deleting their document", n)
	}
}

func TestSetEmbedders(t *testing.T) {
	ctx := context.Background()
	k, c, d, uid := openWithPage(t, "x")
	for _, s := range []Step{{Ordinal: 1, Stage: "extract", Status: StepDone}, {Ordinal: 1, Stage: "embed", Status: StepDone}} {
		if err := k.Content.MarkStep(ctx, d.ID, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.Content.PutVector(ctx, uid, c.TextEmbedder, ModalityText, make100()); err != nil {
		t.Fatal(err)
	}
	if err := k.Content.PutPassages(ctx, uid, c.TextEmbedder, []Passage{{Vec: make100()}}); err != nil {
		t.Fatal(err)
	}

	bad := map[string]func() error{
		"no dimension": func() error { _, _, err := k.Docs.SetEmbedders(ctx, "c", "x/y", 0, "", 0); return err },
		"image without dimension": func() error {
			_, _, err := k.Docs.SetEmbedders(ctx, "c", "x/y", 8, "x/img", 0)
			return err
		},
		"unknown collection": func() error { _, _, err := k.Docs.SetEmbedders(ctx, "nope", "x/y", 8, "", 0); return err },
	}
	for name, f := range bad {
		t.Run(name, func(t *testing.T) {
			if f() == nil {
				t.Error("accepted")
			}
		})
	}

	if _, changed, err := k.Docs.SetEmbedders(ctx, "c", c.TextEmbedder, c.TextDim, "", 0); err != nil || changed {
		t.Fatalf("same embedders: changed=%v err=%v, want no change", changed, err)
	}
	c2, changed, err := k.Docs.SetEmbedders(ctx, "c", "other/model", 8, "", 0)
	if err != nil || !changed {
		t.Fatalf("changed=%v err=%v", changed, err)
	}
	if c2.TextEmbedder != "other/model" || c2.TextDim != 8 {
		t.Errorf("collection after change = %+v", c2)
	}
	steps, _ := k.Content.Steps(ctx, d.ID)
	if len(steps) != 1 || steps[0].Stage != "extract" {
		t.Errorf("steps after change = %+v, want only extract (embed cleared)", steps)
	}
	// The old vectors stay until re-embedding finishes, then go.
	if err := k.Content.PutVector(ctx, uid, "other/model", ModalityText, make([]float32, 8)); err != nil {
		t.Fatal(err)
	}
	n, err := k.Docs.DropStaleEmbeddings(ctx, c.ID)
	if err != nil || n != 2 {
		t.Fatalf("dropped %d (err %v), want the old vector and passage", n, err)
	}
	var left []string
	rows, _ := k.DB().Query(`SELECT embedder FROM vectors UNION ALL SELECT embedder FROM passages`)
	for rows.Next() {
		var e string
		rows.Scan(&e)
		left = append(left, e)
	}
	rows.Close()
	if len(left) != 1 || left[0] != "other/model" {
		t.Errorf("left after drop: %v, want the new embedder's vector only", left)
	}
}

func make100() []float32 {
	v := make([]float32, 100)
	v[0] = 1
	return v
}
