package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"proofglass/backend/fixture"
	"proofglass/backend/pdf"
)

// TestMain lets the test binary serve as the pdf worker (workerOptions).
func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

// workerOptions makes pdf clients run this test binary as their worker.
func workerOptions() pdf.Options {
	return pdf.Options{Command: os.Args[0], Args: []string{pdf.WorkerCommand}, Timeout: 20 * time.Second}
}

func benchPaths(b *testing.B, dir string, skip ...string) []string {
	all, _ := filepath.Glob(filepath.Join(fixture.Path(b, filepath.Join("pdf", dir)), "*.pdf"))
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

// A small ingest benchmark runs end to end: one kind, one round, Proofglass's row first, then the baselines' and the
// render rows.
func TestIngestSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests a PDF and runs MuPDF workers")
	}
	p := fixture.Path(t, "pdf/real/hsaur3-Ch_analysis_of_variance.pdf")
	rows, err := Ingest(context.Background(), IngestOptions{Paths: []string{p}, Workers: 1, BaselinePages: 3, Rounds: 1,
		Renders: 2, PDF: workerOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 8 {
		t.Fatalf("%d rows, want 5 for the kind and 3 renders: %+v", len(rows), rows)
	}
	if r := rows[0]; r.Kind != "real" || r.Pages == 0 || r.CPUms <= 0 {
		t.Errorf("ingest row %+v: want kind real, pages and CPU per page", r)
	}
	if r := rows[len(rows)-1]; r.RenderMS[0] <= 0 {
		t.Errorf("render row %+v: no latency", r)
	}
}

func runBench(b *testing.B, o IngestOptions) {
	o.PDF = workerOptions()
	for b.Loop() {
		rows, err := Ingest(context.Background(), o)
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
	runBench(b, IngestOptions{Paths: benchPaths(b, "real", "R-refman.pdf")})
}

// BenchmarkIngestScanned: scanned PDFs, with OCR.
func BenchmarkIngestScanned(b *testing.B) {
	runBench(b, IngestOptions{Paths: benchPaths(b, "scanned"), OCR: true, BaselinePages: 10})
}

// BenchmarkIngestRefman: R's 2,415-page reference manual (minutes).
func BenchmarkIngestRefman(b *testing.B) {
	if os.Getenv("PROOFGLASS_BENCH_REFMAN") == "" {
		b.Skip("set PROOFGLASS_BENCH_REFMAN=1 to ingest the 2,415-page manual")
	}
	runBench(b, IngestOptions{Paths: []string{fixture.Path(b, "pdf/real/R-refman.pdf")}, BaselinePages: 200})
}
