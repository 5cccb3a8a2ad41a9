package kb

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// putEmbeddings is Batch.PutEmbeddings with the arguments in embeddingsOneByOne's order.
func putEmbeddings(ctx context.Context, b *Batch, textEmbedder, imageEmbedder string, es []Embedding) error {
	return b.PutEmbeddings(ctx, textEmbedder, imageEmbedder, es)
}

// embeddingsOneByOne stores es as the embed stage did before PutEmbeddings: for each unit, its passages, then its
// text vector, then its image vector, a statement or more each.
func embeddingsOneByOne(ctx context.Context, b *Batch, textEmbedder, imageEmbedder string, es []Embedding) error {
	for _, e := range es {
		if err := b.PutPassages(ctx, e.UnitID, textEmbedder, e.Passages); err != nil {
			return err
		}
		if e.Text != nil {
			if err := b.PutVector(ctx, e.UnitID, textEmbedder, ModalityText, e.Text); err != nil {
				return err
			}
		}
		if e.Image != nil {
			if err := b.PutVector(ctx, e.UnitID, imageEmbedder, ModalityImage, e.Image); err != nil {
				return err
			}
		}
	}
	return nil
}

// testEmbeddings makes the embeddings of units: n passages each (unit i has n+i%3, some none), a text vector where
// there is more than one passage, an image vector on every other unit when images is set.
func testEmbeddings(units []int64, n int, seed float32, images bool) []Embedding {
	es := make([]Embedding, len(units))
	for i, id := range units {
		e := Embedding{UnitID: id}
		for p := range n + i%3 - 1 {
			e.Passages = append(e.Passages, Passage{Ordinal: p, Start: 10 * p, End: 10*p + 64,
				Vec: []float32{seed, float32(i), float32(p)}})
		}
		if len(e.Passages) > 1 {
			e.Text = []float32{seed, float32(i), -1}
		}
		if images && i%2 == 0 {
			e.Image = []float32{float32(i), seed}
		}
		es[i] = e
	}
	return es
}

// TestPutEmbeddingsAsOneByOne stores batches of embeddings (fresh units, more passages than one statement holds,
// image vectors, then the same units again with fewer passages) through PutEmbeddings and through the calls it
// replaces. Fresh units' rows, passage ids and the counter must come out the same; replaced passages must be gone,
// and ids never handed out twice.
func TestPutEmbeddingsAsOneByOne(t *testing.T) {
	ctx := context.Background()
	type step struct {
		n      int
		images bool
	}
	steps := []step{{n: 13}, {n: 3, images: true}, {n: 0}, {n: 2}}
	run := func(put func(ctx context.Context, b *Batch, textEmbedder, imageEmbedder string, es []Embedding) error) (first [][]any, passages [][][]any, vectors [][][]any) {
		k, _, d, page1 := openWithPage(t, "page")
		units := append([]int64{page1}, addPages(t, k, d.ID, 2, 40, "page")...)
		for i, s := range steps {
			err := k.Content.Batch(ctx, func(b *Batch) error {
				return put(ctx, b, "e", "img", testEmbeddings(units, s.n, float32(i), s.images))
			})
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			p := dumpRows(t, k.db, `SELECT id, unit_id, embedder, ordinal, start, end, dim, hex(vec) FROM passages ORDER BY id`)
			if i == 0 {
				first = dumpRows(t, k.db, `SELECT id, unit_id, embedder, ordinal, start, end, dim, hex(vec),
					(SELECT value FROM counters WHERE name = 'vectors') FROM passages ORDER BY id`)
			}
			// Beyond fresh units the ids may differ: compare the rows without them.
			for _, r := range p {
				r[0] = nil
			}
			passages = append(passages, p)
			vectors = append(vectors, dumpRows(t, k.db, `SELECT unit_id, embedder, modality, dim, hex(vec) FROM vectors
				ORDER BY unit_id, embedder, modality`))
		}
		return first, passages, vectors
	}
	wantFirst, wantP, wantV := run(embeddingsOneByOne)
	gotFirst, gotP, gotV := run(putEmbeddings)
	if len(wantFirst) < 2*passagesPerInsert {
		t.Fatalf("the first step stored %d passages: too few to need several statements", len(wantFirst))
	}
	if !reflect.DeepEqual(gotFirst, wantFirst) {
		t.Errorf("fresh units: PutEmbeddings stored\n%v\none by one\n%v", gotFirst, wantFirst)
	}
	if !reflect.DeepEqual(gotP, wantP) {
		t.Errorf("passages differ:\n%v\none by one\n%v", gotP, wantP)
	}
	if !reflect.DeepEqual(gotV, wantV) {
		t.Errorf("vectors differ:\n%v\none by one\n%v", gotV, wantV)
	}
}

// Replaced passages get new ids above every id given before (a saved dense index compares ids).
func TestPutEmbeddingsNewIDs(t *testing.T) {
	ctx := context.Background()
	k, _, d, page1 := openWithPage(t, "page")
	units := append([]int64{page1}, addPages(t, k, d.ID, 2, 3, "page")...)
	var last int64
	for round := range 3 {
		if err := k.Content.Batch(ctx, func(b *Batch) error { return b.PutEmbeddings(ctx, "e", "", testEmbeddings(units, 4, 1, false)) }); err != nil {
			t.Fatal(err)
		}
		var lo, hi, n int64
		k.db.QueryRow(`SELECT min(id), max(id), count(*) FROM passages`).Scan(&lo, &hi, &n)
		if n != 3+4+5 || lo <= last {
			t.Fatalf("round %d: %d passages with ids %d-%d; the previous round's went up to %d", round, n, lo, hi, last)
		}
		last = hi
	}
}

