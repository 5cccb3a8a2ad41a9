package bench

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

	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/pdf"
)

// IngestOptions configures Ingest.
type IngestOptions struct {
	Paths   []string // PDFs to ingest, grouped into kinds by the name of their folder (text, scanned, cjk…)
	Workers int
	OCR     bool // include OCR of pages without a text layer (off: OCR is reported separately)
	// BaselinePages caps the pages per file (0 means 100): with mutool installed, Proofglass and every baseline work on
	// copies of the first BaselinePages pages of each file (`mutool clean`), so all CPU per page is on the same pages.
	BaselinePages int
	// Rounds repeats ingest and baselines, interleaved, so that on a shared machine each ratio compares runs made
	// under the same load; rates and ratios are medians over rounds (0 means 3).
	Rounds  int
	Renders int         // on-demand renders to time (0 means 200)
	PDF     pdf.Options // worker command (tests)
}

// IngestRow is one measured rate.
type IngestRow struct {
	Name    string  `json:"name"`
	Kind    string  `json:"kind,omitempty"` // folder the PDFs came from; empty for all of them
	Pages   int     `json:"pages"`
	Seconds float64 `json:"seconds"`
	PagesPS float64 `json:"pages_per_s"`
	// CPUms is user+system CPU per page (Proofglass: this process and its workers); median of the rounds.
	CPUms float64 `json:"cpu_ms_per_page,omitempty"`
	// Ratio is this row's CPU per page over Proofglass's on the same pages (median of the rounds' ratios): above 1,
	// Proofglass spends less.
	Ratio    float64    `json:"ratio_cpu_vs_proofglass,omitempty"`
	Note     string     `json:"note,omitempty"`
	PeakRSS  int64      `json:"peak_rss_bytes,omitempty"`
	RenderMS [2]float64 `json:"render_p50_p99_ms,omitempty"`
}

// benchSeries collects one measured thing over the rounds.
type benchSeries struct {
	name   string
	pages  int
	secs   []float64
	cpu    []float64 // CPU ms per page
	ratios []float64
	note   string
}

func (s *benchSeries) row(kind string) IngestRow {
	r := IngestRow{Name: s.name, Kind: kind, Pages: s.pages, Note: s.note}
	if len(s.cpu) == 0 {
		return r
	}
	r.CPUms = median(s.cpu)
	if len(s.secs) > 0 {
		r.Seconds = median(s.secs)
		r.PagesPS = float64(s.pages) / r.Seconds
	}
	if len(s.ratios) > 0 {
		r.Ratio = median(s.ratios)
	}
	if r.Note == "" {
		r.Note = fmt.Sprintf("median of %d rounds; CPU ms/page %s", len(s.cpu), rounded(s.cpu, 1))
		if len(s.ratios) > 0 {
			r.Note += "; ratios " + rounded(s.ratios, 1)
		}
	}
	return r
}

