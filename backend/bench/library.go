// Package bench measures Proofglass for the lab binary (proofglass-lab bench …), never linked into the shipped ones:
// ingest CPU per page beside MuPDF's own work (Ingest), ingest and search at the size of a real library (Library),
// and OCR pages per CPU second (OCR).
package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"proofglass/backend/config"
	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/library"
	"proofglass/backend/pdf"
	"proofglass/backend/peakrss"
	"proofglass/backend/search"
	"proofglass/backend/server"
)

// LibraryOptions configures Library.
type LibraryOptions struct {
	// Sources are files or folders of PDFs (e.g. ../shared/testdata/pdf and ../shared/eval/dev/docs); they are
	// copied round after round, each copy made distinct by a trailing PDF comment, until the collection reaches
	// Docs documents and Pages pages.
	Sources []string
	Docs    int
	Pages   int
	// Dir is the data directory to build (kept afterwards); "" means a temporary one, removed at the end. An
	// existing collection there is reused when Reuse is set (search figures only).
	Dir   string
	Reuse bool
	// Workers for ingest (0: the number of CPUs); OCR enables recognition of pages without a text layer.
	Workers int
	OCR     bool
	// Exe is the shipped proofglass binary (desktop or headless CLI) that runs the new-process searches, adds and
	// deletes; "" means FindProofglass's.
	Exe string
	// Queries to search; a built-in list when empty. Searches is the number of warm searches per mode, Clients
	// the concurrent clients of the concurrency rows.
	Queries  []string
	Searches int
	Clients  int
	PDF      pdf.Options // MuPDF worker command (tests)
}

// Row is one measured figure.
type Row struct {
	What string `json:"what"`
	// N is the count the rates are over: pages for ingest rows, searches for search rows.
	N       int     `json:"n"`
	WallS   float64 `json:"wall_s"`
	CPUS    float64 `json:"cpu_s"`
	PerS    float64 `json:"per_s,omitempty"`     // N per wall second
	PerCPUS float64 `json:"per_cpu_s,omitempty"` // N per CPU second
	P50MS   float64 `json:"p50_ms,omitempty"`
	P99MS   float64 `json:"p99_ms,omitempty"`
	RSSMB   float64 `json:"peak_rss_mb,omitempty"`
	Note    string  `json:"note,omitempty"`
}

var defaultQueries = []string{
	"analysis of variance weight gain", "logistic regression plasma fibrinogen", "linear model residuals",
	"object detection backbone", "install mmdetection", "reportlab paragraph style", "blood loss estimate",
	"scatterplot matrix", "retrieval augmented generation", "attention heads", "data frame", "matrix inverse",
}

const collection = "bench"

