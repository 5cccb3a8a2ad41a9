package search

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestPrunedBM25MatchesFullRanking checks the rare-phrase ranking against FTS5 scoring every match: every unit it
// returns carries its full score, best first, and its exact prefix (the rows above the common phrases' bound) holds
// every unit the full ranking puts above that prefix's last score.
func TestPrunedBM25MatchesFullRanking(t *testing.T) {
	ctx := context.Background()
	k := openKB(t)
	c := collection(t, k, "prune")
	// 300 pages: "river" on most, "valley" on a third, "zephyr" and "quartz" on a few, with varied counts and lengths.
	r := rand.New(rand.NewPCG(7, 11))
	filler := strings.Fields("alpha beta gamma delta epsilon theta kappa lambda sigma omega")
	for d := range 3 {
		res, err := k.DB().ExecContext(ctx, `INSERT INTO documents(collection_id, sha256, name, kind, status, pages, created_at, updated_at)
			VALUES (?, ?, ?, 'pdf', 'ready', 100, 0, 0)`, c.ID, fmt.Sprintf("%064x", d), fmt.Sprintf("doc%d.pdf", d))
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := res.LastInsertId()
		for p := 1; p <= 100; p++ {
			var ws []string
			for range 20 + r.IntN(80) {
				ws = append(ws, filler[r.IntN(len(filler))])
			}
			add := func(w string, prob float64, most int) {
				if r.Float64() < prob {
					for range 1 + r.IntN(most) {
						ws = append(ws, w)
					}
				}
			}
			add("river", 0.9, 4)
			add("valley", 0.33, 3)
			add("zephyr", 0.05, 3)
			add("quartz", 0.04, 2)
			r.Shuffle(len(ws), func(i, j int) { ws[i], ws[j] = ws[j], ws[i] })
			if _, err := k.DB().ExecContext(ctx, `INSERT INTO units(document_id, ordinal, kind, width, height, text, text_source, words)
				VALUES (?, ?, 'page', 612, 792, ?, 'layer', '[]')`, doc, p, strings.Join(ws, " ")); err != nil {
				t.Fatal(err)
			}
		}
	}
	full := New(k, Options{})
	pruned := New(k, Options{PruneRows: 1})
	tests := map[string]struct {
		query string
		depth int
	}{
		"rare words decide the top":  {"zephyr quartz river", 3},
		"deeper than the rare rows":  {"zephyr quartz river valley", 40},
		"common words only":          {"river valley", 10},
		"one rare among many common": {"river valley quartz", 2},
	}
	var pruned0, exact0 int
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			sc, err := full.resolveScope(ctx, Query{})
			if err != nil {
				t.Fatal(err)
			}
			tm := parseTerms(tc.query)
			want, err := full.bm25(ctx, tm, sc, 1000)
			if err != nil {
				t.Fatal(err)
			}
			got, ok, exactTop, err := pruned.bm25Pruned(ctx, tm.words, sc, tc.depth)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return // pruning declined: bm25 ranks every match
			}
			pruned0++
			if exactTop > 0 {
				exact0++
			}
			fullScore := map[int64]float64{}
			for i, id := range want.ids {
				fullScore[id] = want.scores[i]
			}
			for i, id := range got.ids {
				if f, found := fullScore[id]; !found || math.Abs(f-got.scores[i]) > 1e-9*math.Abs(f) {
					t.Fatalf("unit %d: pruned score %v, full %v (found %v)", id, got.scores[i], f, found)
				}
				if i > 0 && got.scores[i] > got.scores[i-1] {
					t.Fatalf("not sorted at %d", i)
				}
			}
			// The exact prefix holds every unit the full ranking scores above its last score (ties may come in
			// any order).
			if exactTop > 0 {
				cut := got.scores[exactTop-1]
				for i, id := range want.ids {
					if want.scores[i] > cut*(1+1e-9) && !slices.Contains(got.ids[:exactTop], id) {
						t.Errorf("unit %d (score %v above the exact prefix's last %v) missing from it", id, want.scores[i], cut)
					}
				}
				if n := len(got.ids); exactTop > n {
					t.Fatalf("exact prefix %d longer than the ranking %d", exactTop, n)
				}
			}
		})
	}
	if pruned0 == 0 || exact0 == 0 {
		t.Errorf("pruned %d queries, %d with an exact prefix: the corpus no longer exercises pruning", pruned0, exact0)
	}
}