// Ingest ingests the PDFs into throw-away knowledge bases, kind by kind (a kind is the folder a PDF lies in), and
// measures CPU per page of this process and its MuPDF workers beside MuPDF's own work on the same pages in the
// same rounds: `mutool draw -F stext` (structured text) and a raster at the thumbnail's size written as PAM to
// /dev/null (no image encoding), and beside `pdftoppm -r 200 -jpeg`. It also reports the peak RSS of this process
// and of its children, and the latency of on-demand renders at 144 dpi: the first render of each document (worker
// start and document open included) apart from renders once documents are open.
func Ingest(ctx context.Context, o IngestOptions) ([]IngestRow, error) {
	if o.BaselinePages <= 0 {
		o.BaselinePages = 100
	}
	if o.Renders <= 0 {
		o.Renders = 200
	}
	if o.Rounds <= 0 {
		o.Rounds = 3
	}
	dir, err := os.MkdirTemp("", "proofglass-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	b := &ingestBench{ctx: ctx, o: o, dir: dir}
	_, errMutool := exec.LookPath("mutool")
	_, errPpm := exec.LookPath("pdftoppm")
	paths := o.Paths
	if errMutool == nil {
		if paths, err = b.samePages(); err != nil {
			return nil, err
		}
	}
	kinds := b.kinds(paths, errMutool == nil, errPpm == nil)
	for round := range o.Rounds {
		for _, k := range kinds {
			if err := b.round(k, round); err != nil {
				return nil, err
			}
		}
	}
	rows, allPaths, pageCounts := b.rows(kinds)
	renders, err := renderRows(ctx, o.PDF, allPaths, pageCounts, o.Renders)
	if err != nil {
		return rows, err
	}
	return append(rows, renders...), nil
}

// ingestBench is one Ingest run: its options, its scratch folder and what the Ingester reported of itself.
type ingestBench struct {
	ctx     context.Context
	o       IngestOptions
	dir     string
	workers int
	thumb   int // the thumbnail's longest side, as the Ingester sets it
}

// benchKind is the PDFs of one folder and what the rounds measured on them.
type benchKind struct {
	name                        string
	paths                       []string
	pageCounts                  []int
	ingest, stext, raster, both *benchSeries
	ppm                         *benchSeries
	parentCPU, workerCPU        []float64 // CPU ms per page in each round
}

// samePages gives everyone the same pages: copies of the first BaselinePages pages of each file (`mutool clean`).
func (b *ingestBench) samePages() ([]string, error) {
	paths := make([]string, len(b.o.Paths))
	for i, p := range b.o.Paths {
		sub := filepath.Join(b.dir, "src", strconv.Itoa(i), filepath.Base(filepath.Dir(p)), filepath.Base(p))
		if err := os.MkdirAll(filepath.Dir(sub), 0o700); err != nil {
			return nil, err
		}
		n, err := pageCount(b.ctx, b.o.PDF, p)
		if err != nil {
			return nil, err
		}
		rng := "1-" + strconv.Itoa(min(n, b.o.BaselinePages))
		if out, err := exec.CommandContext(b.ctx, "mutool", "clean", p, sub, rng).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("bench: copy pages %s of %s: %v %s", rng, p, err, out)
		}
		paths[i] = sub
	}
	return paths, nil
}

// kinds groups the paths by the name of their folder, in the order the folders first come; a baseline whose tool is
// missing carries a note instead of measurements.
func (b *ingestBench) kinds(paths []string, haveMutool, havePpm bool) []*benchKind {
	var kinds []*benchKind
	byName := map[string]*benchKind{}
	for _, p := range paths {
		name := filepath.Base(filepath.Dir(p))
		k := byName[name]
		if k == nil {
			k = &benchKind{name: name,
				ingest: &benchSeries{name: "proofglass ingest (text layer, thumbnails, embed)"},
				stext:  &benchSeries{name: "mutool draw -F stext -o /dev/null"},
				raster: &benchSeries{name: "mutool draw thumbnail raster -F pam -o /dev/null"},
				both:   &benchSeries{name: "MuPDF text + thumbnail raster (combined)"},
				ppm:    &benchSeries{name: "pdftoppm -r 200 -jpeg"}}
			if b.o.OCR {
				k.ingest.name = "proofglass ingest (with OCR)"
			}
			if !haveMutool {
				k.stext.note, k.raster.note, k.both.note = "not installed (Debian: mupdf-tools)", "not installed", "not installed"
			}
			if !havePpm {
				k.ppm.note = "not installed (Debian: poppler-utils)"
			}
			byName[name] = k
			kinds = append(kinds, k)
		}
		k.paths = append(k.paths, p)
	}
	return kinds
}