// Library builds (or reuses) the collection and emits one Row per figure as it is measured.
func Library(ctx context.Context, o LibraryOptions, emit func(Row)) error {
	if o.Docs <= 0 {
		o.Docs = 100
	}
	if o.Pages <= 0 {
		o.Pages = 10_000
	}
	if o.Searches <= 0 {
		o.Searches = 50
	}
	if o.Clients <= 0 {
		o.Clients = 8
	}
	if len(o.Queries) == 0 {
		o.Queries = defaultQueries
	}
	if o.Exe == "" {
		exe, err := FindProofglass()
		if err != nil {
			return err
		}
		o.Exe = exe
	}
	if o.Dir == "" {
		d, err := os.MkdirTemp("", "proofglass-bench-library-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		o.Dir = d
	}
	cfg, err := config.Load(o.Dir)
	if err != nil {
		return err
	}
	if !o.Reuse {
		if err := ingestLibrary(ctx, o, cfg, emit); err != nil {
			return err
		}
	}
	if err := newProcessSearches(ctx, o, emit); err != nil {
		return err
	}
	if err := addAndDelete(ctx, o, emit); err != nil {
		return err
	}
	return warmSearches(ctx, o, cfg, emit)
}

// FindProofglass is the shipped binary the library benchmark starts: proofglass beside this executable (in build/bin,
// from make build), else proofglass-cli beside it (make lab builds it), else proofglass on PATH.
func FindProofglass() (string, error) {
	if self, err := os.Executable(); err == nil {
		for _, name := range []string{"proofglass", "proofglass-cli"} {
			p := filepath.Join(filepath.Dir(self), name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
				return p, nil
			}
		}
	}
	p, err := exec.LookPath("proofglass")
	if err != nil {
		return "", fmt.Errorf("bench library: no proofglass binary beside this one or on PATH (make lab builds proofglass-cli beside proofglass-lab; or pass --proofglass): %w", err)
	}
	return p, nil
}

// addAndDelete adds one more document to the full library and deletes it again, each as a new `proofglass` process (as
// a user at a terminal would), with a search after each: what one change costs once the library is large — the
// dense index brought up to date and saved, not rebuilt or rewritten.
func addAndDelete(ctx context.Context, o LibraryOptions, emit func(Row)) error {
	files, err := sourceFiles(o.Sources)
	if err != nil {
		return err
	}
	// The smallest source of at least 5 pages: a short report, as users add them one at a time.
	c := pdf.NewClient(o.PDF)
	defer c.Close()
	var small string
	var size int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil || (small != "" && st.Size() >= size) {
			continue
		}
		if d, err := c.Open(ctx, f, ""); err == nil {
			if d.Pages() >= 5 {
				small, size = f, st.Size()
			}
			d.Close()
		}
	}
	if small == "" {
		return nil
	}
	data, err := os.ReadFile(small)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "proofglass-bench-add-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	copyPath := filepath.Join(dir, "added-"+filepath.Base(small))
	data = append(data, []byte(fmt.Sprintf("\n%% proofglass bench added %d\n", time.Now().UnixNano()))...)
	if err := os.WriteFile(copyPath, data, 0o644); err != nil {
		return err
	}
	run := func(what string, args ...string) ([]byte, error) {
		c, err := runChild(ctx, o, args...)
		if err != nil {
			return nil, err
		}
		emit(Row{What: what, N: 1, WallS: c.wall, CPUS: c.cpu, P50MS: c.wall * 1000, RSSMB: c.rssMB})
		return c.stdout, nil
	}
	args := []string{"add", "--json", "--collection", collection, copyPath}
	if !o.OCR {
		args = append(args, "--no-ocr")
	}
	out, err := run("add a document, new process ("+filepath.Base(small)+")", args...)
	if err != nil {
		return err
	}
	var id int64
	for line := range bytes.Lines(out) {
		var ev struct {
			Document struct {
				ID int64 `json:"id"`
			} `json:"document"`
		}
		if json.Unmarshal(line, &ev) == nil && ev.Document.ID > 0 {
			id = ev.Document.ID
		}
	}
	if id == 0 {
		return fmt.Errorf("bench: no document id in the output of proofglass add: %s", out)
	}
	q := o.Queries[0]
	if _, err := run("search after the add, new process (hybrid)", "search", "--json", "--k", "10", q); err != nil {
		return err
	}
	if _, err := run("delete that document, new process", "documents", "delete", fmt.Sprint(id)); err != nil {
		return err
	}
	_, err = run("search after the delete, new process (hybrid)", "search", "--json", "--k", "10", q)
	return err
}

// sourceFiles lists the PDFs under the sources, in a stable order.
func sourceFiles(sources []string) ([]string, error) {
	var out []string
	for _, s := range sources {
		err := filepath.WalkDir(s, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".pdf") {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("bench: sources: %w", err)
		}
	}
	sort.Strings(out)
	return out, nil
}

// makeCopies writes distinct copies of the readable source PDFs into dir until there are at least docs files and
// pages pages. Round 0 is the original bytes; later rounds append a PDF comment after %%EOF, which readers ignore
// but which changes the sha256, so each copy is a document of its own.
func makeCopies(ctx context.Context, o LibraryOptions, dir string) ([]string, int, error) {
	files, err := sourceFiles(o.Sources)
	if err != nil {
		return nil, 0, err
	}
	c := pdf.NewClient(o.PDF)
	defer c.Close()
	type src struct {
		path  string
		pages int
		data  []byte
	}
	var srcs []src
	for _, f := range files {
		d, err := c.Open(ctx, f, "")
		if err != nil {
			continue // damaged or encrypted test files: not library material
		}
		n := d.Pages()
		d.Close()
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, 0, err
		}
		if n > 0 {
			srcs = append(srcs, src{f, n, data})
		}
	}
	if len(srcs) == 0 {
		return nil, 0, fmt.Errorf("bench: no readable PDF under %s", strings.Join(o.Sources, ", "))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	var out []string
	pages := 0
	for round := 0; len(out) < o.Docs || pages < o.Pages; round++ {
		for _, s := range srcs {
			if len(out) >= o.Docs && pages >= o.Pages {
				break
			}
			data := s.data
			if round > 0 {
				data = append(slices.Clone(data), []byte(fmt.Sprintf("\n%% proofglass bench copy %d\n", round))...)
			}
			p := filepath.Join(dir, fmt.Sprintf("r%02d-%s", round, filepath.Base(s.path)))
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return nil, 0, err
			}
			out = append(out, p)
			pages += s.pages
		}
	}
	return out, pages, nil
}

