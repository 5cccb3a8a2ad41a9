package ingest

import (
	"context"
	"strings"
	"testing"

	"loupe/backend/search"
)

// After an ingest the saved dense index is current: a new searcher (the next process) opens it and never builds
// one, and it covers the new document.
func TestIngestSavesTheDenseIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	builds := 0
	counting := func(dim int, ids []int64, vecs [][]float32) (search.Index, error) {
		builds++
		return search.NewVectorIndex(dim, ids, vecs)
	}
	in, k := newIngester(t, Options{NoOCR: true})
	in.o.Index = search.New(k, search.Options{IndexDir: dir, NewIndex: counting})
	r := addOne(t, in, "c", testdata(t, "pdf", "real", "hsaur3-Ch_analysis_of_variance.pdf"))
	if builds != 1 {
		t.Fatalf("%d index builds during the first ingest, want 1", builds)
	}
	// A second document is added to the saved index, not rebuilt.
	r2 := addOne(t, in, "c", testdata(t, "pdf", "real", "hsaur3-Ch_logistic_regression_glm.pdf"))
	if builds != 1 {
		t.Errorf("second ingest rebuilt the index (%d builds)", builds)
	}
	s := search.New(k, search.Options{IndexDir: dir, NewIndex: counting})
	for _, c := range []struct {
		q   string
		doc int64
	}{{"analysis of variance weight gain", r.Document.ID}, {"logistic regression plasma fibrinogen", r2.Document.ID}} {
		res, err := s.Search(ctx, search.Query{Text: c.q, K: 20, Mode: search.Dense})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range res.Hits {
			found = found || h.DocumentID == c.doc
		}
		if !found {
			t.Errorf("%q: document %d not among the dense hits", c.q, c.doc)
		}
	}
	if builds != 1 {
		t.Errorf("a new searcher built the index although ingest saved it (%d builds)", builds)
	}
}

// The per-document lookup of units to re-embed probes passages by unit, with or without planner statistics.
func TestStaleEmbedsPlan(t *testing.T) {
	ctx := context.Background()
	_, k := newIngester(t, Options{NoOCR: true})
	for _, stats := range []bool{false, true} {
		if stats {
			if _, err := k.DB().ExecContext(ctx, "ANALYZE"); err != nil {
				t.Fatal(err)
			}
		} else if _, err := k.DB().ExecContext(ctx, "DROP TABLE IF EXISTS sqlite_stat1"); err != nil {
			t.Fatal(err)
		}
		if err := k.CheckPlan(ctx, staleEmbedsSQL, "e", 2, "e", 2, 1); err != nil {
			t.Errorf("statistics %v: %v", stats, err)
		}
	}
	// Without the unary + the probe goes through passages_embedder, which the check reports.
	old := strings.Replace(staleEmbedsSQL, "+p.embedder = ? AND +p.dim = ?", "p.embedder = ? AND p.dim = ?", 1)
	if _, err := k.DB().ExecContext(ctx, "DROP TABLE IF EXISTS sqlite_stat1"); err != nil {
		t.Fatal(err)
	}
	if err := k.CheckPlan(ctx, old, "e", 2, "e", 2, 1); err == nil {
		t.Error("the old probe passed the plan check")
	}
}
