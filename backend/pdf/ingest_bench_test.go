//go:build cgo

package pdf

import (
	"runtime"
	"testing"
)

// BenchmarkIngestRefman is a worker's share of ingestion on R's reference manual, in this process: text with word
// boxes and a 256 px JPEG thumbnail of pages 1–200, as the worker answers a page request. It reports this thread's
// CPU per page (the figure `proofglass-lab bench ingest` compares with MuPDF's own work); each round opens the document
// afresh, as a worker does.
//
//	go test ./backend/pdf -run '^$' -bench IngestRefman -benchtime 3x
func BenchmarkIngestRefman(b *testing.B) {
	path := testdata(b, "pdf/real/R-refman.pdf")
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	initWorker()
	var wire pageWire
	var cpu float64
	pages := 0
	for i := 0; i < b.N; i++ {
		t0 := threadCPU()
		e, err := openEngine(path, "", Limits{})
		if err != nil {
			b.Fatal(err)
		}
		for p := 0; p < min(200, e.pages); p++ {
			if _, err := e.extract(p, benchOpts, &wire); err != nil {
				b.Fatal(err)
			}
			pages++
		}
		e.close()
		cpu += float64(threadCPU() - t0)
	}
	b.ReportMetric(cpu/1e6/float64(pages), "cpu-ms/page")
}