// round ingests the kind's PDFs and then runs each baseline on the same pages, so that their ratios compare runs
// made under the same load.
func (b *ingestBench) round(k *benchKind, round int) error {
	if err := b.ingest(k, round); err != nil {
		return err
	}
	ctx := b.ctx
	st := b.baseline(k, k.stext, func(p string, last int, out string) *exec.Cmd {
		return exec.CommandContext(ctx, "mutool", "draw", "-q", "-F", "stext", "-o", os.DevNull, p, "1-"+strconv.Itoa(last))
	})
	// -w/-h are maxima when -r is given: the page fits in thumb×thumb pixels, as Proofglass's thumbnail does.
	ra := b.baseline(k, k.raster, func(p string, last int, out string) *exec.Cmd {
		return exec.CommandContext(ctx, "mutool", "draw", "-q", "-r", "72", "-w", strconv.Itoa(b.thumb), "-h", strconv.Itoa(b.thumb),
			"-F", "pam", "-o", os.DevNull, p, "1-"+strconv.Itoa(last))
	})
	if st > 0 && ra > 0 {
		k.both.pages = k.stext.pages
		k.both.cpu = append(k.both.cpu, st+ra)
		k.both.ratios = append(k.both.ratios, (st+ra)/k.ingest.cpu[len(k.ingest.cpu)-1])
	}
	b.baseline(k, k.ppm, func(p string, last int, out string) *exec.Cmd {
		return exec.CommandContext(ctx, "pdftoppm", "-r", "200", "-jpeg", "-l", strconv.Itoa(last), p, filepath.Join(out, "p"))
	})
	return nil
}

// ingest adds the kind's PDFs to a fresh knowledge base and records its time and its CPU per page, in this process
// and in the workers.
func (b *ingestBench) ingest(k *benchKind, round int) error {
	rd := filepath.Join(b.dir, fmt.Sprintf("kb-%s-%d", k.name, round))
	db, err := kb.Open(b.ctx, filepath.Join(rd, "proofglass.db"), filepath.Join(rd, "blobs"))
	if err != nil {
		return err
	}
	defer db.Close()
	in := ingest.New(db, nil, ingest.Options{Workers: b.o.Workers, NoOCR: !b.o.OCR, PDF: b.o.PDF})
	b.workers, b.thumb = in.Workers(), in.ThumbSize()
	self0, kids0 := cpuTimes()
	start := time.Now()
	res, err := in.Add(b.ctx, "bench", k.paths, nil)
	el := time.Since(start).Seconds()
	in.Close() // the workers exit, so their CPU time is counted
	if err != nil {
		return err
	}
	self1, kids1 := cpuTimes()
	pages := 0
	k.pageCounts = k.pageCounts[:0]
	for _, r := range res {
		if r.Document.Status != kb.StatusReady {
			return fmt.Errorf("bench: %s: %s %s", r.Path, r.Document.Status, r.Error)
		}
		pages += r.Document.Pages
		k.pageCounts = append(k.pageCounts, r.Document.Pages)
	}
	k.parentCPU = append(k.parentCPU, ms(self1-self0)/float64(max(pages, 1)))
	k.workerCPU = append(k.workerCPU, ms(kids1-kids0)/float64(max(pages, 1)))
	k.ingest.pages = pages
	k.ingest.secs = append(k.ingest.secs, el)
	k.ingest.cpu = append(k.ingest.cpu, ms(self1-self0+kids1-kids0)/float64(max(pages, 1)))
	return os.RemoveAll(rd)
}

// baseline runs cmd on every file of the kind and returns its CPU ms per page (0 and a note on failure).
func (b *ingestBench) baseline(k *benchKind, s *benchSeries, cmd func(path string, last int, out string) *exec.Cmd) float64 {
	if s.note != "" {
		return 0
	}
	total, secs := 0, 0.0
	var cpu time.Duration
	for i, p := range k.paths {
		last := min(k.pageCounts[i], b.o.BaselinePages)
		out := filepath.Join(b.dir, "base")
		os.MkdirAll(out, 0o700)
		c := cmd(p, last, out)
		t := time.Now()
		if msg, err := c.CombinedOutput(); err != nil {
			s.note = fmt.Sprintf("failed on %s: %v %s", p, err, msg)
			return 0
		}
		secs += time.Since(t).Seconds()
		cpu += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
		total += last
		os.RemoveAll(out)
	}
	per := ms(cpu) / float64(max(total, 1))
	s.pages = total
	s.secs = append(s.secs, secs)
	s.cpu = append(s.cpu, per)
	s.ratios = append(s.ratios, per/k.ingest.cpu[len(k.ingest.cpu)-1])
	return per
}