// A unit given twice in one call ends as storing the embeddings one call after the other leaves it: the last
// passages, and the last vector of each kind given.
func TestPutEmbeddingsUnitTwice(t *testing.T) {
	ctx := context.Background()
	k := openTest(t)
	c, _ := k.Docs.EnsureCollection(ctx, "c")
	d, _, _ := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "s", Name: "a.pdf", Kind: "pdf"})
	u1, _ := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 1, Kind: UnitPage, Text: "one"})
	u2, _ := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 2, Kind: UnitPage, Text: "two"})
	first, second := testEmbeddings([]int64{u1}, 4, 1, true), testEmbeddings([]int64{u1}, 2, 2, false)
	other := testEmbeddings([]int64{u2}, 3, 3, false)
	es := []Embedding{first[0], other[0], second[0]}
	if err := k.Content.Batch(ctx, func(b *Batch) error { return b.PutEmbeddings(ctx, "e", "img", es) }); err != nil {
		t.Fatal(err)
	}
	got := dumpRows(t, k.db, `SELECT unit_id, ordinal, hex(vec) FROM passages ORDER BY unit_id, ordinal`)
	vecs := dumpRows(t, k.db, `SELECT unit_id, modality, hex(vec) FROM vectors ORDER BY unit_id, modality`)
	k2 := openTest(t)
	c2, _ := k2.Docs.EnsureCollection(ctx, "c")
	d2, _, _ := k2.Docs.AddDocument(ctx, Document{CollectionID: c2.ID, SHA256: "s", Name: "a.pdf", Kind: "pdf"})
	k2.Content.PutUnit(ctx, Unit{DocumentID: d2.ID, Ordinal: 1, Kind: UnitPage, Text: "one"})
	k2.Content.PutUnit(ctx, Unit{DocumentID: d2.ID, Ordinal: 2, Kind: UnitPage, Text: "two"})
	if err := k2.Content.Batch(ctx, func(b *Batch) error { return embeddingsOneByOne(ctx, b, "e", "img", es) }); err != nil {
		t.Fatal(err)
	}
	want := dumpRows(t, k2.db, `SELECT unit_id, ordinal, hex(vec) FROM passages ORDER BY unit_id, ordinal`)
	wantVecs := dumpRows(t, k2.db, `SELECT unit_id, modality, hex(vec) FROM vectors ORDER BY unit_id, modality`)
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(vecs, wantVecs) {
		t.Errorf("passages %v vectors %v, one by one %v %v", got, vecs, want, wantVecs)
	}
}

func TestPutEmbeddingsErrors(t *testing.T) {
	ctx := context.Background()
	k := openTest(t)
	c, _ := k.Docs.EnsureCollection(ctx, "c")
	d, _, _ := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "s", Name: "a.pdf", Kind: "pdf"})
	id, _ := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 1, Kind: UnitPage, Text: "page"})
	for name, c := range map[string]struct {
		e    Embedding
		want string
	}{
		"empty passage":     {Embedding{UnitID: id, Passages: []Passage{{Ordinal: 2}}}, "passage 2 of unit"},
		"empty text vector": {Embedding{UnitID: id, Text: []float32{}}, "from e is empty"},
		"missing unit":      {Embedding{UnitID: id + 99, Text: []float32{1}}, "store text vectors of unit"},
	} {
		err := k.Content.Batch(ctx, func(b *Batch) error { return b.PutEmbeddings(ctx, "e", "img", []Embedding{c.e}) })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, c.want)
		}
	}
}

// BenchmarkEmbeddings stores an ingest batch's embeddings (32 pages of 13 passages of 100 dimensions and a text
// vector, as GloVe gives for a page of a manual) one call per unit and with PutEmbeddings.
func BenchmarkEmbeddings(b *testing.B) {
	for name, put := range map[string]func(ctx context.Context, b *Batch, textEmbedder, imageEmbedder string, es []Embedding) error{
		"OneByOne":      embeddingsOneByOne,
		"PutEmbeddings": putEmbeddings,
	} {
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			dir := b.TempDir()
			k, err := Open(ctx, filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
			if err != nil {
				b.Fatal(err)
			}
			defer k.Close()
			c, _ := k.Docs.EnsureCollection(ctx, "c")
			d, _, _ := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "s", Name: "a.pdf", Kind: "pdf"})
			vec := make([]float32, 100)
			for i := range vec {
				vec[i] = float32(i) / 100
			}
			o := 0
			for b.Loop() {
				b.StopTimer()
				var es []Embedding
				for range 32 {
					o++
					id, err := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: o, Kind: UnitPage})
					if err != nil {
						b.Fatal(err)
					}
					e := Embedding{UnitID: id, Text: vec}
					for p := range 13 {
						e.Passages = append(e.Passages, Passage{Ordinal: p, Start: p, End: p + 1, Vec: vec})
					}
					es = append(es, e)
				}
				b.StartTimer()
				if err := k.Content.Batch(ctx, func(bt *Batch) error { return put(ctx, bt, "e", "", es) }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