func ingestLibrary(ctx context.Context, o LibraryOptions, cfg *config.Config, emit func(Row)) error {
	files, pages, err := makeCopies(ctx, o, filepath.Join(o.Dir, "sources"))
	if err != nil {
		return err
	}
	k, err := kb.Open(ctx, cfg.DBPath(), cfg.BlobDir())
	if err != nil {
		return err
	}
	defer k.Close()
	in := ingest.New(k, cfg, ingest.Options{Workers: o.Workers, NoOCR: !o.OCR, PDF: o.PDF})
	self0, kids0 := cpuTimes()
	start := time.Now()
	res, err := in.Add(ctx, collection, files, nil)
	wall := time.Since(start).Seconds()
	stats := in.Stats()
	in.Close() // the MuPDF workers exit, so their CPU time is counted
	if err != nil {
		return err
	}
	self1, kids1 := cpuTimes()
	failed := 0
	got := 0
	for _, r := range res {
		if r.Document.Status != kb.StatusReady {
			failed++
			continue
		}
		got += r.Document.Pages
	}
	cpu := (self1 - self0 + kids1 - kids0).Seconds()
	note := fmt.Sprintf("%d documents (%d failed), %d workers, ocr %v; CPU: proofglass %.0f s + workers/tesseract %.0f s",
		len(res), failed, in.Workers(), o.OCR, (self1 - self0).Seconds(), (kids1 - kids0).Seconds())
	if got != pages {
		note += fmt.Sprintf("; %d pages planned", pages)
	}
	emit(Row{What: "ingest: all stages", N: got, WallS: wall, CPUS: cpu, PerS: float64(got) / wall, PerCPUS: float64(got) / cpu,
		RSSMB: peakrss.MB(), Note: note})
	// Stage rows: busy seconds summed over goroutines (a stage overlapping others can exceed the wall time).
	for _, s := range []struct {
		name string
		n    int64
		secs float64
	}{
		{"ingest stage: extract (busy)", stats.ExtractUnits, stats.ExtractSeconds},
		{"ingest stage: OCR (busy)", stats.OCRUnits, stats.OCRSeconds},
		{"ingest stage: embed (busy)", stats.EmbedUnits, stats.EmbedSeconds},
		{"ingest stage: dense index (busy)", int64(got), stats.IndexSeconds},
	} {
		r := Row{What: s.name, N: int(s.n), WallS: s.secs}
		if s.secs > 0 {
			r.PerS = float64(s.n) / s.secs
		}
		r.Note = "units per busy second"
		emit(r)
	}
	return nil
}

// child is one finished `proofglass` process: its wall time, CPU (its own and that of the children it waited for, such
// as MuPDF workers), peak RSS and standard output.
type child struct {
	wall, cpu, rssMB float64
	stdout           []byte
}

