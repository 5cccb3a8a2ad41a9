package library

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"proofglass/backend/fixture"
	"proofglass/backend/kb"
	"proofglass/backend/learnrank"
	"proofglass/backend/rank"
	"proofglass/backend/search"
)

// TestRankerFollowsTheLibrary stores a learned ranker for a small library, then ingests through the library's own
// ingester: a batch that adds less than a quarter leaves the ranker alone, and one that grows the library by more
// trains it again, as it was trained, and records the new size (kept or not).
func TestRankerFollowsTheLibrary(t *testing.T) {
	ctx := context.Background()
	lib, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	in := lib.Ingester(IngestOptions{NoOCR: true, Workers: 1})
	add := func(rels ...string) {
		t.Helper()
		var paths []string
		for _, r := range rels {
			paths = append(paths, fixture.Path(t, r))
		}
		res, err := in.Add(ctx, "docs", paths, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Error != "" {
				t.Fatal(r.Error)
			}
		}
	}
	add("pdf/real/blood_loss_report.pdf", "pdf/real/hsaur3-Ch_analysis_of_variance.pdf")
	pages, err := learnrank.Pages(ctx, lib.KB, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A stored ranker with the hand-set weights, as a training would have saved it.
	n := len(search.FeatureNames)
	m := &rank.Model{Version: search.FeatureVersion, Features: search.FeatureNames, Mean: make([]float64, n),
		Std: make([]float64, n), W: search.HandWeights(search.DefaultWeights, search.DefaultStructure), Pages: pages}
	for i := range m.Std {
		m.Std[i] = 1
	}
	b, _ := m.Encode()
	report, _ := json.Marshal(learnrank.Report{Pages: pages, Asked: learnrank.Asked{Questions: 80, Held: 0.3, Seed: 2}})
	saved := time.Now().Add(-time.Hour)
	for _, scope := range []string{kb.RankLibrary, kb.RankDocument} {
		if err := lib.KB.Search.SaveRanker(ctx, scope, b, string(report), saved); err != nil {
			t.Fatal(err)
		}
	}
	storedPages := func() (int, int) {
		t.Helper()
		r, err := lib.RankerReport(ctx)
		if err != nil || r == nil {
			t.Fatalf("ranker report: %+v, %v", r, err)
		}
		return r.Pages, r.CheckedPages
	}

	add("pdf/cjk/zhnumber.pdf")
	if p, c := storedPages(); p != pages || c != 0 {
		t.Fatalf("after a small batch the report says %d pages (checked %d), want the %d it was trained on", p, c, pages)
	}
	add("pdf/real/hsaur3-Ch_graphical_display.pdf", "pdf/real/hsaur3-Ch_logistic_regression_glm.pdf",
		"pdf/real/hsaur3-Ch_multiple_linear_regression.pdf")
	grown, err := learnrank.Pages(ctx, lib.KB, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, c := storedPages()
	t.Logf("library %d → %d pages; stored report: trained on %d, checked at %d", pages, grown, p, c)
	if grown < pages+50 || (p != grown && c != grown) {
		t.Errorf("after growing from %d to %d pages the stored report says %d (checked %d), want the new size", pages, grown, p, c)
	}
	// Current again: a refresh does nothing.
	if rep, why, err := lib.RefreshRanker(ctx); rep != nil || why != "" || err != nil {
		t.Errorf("a refresh right after one: %v, %q, %v; want nothing", rep != nil, why, err)
	}
}

func TestStale(t *testing.T) {
	for _, c := range []struct {
		trained, checked, now int
		stale                 bool
	}{
		{100, 0, 149, false}, {100, 0, 150, true}, {100, 0, 50, true}, {100, 0, 51, false},
		{1000, 0, 1249, false}, {1000, 0, 1250, true}, {1000, 1300, 1500, false}, {1000, 1300, 1625, true},
	} {
		why := learnrank.Stale(&learnrank.Report{Pages: c.trained, CheckedPages: c.checked}, c.now)
		if (why != "") != c.stale {
			t.Errorf("trained on %d, checked at %d, now %d: %q, want stale %v", c.trained, c.checked, c.now, why, c.stale)
		}
	}
}
