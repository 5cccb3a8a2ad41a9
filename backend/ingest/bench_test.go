package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func benchPaths(b *testing.B, dir string, skip ...string) []string {
	all, _ := filepath.Glob(filepath.Join(testdata(b, "pdf", dir), "*.pdf"))
	var out []string
	for _, p := range all {
		keep := true
		for _, s := range skip {
			keep = keep && filepath.Base(p) != s
		}
		if keep {
			out = append(out, p)
		}
	}
	return out
}

func runBench(b *testing.B, o BenchOptions) {
	o.PDF = workerOptions()
	for b.Loop() {
		rows, err := Bench(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range rows {
			b.Logf("%-45s pages %5d  %7.2f s  %7.1f pages/s  CPU %.2f ms/page  ratio %.2f  peak RSS %.0f MB  render p50/p99 %.1f/%.1f ms  %s",
				r.Name, r.Pages, r.Seconds, r.PagesPS, r.CPUms, r.Ratio, float64(r.PeakRSS)/(1<<20), r.RenderMS[0], r.RenderMS[1], r.Note)
		}
		b.ReportMetric(rows[0].PagesPS, "pages/s")
		b.ReportMetric(float64(rows[0].PeakRSS)/(1<<20), "peakRSS-MB")
	}
}

// BenchmarkIngestText: the real text PDFs except the 2,415-page manual.
func BenchmarkIngestText(b *testing.B) {
	runBench(b, BenchOptions{Paths: benchPaths(b, "real", "R-refman.pdf")})
}

// BenchmarkIngestScanned: scanned PDFs, with OCR.
func BenchmarkIngestScanned(b *testing.B) {
	runBench(b, BenchOptions{Paths: benchPaths(b, "scanned"), OCR: true, BaselinePages: 10})
}

// BenchmarkIngestRefman: R's 2,415-page reference manual (minutes).
func BenchmarkIngestRefman(b *testing.B) {
	if os.Getenv("PROOFGLASS_BENCH_REFMAN") == "" {
		b.Skip("set PROOFGLASS_BENCH_REFMAN=1 to ingest the 2,415-page manual")
	}
	runBench(b, BenchOptions{Paths: []string{testdata(b, "pdf", "real", "R-refman.pdf")}, BaselinePages: 200})
}