// runChild runs the proofglass binary on the library with args, as a user at a terminal would.
func runChild(ctx context.Context, o LibraryOptions, args ...string) (child, error) {
	rssFile, err := os.CreateTemp("", "proofglass-bench-rss-")
	if err != nil {
		return child{}, err
	}
	rssFile.Close()
	defer os.Remove(rssFile.Name())
	cmd := exec.CommandContext(ctx, o.Exe, append([]string{"--data", o.Dir, "--peak-rss-file", rssFile.Name()}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return child{}, fmt.Errorf("bench: %s: %w: %s", strings.Join(cmd.Args, " "), err, stderr.String())
	}
	c := child{wall: time.Since(start).Seconds(), stdout: stdout.Bytes()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		c.cpu = tv(ru.Utime) + tv(ru.Stime)
	}
	// wait4's peak counts the child's moments before exec, in this process's memory: the child reports its own.
	if b, err := os.ReadFile(rssFile.Name()); err == nil {
		c.rssMB, _ = strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	}
	return c, nil
}

// newProcessSearches runs `proofglass search` as a new process per query, as a user at a terminal would: the first
// after the ingest (nothing in the page cache beyond what ingest left) and then one per query.
func newProcessSearches(ctx context.Context, o LibraryOptions, emit func(Row)) error {
	for _, mode := range []string{"hybrid", "dense", "bm25"} {
		var lat, cpu []float64
		var peak float64
		n := min(len(o.Queries), o.Searches)
		for i := range n {
			c, err := runChild(ctx, o, "search", "--json", "--k", "10", "--mode", mode, o.Queries[i])
			if err != nil {
				return err
			}
			lat, cpu, peak = append(lat, c.wall), append(cpu, c.cpu), max(peak, c.rssMB)
			if i == 0 {
				emit(Row{What: "search, new process, first (" + mode + ")", N: 1, WallS: c.wall, CPUS: c.cpu, P50MS: c.wall * 1000,
					RSSMB: c.rssMB})
			}
		}
		emit(latencyRow("search, new process ("+mode+")", lat, sum(lat), sum(cpu), peak))
	}
	return nil
}

// warmSearches measures searches in a warm process: the library's searcher directly, then through the HTTP server,
// one client and then Clients at once.
func warmSearches(ctx context.Context, o LibraryOptions, cfg *config.Config, emit func(Row)) error {
	lib, err := library.OpenConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer lib.Close()
	// A warm process (the window, `proofglass serve`) ranks words from its in-memory index: build it first and say what
	// that cost.
	self0, _ := cpuTimes()
	t0 := time.Now()
	lib.Searcher.UseLexicalIndex()
	if err := lib.Searcher.WarmLexical(ctx); err != nil {
		return err
	}
	self1, _ := cpuTimes()
	emit(Row{What: "word index built in memory", N: 1, WallS: time.Since(t0).Seconds(), CPUS: (self1 - self0).Seconds(),
		RSSMB: peakrss.MB()})
	for _, mode := range []search.Mode{search.Hybrid, search.Dense, search.BM25} {
		q := func(i int) error {
			_, err := lib.Searcher.Search(ctx, search.Query{Text: o.Queries[i%len(o.Queries)], K: 10, Mode: mode})
			return err
		}
		if err := measure(ctx, fmt.Sprintf("search, in process, warm (%s)", mode), o.Searches, 1, q, emit, true); err != nil {
			return err
		}
		if err := measure(ctx, fmt.Sprintf("search, in process, %d clients (%s)", o.Clients, mode), o.Searches, o.Clients, q, emit, false); err != nil {
			return err
		}
	}
	token, err := server.NewToken()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv, err := server.New(lib, server.Options{Token: token, Addr: ln.Addr().String()})
	if err != nil {
		ln.Close()
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	defer hs.Close()
	url := "http://" + ln.Addr().String() + "/search"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.Clients}}
	post := func(i int) error {
		body, _ := json.Marshal(map[string]any{"queries": []string{o.Queries[i%len(o.Queries)]}, "top_k": 10})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("bench: POST /search: %s", resp.Status)
		}
		return nil
	}
	// The server answers with page image files (VRAG's API), rendered on a page's first hit and cached: the first
	// pass over the queries renders, the measured ones after it find them.
	if err := measure(ctx, "search, server, first pass (renders page files)", len(o.Queries), 1, post, emit, true); err != nil {
		return err
	}
	if err := measure(ctx, "search, warm server, 1 client (POST /search)", o.Searches, 1, post, emit, false); err != nil {
		return err
	}
	return measure(ctx, fmt.Sprintf("search, warm server, %d clients (POST /search)", o.Clients), o.Searches, o.Clients, post, emit, false)
}

// measure runs n searches per client on clients goroutines and emits their latencies; with first it also emits the
// first search alone (a process's first search opens the index).
func measure(ctx context.Context, what string, n, clients int, fn func(int) error, emit func(Row), first bool) error {
	if first {
		self0, _ := cpuTimes()
		start := time.Now()
		if err := fn(0); err != nil {
			return err
		}
		el := time.Since(start).Seconds()
		self1, _ := cpuTimes()
		emit(Row{What: strings.Replace(what, "warm", "first", 1), N: 1, WallS: el, CPUS: (self1 - self0).Seconds(), P50MS: el * 1000})
	}
	lats := make([][]float64, clients)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	if clients > 1 {
		// A warm server has a connection open per concurrent search: open them (one untimed round) first, or the
		// first round pays for opening them and is all of p99.
		for c := range clients {
			wg.Go(func() { errs[c] = fn(c) })
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
	}
	self0, _ := cpuTimes()
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				if ctx.Err() != nil {
					errs[c] = ctx.Err()
					return
				}
				t := time.Now()
				if err := fn(c*n + i + 1); err != nil {
					errs[c] = err
					return
				}
				lats[c] = append(lats[c], time.Since(t).Seconds())
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start).Seconds()
	self1, _ := cpuTimes()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	emit(latencyRow(what, slices.Concat(lats...), wall, (self1 - self0).Seconds(), peakrss.MB()))
	return nil
}

func latencyRow(what string, lat []float64, wall, cpu, rss float64) Row {
	s := slices.Clone(lat)
	slices.Sort(s)
	r := Row{What: what, N: len(s), WallS: wall, CPUS: cpu, RSSMB: rss}
	if len(s) > 0 {
		r.P50MS = s[len(s)/2] * 1000
		r.P99MS = s[min(len(s)-1, (len(s)*99+99)/100-1)] * 1000
	}
	if wall > 0 {
		r.PerS = float64(len(s)) / wall
	}
	if cpu > 0 {
		r.PerCPUS = float64(len(s)) / cpu
	}
	return r
}

func sum(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

func cpuTimes() (self, children time.Duration) {
	var s, c syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &s)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c)
	d := func(ru syscall.Rusage) time.Duration {
		return time.Duration((tv(ru.Utime) + tv(ru.Stime)) * float64(time.Second))
	}
	return d(s), d(c)
}
