package ingest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"loupe/backend/kb"
	"loupe/backend/pdf"
)

// BenchOptions configures Bench.
type BenchOptions struct {
	Paths   []string // PDFs to ingest
	Workers int
	OCR     bool // include OCR of pages without a text layer (off: OCR is reported separately)
	// BaselinePages caps the pages per file that the external baselines rasterise (0 means 100): they are slow,
	// and their rate per page is what is compared.
	BaselinePages int
	Renders       int         // on-demand renders to time (0 means 200)
	PDF           pdf.Options // worker command (tests)
}

// BenchRow is one measured rate.
type BenchRow struct {
	Name     string     `json:"name"`
	Pages    int        `json:"pages"`
	Seconds  float64    `json:"seconds"`
	PagesPS  float64    `json:"pages_per_s"`
	Ratio    float64    `json:"ratio_vs_ingest,omitempty"` // ingest rate / this rate
	Note     string     `json:"note,omitempty"`
	PeakRSS  int64      `json:"peak_rss_bytes,omitempty"`
	RenderMS [2]float64 `json:"render_p50_p99_ms,omitempty"`
}

// Bench ingests the PDFs into a throw-away knowledge base and measures pages/s, beside `mutool draw -r 144` and
// `pdftoppm -r 200 -jpeg` on the same files (when installed), the peak RSS of this process and of its children
// (MuPDF workers), and the latency of on-demand renders at 144 dpi.
func Bench(ctx context.Context, o BenchOptions) ([]BenchRow, error) {
	if o.BaselinePages <= 0 {
		o.BaselinePages = 100
	}
	if o.Renders <= 0 {
		o.Renders = 200
	}
	dir, err := os.MkdirTemp("", "loupe-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	k, err := kb.Open(ctx, filepath.Join(dir, "loupe.db"), filepath.Join(dir, "blobs"))
	if err != nil {
		return nil, err
	}
	defer k.Close()
	in := New(k, nil, Options{Workers: o.Workers, NoOCR: !o.OCR, PDF: o.PDF})
	defer in.Close()
	start := time.Now()
	res, err := in.Add(ctx, "bench", o.Paths, nil)
	if err != nil {
		return nil, err
	}
	el := time.Since(start).Seconds()
	pages := 0
	var pageCounts []int
	for _, r := range res {
		if r.Document.Status != kb.StatusReady {
			return nil, fmt.Errorf("bench: %s: %s %s", r.Path, r.Document.Status, r.Error)
		}
		pages += r.Document.Pages
		pageCounts = append(pageCounts, r.Document.Pages)
	}
	name := "loupe ingest (text layer, thumbnails, embed)"
	if o.OCR {
		name = "loupe ingest (with OCR)"
	}
	ingest := BenchRow{Name: name, Pages: pages, Seconds: el, PagesPS: float64(pages) / el,
		Note: fmt.Sprintf("%d workers", in.Workers())}
	ingest.PeakRSS = peakRSS()
	rows := []BenchRow{ingest}

	baseline := func(name string, cmd func(path string, last int, out string) *exec.Cmd) {
		total, secs := 0, 0.0
		for i, p := range o.Paths {
			last := min(pageCounts[i], o.BaselinePages)
			out := filepath.Join(dir, "base")
			os.MkdirAll(out, 0o700)
			c := cmd(p, last, out)
			t := time.Now()
			if b, err := c.CombinedOutput(); err != nil {
				rows = append(rows, BenchRow{Name: name, Note: fmt.Sprintf("failed on %s: %v %s", p, err, b)})
				return
			}
			secs += time.Since(t).Seconds()
			total += last
			os.RemoveAll(out)
		}
		r := BenchRow{Name: name, Pages: total, Seconds: secs, PagesPS: float64(total) / secs}
		r.Ratio = ingest.PagesPS / r.PagesPS
		rows = append(rows, r)
	}
	if _, err := exec.LookPath("mutool"); err == nil {
		baseline("mutool draw -r 144 (one process)", func(p string, last int, out string) *exec.Cmd {
			return exec.CommandContext(ctx, "mutool", "draw", "-q", "-r", "144", "-o", filepath.Join(out, "p%d.png"), p, "1-"+strconv.Itoa(last))
		})
	} else {
		rows = append(rows, BenchRow{Name: "mutool draw -r 144", Note: "not installed (Debian: mupdf-tools)"})
	}
	if _, err := exec.LookPath("pdftoppm"); err == nil {
		baseline("pdftoppm -r 200 -jpeg (one process)", func(p string, last int, out string) *exec.Cmd {
			return exec.CommandContext(ctx, "pdftoppm", "-r", "200", "-jpeg", "-l", strconv.Itoa(last), p, filepath.Join(out, "p"))
		})
	} else {
		rows = append(rows, BenchRow{Name: "pdftoppm -r 200 -jpeg", Note: "not installed (Debian: poppler-utils)"})
	}

	// On-demand renders: a random page of a random document at 144 dpi, as the viewer asks.
	c := pdf.NewClient(o.PDF)
	defer c.Close()
	r := pdf.NewRenderer(c, nil, len(o.Paths))
	var lat []float64
	for range o.Renders {
		i := rand.IntN(len(o.Paths))
		t := time.Now()
		if _, err := r.Render(ctx, o.Paths[i], "", pdf.RenderRequest{Page: rand.IntN(pageCounts[i]), DPI: 144}); err != nil {
			return rows, err
		}
		lat = append(lat, float64(time.Since(t).Microseconds())/1000)
	}
	slices.Sort(lat)
	rows = append(rows, BenchRow{Name: "on-demand render 144 dpi (JPEG)", Pages: len(lat),
		RenderMS: [2]float64{lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]}})
	return rows, nil
}

// peakRSS is the larger of this process's and its largest child's peak resident set, in bytes.
func peakRSS() int64 {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	return max(self.Maxrss, kids.Maxrss) * 1024 // Linux reports kilobytes
}
