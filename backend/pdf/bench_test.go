//go:build cgo

package pdf

import (
	"context"
	"syscall"
	"testing"
)

// The benchmarks report pages/s of the ingestion step (text with word boxes + 256 px JPEG thumbnail) in this
// process and through the worker, on the same pages in the same run, so the ratio shows the cost of isolation:
//
//	go test ./backend/pdf -run '^$' -bench Extract -benchtime 200x

const benchFile = "pdf/real/hsaur3-Ch_graphical_display.pdf"

var benchOpts = PageOptions{ThumbSize: 256}

func BenchmarkExtractInProcess(b *testing.B) {
	e, err := openEngine(testdata(b, benchFile), "", Limits{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.extractPage(i%e.pages, benchOpts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
}

func BenchmarkExtractWorker(b *testing.B) {
	c := testClient(b, Options{})
	d, err := c.Open(context.Background(), testdata(b, benchFile), "")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := d.Page(context.Background(), i%d.Pages(), benchOpts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
}

// BenchmarkStreamRefman extracts every page of R's 2,415-page reference manual through one worker and reports the
// worker's and this process's peak RSS: pages stream one at a time, so both stay bounded.
//
//	go test ./backend/pdf -run '^$' -bench StreamRefman -benchtime 1x
func BenchmarkStreamRefman(b *testing.B) {
	path := testdata(b, "pdf/real/R-refman.pdf")
	for i := 0; i < b.N; i++ {
		c := testClient(b, Options{})
		d, err := c.Open(context.Background(), path, "")
		if err != nil {
			b.Fatal(err)
		}
		var words int
		for p := 0; p < d.Pages(); p++ {
			pg, err := d.Page(context.Background(), p, benchOpts)
			if err != nil {
				b.Fatal(err)
			}
			words += len(pg.Words)
		}
		w := c.w
		c.Close()
		b.ReportMetric(float64(d.Pages())/b.Elapsed().Seconds()*float64(i+1), "pages/s")
		if ru, ok := w.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			b.ReportMetric(float64(ru.Maxrss)/1024, "worker-peak-MB")
		}
		b.ReportMetric(float64(words)/float64(d.Pages()), "words/page")
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "parent-peak-MB")
	}
}
