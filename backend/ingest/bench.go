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
	"strings"
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
	// Rounds repeats ingest and baselines, interleaved, so that on a shared machine each ratio compares runs made
	// under the same load; rates and ratios are medians over rounds (0 means 3).
	Rounds  int
	Renders int         // on-demand renders to time (0 means 200)
	PDF     pdf.Options // worker command (tests)
}

// BenchRow is one measured rate.
type BenchRow struct {
	Name     string     `json:"name"`
	Pages    int        `json:"pages"`
	Seconds  float64    `json:"seconds"`
	PagesPS  float64    `json:"pages_per_s"`
	Ratio    float64    `json:"ratio_vs_ingest,omitempty"` // ingest rate / this rate (median of the rounds' ratios)
	Note     string     `json:"note,omitempty"`
	PeakRSS  int64      `json:"peak_rss_bytes,omitempty"`
	RenderMS [2]float64 `json:"render_p50_p99_ms,omitempty"`
}

// Bench ingests the PDFs into throw-away knowledge bases and measures pages/s, beside `mutool draw -r 144` and
// `pdftoppm -r 200 -jpeg` on the same files (when installed) in the same rounds, the peak RSS of this process and
// of its children (MuPDF workers), and the latency of on-demand renders at 144 dpi: the first render of each
// document (worker start and document open included) apart from renders once documents are open.
func Bench(ctx context.Context, o BenchOptions) ([]BenchRow, error) {
	if o.BaselinePages <= 0 {
		o.BaselinePages = 100
	}
	if o.Renders <= 0 {
		o.Renders = 200
	}
	if o.Rounds <= 0 {
		o.Rounds = 3
	}
	dir, err := os.MkdirTemp("", "loupe-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	type series struct {
		name   string
		pages  int
		secs   []float64
		rates  []float64
		ratios []float64
		note   string
	}
	ingest := &series{name: "loupe ingest (text layer, thumbnails, embed)"}
	if o.OCR {
		ingest.name = "loupe ingest (with OCR)"
	}
	var pageCounts []int
	workers := 0
	var parentCPU, workerCPU time.Duration
	runIngest := func(round int) error {
		rd := filepath.Join(dir, fmt.Sprintf("kb%d", round))
		k, err := kb.Open(ctx, filepath.Join(rd, "loupe.db"), filepath.Join(rd, "blobs"))
		if err != nil {
			return err
		}
		defer k.Close()
		in := New(k, nil, Options{Workers: o.Workers, NoOCR: !o.OCR, PDF: o.PDF})
		workers = in.Workers()
		self0, kids0 := cpuTimes()
		start := time.Now()
		res, err := in.Add(ctx, "bench", o.Paths, nil)
		el := time.Since(start).Seconds()
		in.Close() // the workers exit, so their CPU time is counted
		if err != nil {
			return err
		}
		self1, kids1 := cpuTimes()
		parentCPU += self1 - self0
		workerCPU += kids1 - kids0
		pages := 0
		pageCounts = pageCounts[:0]
		for _, r := range res {
			if r.Document.Status != kb.StatusReady {
				return fmt.Errorf("bench: %s: %s %s", r.Path, r.Document.Status, r.Error)
			}
			pages += r.Document.Pages
			pageCounts = append(pageCounts, r.Document.Pages)
		}
		ingest.pages = pages
		ingest.secs = append(ingest.secs, el)
		ingest.rates = append(ingest.rates, float64(pages)/el)
		return os.RemoveAll(rd)
	}
	baseline := func(s *series, cmd func(path string, last int, out string) *exec.Cmd) {
		if s.note != "" {
			return
		}
		total, secs := 0, 0.0
		for i, p := range o.Paths {
			last := min(pageCounts[i], o.BaselinePages)
			out := filepath.Join(dir, "base")
			os.MkdirAll(out, 0o700)
			c := cmd(p, last, out)
			t := time.Now()
			if b, err := c.CombinedOutput(); err != nil {
				s.note = fmt.Sprintf("failed on %s: %v %s", p, err, b)
				return
			}
			secs += time.Since(t).Seconds()
			total += last
			os.RemoveAll(out)
		}
		rate := float64(total) / secs
		s.pages = total
		s.secs = append(s.secs, secs)
		s.rates = append(s.rates, rate)
		s.ratios = append(s.ratios, ingest.rates[len(ingest.rates)-1]/rate)
	}
	mutool := &series{name: "mutool draw -r 144 (one process)"}
	if _, err := exec.LookPath("mutool"); err != nil {
		mutool.note = "not installed (Debian: mupdf-tools)"
	}
	pdftoppm := &series{name: "pdftoppm -r 200 -jpeg (one process)"}
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		pdftoppm.note = "not installed (Debian: poppler-utils)"
	}
	for round := range o.Rounds {
		if err := runIngest(round); err != nil {
			return nil, err
		}
		baseline(mutool, func(p string, last int, out string) *exec.Cmd {
			return exec.CommandContext(ctx, "mutool", "draw", "-q", "-r", "144", "-o", filepath.Join(out, "p%d.png"), p, "1-"+strconv.Itoa(last))
		})
		baseline(pdftoppm, func(p string, last int, out string) *exec.Cmd {
			return exec.CommandContext(ctx, "pdftoppm", "-r", "200", "-jpeg", "-l", strconv.Itoa(last), p, filepath.Join(out, "p"))
		})
	}
	rowOf := func(s *series) BenchRow {
		r := BenchRow{Name: s.name, Pages: s.pages, Note: s.note}
		if len(s.rates) == 0 {
			return r
		}
		r.Seconds, r.PagesPS = median(s.secs), median(s.rates)
		if len(s.ratios) > 0 {
			r.Ratio = median(s.ratios)
		}
		if r.Note == "" {
			r.Note = fmt.Sprintf("median of %d rounds; pages/s %s", len(s.rates), rounded(s.rates))
			if len(s.ratios) > 0 {
				r.Note += "; ratios " + rounded(s.ratios)
			}
		}
		return r
	}
	in := rowOf(ingest)
	in.Note = fmt.Sprintf("%d workers, %s", workers, in.Note)
	if n := len(ingest.rates) * ingest.pages; n > 0 {
		// Where the time goes: CPU per page in this process (storing, embedding) and in the MuPDF workers.
		in.Note += fmt.Sprintf("; CPU ms/page: this process %.2f, workers %.2f",
			parentCPU.Seconds()*1000/float64(n), workerCPU.Seconds()*1000/float64(n))
	}
	in.PeakRSS = peakRSS()
	rows := []BenchRow{in, rowOf(mutool), rowOf(pdftoppm)}

	// On-demand renders at 144 dpi, as the viewer asks. The first render of each document starts the worker (for
	// the first) and opens the document; the Renderer keeps documents open, so later renders are what a reader
	// paging through open documents waits for. The render cache is off: every render is made.
	c := pdf.NewClient(o.PDF)
	defer c.Close()
	r := pdf.NewRenderer(c, nil, len(o.Paths))
	render := func(doc, page int) (float64, error) {
		t := time.Now()
		if _, err := r.Render(ctx, o.Paths[doc], "", pdf.RenderRequest{Page: page, DPI: 144}); err != nil {
			return 0, err
		}
		return float64(time.Since(t).Microseconds()) / 1000, nil
	}
	var cold, warm []float64
	for i := range o.Paths {
		ms, err := render(i, rand.IntN(pageCounts[i]))
		if err != nil {
			return rows, err
		}
		cold = append(cold, ms)
	}
	for range o.Renders {
		i := rand.IntN(len(o.Paths))
		ms, err := render(i, rand.IntN(pageCounts[i]))
		if err != nil {
			return rows, err
		}
		warm = append(warm, ms)
	}
	// The same first renders on documents that a fresh Renderer warmed (opened, page tree read) beforehand, as a
	// viewer can when a document is selected.
	c2 := pdf.NewClient(o.PDF)
	defer c2.Close()
	r2 := pdf.NewRenderer(c2, nil, len(o.Paths))
	var warmed []float64
	for i, p := range o.Paths {
		if err := r2.Warm(ctx, p, ""); err != nil {
			return rows, err
		}
		t := time.Now()
		if _, err := r2.Render(ctx, p, "", pdf.RenderRequest{Page: rand.IntN(pageCounts[i]), DPI: 144}); err != nil {
			return rows, err
		}
		warmed = append(warmed, float64(time.Since(t).Microseconds())/1000)
	}
	slices.Sort(warmed)
	slices.Sort(cold)
	slices.Sort(warm)
	rows = append(rows,
		BenchRow{Name: "on-demand render 144 dpi (JPEG), open documents", Pages: len(warm),
			RenderMS: [2]float64{warm[len(warm)/2], warm[min(len(warm)-1, len(warm)*99/100)]}},
		BenchRow{Name: "on-demand render 144 dpi, first of a document (cold)", Pages: len(cold),
			RenderMS: [2]float64{cold[len(cold)/2], cold[len(cold)-1]}, Note: "p50/max; worker start and open included"},
		BenchRow{Name: "on-demand render 144 dpi, first of a warmed document", Pages: len(warmed),
			RenderMS: [2]float64{warmed[len(warmed)/2], warmed[len(warmed)-1]}, Note: "p50/max; after Renderer.Warm"})
	return rows, nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func rounded(v []float64) string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strings.Join(out, " ")
}

// peakRSS is the larger of this process's and its largest child's peak resident set, in bytes.
func peakRSS() int64 {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	return max(self.Maxrss, kids.Maxrss) * 1024 // Linux reports kilobytes
}

// cpuTimes is the user+system CPU time of this process and of its waited-for children.
func cpuTimes() (self, children time.Duration) {
	var s, c syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &s)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(s.Utime) + tv(s.Stime), tv(c.Utime) + tv(c.Stime)
}
