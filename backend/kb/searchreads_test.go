package kb

import (
	"context"
	"testing"
)

// fillLibraryShaped gives the planner a library-shaped database: 5 documents of 40 units, each with a text vector
// and an embed step, every other unit with 6 passages.
func fillLibraryShaped(t *testing.T, k *KB) {
	t.Helper()
	ctx := context.Background()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := k.db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO collections(id, name, text_embedder, text_dim, created_at) VALUES (1, 'c', 'e', 2, 0)`)
	vec := EncodeVector([]float32{1, 0})
	for d := 1; d <= 5; d++ {
		exec(`INSERT INTO documents(id, collection_id, sha256, name, kind, meta, created_at, updated_at) VALUES (?, 1, ?, ?, 'pdf', '{}', 0, ?)`,
			d, string(rune('a'+d)), "d"+string(rune('0'+d))+".pdf", d*10)
		for o := 1; o <= 40; o++ {
			u := d*100 + o
			exec(`INSERT INTO units(id, document_id, ordinal, kind, text) VALUES (?, ?, ?, 'page', ?)`, u, d, o, "page "+string(rune('0'+o%10)))
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

// TestSearchReadsPlans checks the plans of the reads a search makes on each index check, with and without planner
// statistics: none may scan, or probe by a non-key column, inside another loop.
func TestSearchReadsPlans(t *testing.T) {
	queries := map[string]planQuery{
		"pending units": {pendingEmbedsSQL, nil},
		"any pending":   {anyPendingEmbedSQL, nil},
		"fingerprint":   {vectorFingerprintSQL, []any{"e", "text"}},
	}
	checkPlans(t, queries)
}

// planQuery is a query whose plan a test checks, with arguments to plan it with.
type planQuery struct {
	sql  string
	args []any
}

// checkPlans checks each query's plan (CheckPlan) on a library-shaped knowledge base, without and then with
// planner statistics.
func checkPlans(t *testing.T, queries map[string]planQuery) {
	t.Helper()
	ctx := context.Background()
	for _, stats := range []bool{false, true} {
		k := openTest(t)
		fillLibraryShaped(t, k)
		if stats {
			if _, err := k.db.ExecContext(ctx, "ANALYZE"); err != nil {
				t.Fatal(err)
			}
		} else if _, err := k.db.ExecContext(ctx, "DROP TABLE IF EXISTS sqlite_stat1"); err != nil {
			t.Fatal(err)
		}
		for name, q := range queries {
			if err := k.CheckPlan(ctx, q.sql, q.args...); err != nil {
				t.Errorf("%s (statistics %v): %v", name, stats, err)
			}
		}
	}
}

func TestSearchReads(t *testing.T) {
	ctx := context.Background()
	k := openTest(t)
	fillLibraryShaped(t, k)
	k.Docs.CreateCollection(ctx, Collection{Name: "a", TextEmbedder: "t", TextDim: 3, ImageEmbedder: "i", ImageDim: 4})
	cs, err := k.Search.CollectionEmbedders(ctx)
	if err != nil || len(cs) != 2 || cs[0].Name != "a" || cs[0].TextEmbedder != "t" || cs[0].TextDim != 3 ||
		cs[0].ImageEmbedder != "i" || cs[0].ImageDim != 4 || cs[1].Name != "c" || cs[1].ID != 1 {
		t.Errorf("CollectionEmbedders: %+v %v", cs, err)
	}
	up, err := k.Search.DocumentsUpdated(ctx, []int64{2, 4, 99})
	if err != nil || len(up) != 2 || up[2] != 20 || up[4] != 40 {
		t.Errorf("DocumentsUpdated: %v %v", up, err)
	}
	if up, err := k.Search.DocumentsUpdated(ctx, nil); err != nil || len(up) != 0 {
		t.Errorf("DocumentsUpdated of none: %v %v", up, err)
	}
	ns, err := k.Search.DocumentNamings(ctx, []int64{3, 99})
	if err != nil || len(ns) != 1 || ns[0] != (DocumentNaming{ID: 3, Name: "d3.pdf", Meta: "{}", FirstUnitText: "page 1"}) {
		t.Errorf("DocumentNamings: %+v %v", ns, err)
	}
	n, sum, err := k.Search.VectorFingerprint(ctx, "e", ModalityText)
	if err != nil || n != 200 || sum != float64((100+200+300+400+500)*40+5*820) {
		t.Errorf("VectorFingerprint: %d %v %v", n, sum, err)
	}
	if n, sum, _ := k.Search.VectorFingerprint(ctx, "e", ModalityImage); n != 0 || sum != 0 {
		t.Errorf("VectorFingerprint of no vectors: %d %v", n, sum)
	}
	if p, err := k.Search.UnitsAwaitingEmbedding(ctx); err != nil || len(p) != 0 {
		t.Errorf("every unit has its embed step: %v %v", p, err)
	}
	k.db.ExecContext(ctx, `DELETE FROM ingest_steps WHERE document_id = 2 AND ordinal <= 3`)
	if p, err := k.Search.UnitsAwaitingEmbedding(ctx); err != nil || len(p) != 1 || p[1] != 3 {
		t.Errorf("three units without their step: %v %v", p, err)
	}
}
