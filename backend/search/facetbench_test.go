package search

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"proofglass/backend/kb"
)

// BenchmarkFacetSignal measures what the facet signal costs a search on the synthetic library (benchUnits pages
// in 100-page documents, each document a company's 10-K of a year): per search, with the signal off and on, for
// questions naming a company and a year and for questions naming none (where only the organisation lookup runs).
func BenchmarkFacetSignal(b *testing.B) {
	n := benchUnits()
	k, dir := openSynthKB(b, n)
	ctx := context.Background()
	// Facets for every document (rewritten each run; the library itself is kept by PROOFGLASS_BENCH_DIR).
	docs, err := k.Docs.Documents(ctx, 0)
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range docs {
		org, year := fmt.Sprintf("Company%d Inc.", d.ID%40), fmt.Sprint(2000+d.ID%25)
		if err := k.Facets.ReplaceExtractedFacets(ctx, d.ID, []kb.Facet{{Name: "org", Value: org, Norm: strings.ToLower(org)},
			{Name: "year", Value: year, Norm: year}, {Name: "kind", Value: "10-K", Norm: "10-k"}}); err != nil {
			b.Fatal(err)
		}
	}
	s := New(k, Options{IndexDir: filepath.Join(dir, "index"), RecheckEvery: time.Second, Lexical: true})
	defer s.Close()
	if err := s.WarmLexical(ctx); err != nil {
		b.Fatal(err)
	}
	plain := benchQueries(b, 100)
	named := make([]string, len(plain))
	for i, q := range plain {
		// Plain questions name nothing: the synthetic words include years ("2010"), which would name a period.
		plain[i] = strings.Join(strings.FieldsFunc(q, func(r rune) bool { return r == ' ' || unicode.IsDigit(r) }), " ")
		named[i] = fmt.Sprintf("%s in Company%d's %d 10-K", plain[i], i%40, 2000+i%25)
	}
	namingPlain := 0
	for _, q := range plain {
		if d, err := s.facetDocuments(ctx, q, &scope{everything: true}); err == nil && d != nil {
			namingPlain++
		}
	}
	b.Logf("%d of %d plain questions name a facet", namingPlain, len(plain))
	off := DefaultStructure
	off.Facet = 0
	cpu := func(qs []string, w *StructureWeights) time.Duration {
		c0 := processCPU()
		for _, q := range qs {
			if _, err := s.Search(ctx, Query{Text: q, K: 10, Structure: w}); err != nil {
				b.Fatal(err)
			}
		}
		return (processCPU() - c0) / time.Duration(len(qs))
	}
	cpu(named[:10], nil) // warm
	b.Run(fmt.Sprintf("units=%d", n), func(b *testing.B) {
		// Interleaved rounds, the least of each: a shared machine's noise only ever adds.
		best := func(d *time.Duration, v time.Duration) {
			if *d == 0 || v < *d {
				*d = v
			}
		}
		var namedOff, namedOn, plainOff, plainOn time.Duration
		for b.Loop() {
			for range 3 {
				best(&namedOff, cpu(named, &off))
				best(&namedOn, cpu(named, nil))
				best(&plainOn, cpu(plain, nil))
				best(&plainOff, cpu(plain, &off))
			}
		}
		b.ReportMetric(float64(namedOff.Microseconds())/1000, "named-off-cpu-ms/op")
		b.ReportMetric(float64(namedOn.Microseconds())/1000, "named-on-cpu-ms/op")
		b.ReportMetric(float64(namedOn)/float64(namedOff), "named-on/off")
		b.ReportMetric(float64(plainOn)/float64(plainOff), "plain-on/off")
	})
}
