package search

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"proofglass/backend/kb"
	"proofglass/backend/rank"
)

// BenchmarkLearnedRanker compares hybrid search p50 with the library's learned ranker against the hand-set fusion
// in the same run, over the synthetic library (PROOFGLASS_BENCH_UNITS units, default 100,000): the ranker must not
// slow search (goal: within 10 %).
//
//	go test -run X -bench LearnedRanker -benchtime 1x ./backend/search/
func BenchmarkLearnedRanker(b *testing.B) {
	n := benchUnits()
	k, dir := openSynthKB(b, n)
	ctx := context.Background()
	m := &rank.Model{Version: FeatureVersion, Features: FeatureNames, W: HandWeights(DefaultWeights, DefaultStructure),
		Mean: make([]float64, len(FeatureNames)), Std: make([]float64, len(FeatureNames))}
	for i := range m.Std {
		m.Std[i] = 1
	}
	m.W[9] = 0.01 // a weight the hand-set fusion lacks, so the order may differ
	enc, err := m.Encode()
	if err != nil {
		b.Fatal(err)
	}
	if err := k.Search.SaveRanker(ctx, kb.RankLibrary, enc, "{}", time.Now()); err != nil {
		b.Fatal(err)
	}
	s := New(k, Options{IndexDir: filepath.Join(dir, "index"), RecheckEvery: time.Second, Lexical: true})
	defer s.Close()
	if err := s.WarmLexical(ctx); err != nil {
		b.Fatal(err)
	}
	queries := benchQueries(b, 200)
	one := func(q string, noLearned bool) time.Duration {
		t0 := time.Now()
		res, err := s.Search(ctx, Query{Text: q, K: 10, NoLearned: noLearned})
		if err != nil {
			b.Fatal(err)
		}
		if !noLearned && len(res.Hits) > 0 && res.Ranker != "learned" {
			b.Fatalf("the learned ranker was not used: %+v", res)
		}
		return time.Since(t0)
	}
	// Each query runs both ways, in turn first, so that neither order finds the other's pages already read.
	run := func() (hand, learned time.Duration) {
		var h, l []time.Duration
		for i, q := range queries {
			if i%2 == 0 {
				h, l = append(h, one(q, true)), append(l, one(q, false))
			} else {
				l, h = append(l, one(q, false)), append(h, one(q, true))
			}
		}
		return percentile(h, 0.5), percentile(l, 0.5)
	}
	run() // warm
	b.Run(fmt.Sprintf("units=%d", n), func(b *testing.B) {
		var hand, learned time.Duration
		for b.Loop() {
			hand, learned = run()
		}
		b.ReportMetric(float64(hand.Microseconds())/1000, "hand-set-p50-ms")
		b.ReportMetric(float64(learned.Microseconds())/1000, "learned-p50-ms")
		b.ReportMetric(float64(learned)/float64(hand), "learned/hand-set")
	})
}
