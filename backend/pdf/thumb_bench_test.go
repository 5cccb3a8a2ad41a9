//go:build cgo

package pdf

import (
	"image/jpeg"
	"io"
	"math"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU is this thread's user+system CPU time: the benchmark reports CPU per page, which a busy machine does
// not inflate the way it does wall time.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkThumb measures the 256 px JPEG thumbnail of text pages apart from its render (text extraction, which
// records the page's display list, is included in all). MuPDF's own JPEG writer (fz_new_buffer_from_pixmap_as_jpeg)
// was tried and measured 3.5 CPU ms per thumbnail against Go's 1.1: it writes progressive JPEGs. jpeg.c replaced
// Go's image/jpeg.
//
//	go test ./backend/pdf -run '^$' -bench Thumb -benchtime 400x
func BenchmarkThumb(b *testing.B) {
	e, err := openEngine(testdata(b, "pdf/real/R-refman.pdf"), "", Limits{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.close()
	dpi := func(i int) float64 {
		w, h, err := e.pageSize(i)
		if err != nil {
			b.Fatal(err)
		}
		return 72 * 256 / math.Max(w, h)
	}
	for _, c := range []struct {
		name string
		fn   func(i int) error
	}{
		{"c-jpeg", func(i int) error {
			img, _, err := e.render(i, dpi(i), nil, 256*256)
			if err == nil {
				_, err = encodeImage(img, JPEG, 80)
				releaseImage(img)
			}
			return err
		}},
		{"go-jpeg", func(i int) error {
			img, _, err := e.render(i, dpi(i), nil, 256*256)
			if err == nil {
				err = jpeg.Encode(io.Discard, img, &jpeg.Options{Quality: 80})
				releaseImage(img)
			}
			return err
		}},
		{"render-only", func(i int) error {
			img, _, err := e.render(i, dpi(i), nil, 256*256)
			if err == nil {
				releaseImage(img)
			}
			return err
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			t0 := threadCPU()
			defer func() { b.ReportMetric(float64(threadCPU()-t0)/1e6/float64(b.N), "cpu-ms/op") }()
			for i := 0; i < b.N; i++ {
				p := i % 200
				if _, _, err := e.text(p); err != nil { // records the display list, as extraction does
					b.Fatal(err)
				}
				if err := c.fn(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