// rows are the kinds' medians, five rows a kind, with the peak RSS on the first; also every path ingested and its
// page count, for the renders.
func (b *ingestBench) rows(kinds []*benchKind) (rows []IngestRow, paths []string, pageCounts []int) {
	for _, k := range kinds {
		in := k.ingest.row(k.name)
		in.Note = fmt.Sprintf("%d workers, %s", b.workers, in.Note)
		if len(k.parentCPU) > 0 {
			// Where the time goes: CPU per page in this process (storing, embedding) and in the MuPDF workers.
			in.Note += fmt.Sprintf("; this process %.2f + workers %.2f ms/page (medians; this process %s)",
				median(k.parentCPU), median(k.workerCPU), rounded(k.parentCPU, 2))
		}
		rows = append(rows, in, k.stext.row(k.name), k.raster.row(k.name), k.both.row(k.name), k.ppm.row(k.name))
		pageCounts = append(pageCounts, k.pageCounts...)
		paths = append(paths, k.paths...)
	}
	if len(rows) > 0 {
		rows[0].PeakRSS = peakRSS()
	}
	return rows, paths, pageCounts
}

// renderRows times on-demand renders at 144 dpi, as the viewer asks. The first render of each document starts the
// worker (for the first) and opens the document; the Renderer keeps documents open, so later renders are what a
// reader paging through open documents waits for. The render cache is off: every render is made. Last, the same
// first renders on documents that a fresh Renderer warmed (opened, page tree read) beforehand, as a viewer can when a
// document is selected.
func renderRows(ctx context.Context, o pdf.Options, paths []string, pageCounts []int, renders int) ([]IngestRow, error) {
	c := pdf.NewClient(o)
	defer c.Close()
	r := pdf.NewRenderer(c, nil, len(paths))
	render := func(doc, page int) (float64, error) {
		t := time.Now()
		if _, err := r.Render(ctx, paths[doc], "", pdf.RenderRequest{Page: page, DPI: 144}); err != nil {
			return 0, err
		}
		return float64(time.Since(t).Microseconds()) / 1000, nil
	}
	var cold, warm []float64
	for i := range paths {
		ms, err := render(i, rand.IntN(pageCounts[i]))
		if err != nil {
			return nil, err
		}
		cold = append(cold, ms)
	}
	for range renders {
		i := rand.IntN(len(paths))
		ms, err := render(i, rand.IntN(pageCounts[i]))
		if err != nil {
			return nil, err
		}
		warm = append(warm, ms)
	}
	c2 := pdf.NewClient(o)
	defer c2.Close()
	r2 := pdf.NewRenderer(c2, nil, len(paths))
	var warmed []float64
	for i, p := range paths {
		if err := r2.Warm(ctx, p, "", ""); err != nil {
			return nil, err
		}
		t := time.Now()
		if _, err := r2.Render(ctx, p, "", pdf.RenderRequest{Page: rand.IntN(pageCounts[i]), DPI: 144}); err != nil {
			return nil, err
		}
		warmed = append(warmed, float64(time.Since(t).Microseconds())/1000)
	}
	slices.Sort(warmed)
	slices.Sort(cold)
	slices.Sort(warm)
	return []IngestRow{
		{Name: "on-demand render 144 dpi (JPEG), open documents", Pages: len(warm),
			RenderMS: [2]float64{warm[len(warm)/2], warm[min(len(warm)-1, len(warm)*99/100)]}},
		{Name: "on-demand render 144 dpi, first of a document (cold)", Pages: len(cold),
			RenderMS: [2]float64{cold[len(cold)/2], cold[len(cold)-1]}, Note: "p50/max; worker start and open included"},
		{Name: "on-demand render 144 dpi, first of a warmed document", Pages: len(warmed),
			RenderMS: [2]float64{warmed[len(warmed)/2], warmed[len(warmed)-1]}, Note: "p50/max; after Renderer.Warm"},
	}, nil
}

func ms(d time.Duration) float64 { return d.Seconds() * 1000 }

// pageCount opens path in a short-lived worker to count its pages.
func pageCount(ctx context.Context, o pdf.Options, path string) (int, error) {
	c := pdf.NewClient(o)
	defer c.Close()
	d, err := c.Open(ctx, path, "")
	if err != nil {
		return 0, err
	}
	defer d.Close()
	return d.Pages(), nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func rounded(v []float64, digits int) string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = strconv.FormatFloat(x, 'f', digits, 64)
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
