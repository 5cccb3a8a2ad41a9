package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"proofglass/backend/ingest"
	"proofglass/backend/library"
	"proofglass/backend/pagecache"
	"proofglass/backend/pagefile"
	"proofglass/backend/pdf"
	"proofglass/backend/search"
	"proofglass/backend/server"
)

// WarmOptions configure Warm.
type WarmOptions struct {
	Path    string // the PDF
	Pages   int    // its first N pages (0 = all); needs mutool to copy them
	Workers int    // render workers and pdftoppm processes (0 = number of CPUs)
	Queries int    // queries per VRAG-RL request (0 = 100)
	TopK    int    // pages per query (0 = 10, VRAG-RL's)
}

// WarmRow is one way of rendering the same pages at 200 DPI.
type WarmRow struct {
	Name      string  `json:"name"`
	Pages     int     `json:"pages"`
	Seconds   float64 `json:"seconds"`
	PagesPS   float64 `json:"pages_per_s"`
	CPUms     float64 `json:"cpu_ms_per_page"`
	KBPerPage float64 `json:"kb_per_page"`
}

// WarmResult is what Warm measured.
type WarmResult struct {
	Rows []WarmRow `json:"rows"`
	// A VRAG-RL request (Queries × TopK) against a fresh server: with an empty cache (cold), after warming (first),
	// and again (warm); and the latencies of 8 clients sending such requests at once.
	Pages      int     `json:"pages_in_request"`
	ColdMS     float64 `json:"cold_ms"`
	FirstMS    float64 `json:"first_after_warming_ms"`
	WarmMS     float64 `json:"warm_ms"`
	FirstRatio float64 `json:"first_over_warm"`
	P50MS      float64 `json:"clients8_p50_ms"`
	P99MS      float64 `json:"clients8_p99_ms"`
	P99OverP50 float64 `json:"clients8_p99_over_p50"`
}

// Warm measures `proofglass cache warm` against `pdftoppm -r 200 -jpeg` (what VRAG's pdf2images.py runs) on the same
// pages, one process and Workers processes, in one run: pages per second and CPU per page (MuPDF workers and
// pdftoppm included). Then VRAG-RL's 100-query request on a fresh server: cold, first after warming, warm; and
// 8 clients × 5 such requests (p99/p50).
func Warm(ctx context.Context, o WarmOptions) (WarmResult, error) {
	var res WarmResult
	if o.Workers <= 0 {
		o.Workers = runtime.NumCPU()
	}
	if o.Queries <= 0 {
		o.Queries = 100
	}
	if o.TopK <= 0 {
		o.TopK = 10
	}
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		return res, fmt.Errorf("bench warm: pdftoppm is the baseline and is not installed (Debian: poppler-utils)")
	}
	dir, err := os.MkdirTemp("", "proofglass-bench-warm-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	src, err := firstPages(ctx, dir, o.Path, o.Pages)
	if err != nil {
		return res, err
	}
	lib, err := library.Open(ctx, filepath.Join(dir, "data"))
	if err != nil {
		return res, err
	}
	defer lib.Close()
	in := ingest.New(lib.KB, lib.Config, ingest.Options{NoOCR: true})
	r, err := in.Add(ctx, "bench", []string{src}, nil)
	in.Close()
	if err != nil {
		return res, err
	}
	if r[0].Error != "" {
		return res, fmt.Errorf("bench warm: ingest %s: %s", src, r[0].Error)
	}
	b := &warmBench{ctx: ctx, lib: lib, dir: dir, src: src, pages: r[0].Document.Pages}

	// One process, then Workers, each of pdftoppm and of the cache's warming; the last cache serves the requests.
	var warmed *pagecache.Cache
	for _, step := range []func() (WarmRow, error){
		func() (WarmRow, error) { return b.pdftoppm(1) },
		func() (WarmRow, error) { row, _, err := b.cacheWarm(1); return row, err },
		func() (WarmRow, error) { return b.pdftoppm(o.Workers) },
		func() (WarmRow, error) {
			row, pc, err := b.cacheWarm(o.Workers)
			warmed = pc
			return row, err
		},
	} {
		row, err := step()
		if err != nil {
			return res, err
		}
		res.Rows = append(res.Rows, row)
	}

	qs, err := b.queries(o.Queries)
	if err != nil {
		return res, err
	}
	err = b.requests(&res, o, qs, warmed)
	return res, err
}

// warmBench is one Warm run: the library that holds the ingested PDF and its scratch folder.
type warmBench struct {
	ctx   context.Context
	lib   *library.Library
	dir   string
	src   string // the PDF ingested
	pages int
}

// firstPages is path, or a copy of its first pages in dir when it has more (pages 0: all of them).
func firstPages(ctx context.Context, dir, path string, pages int) (string, error) {
	if pages <= 0 {
		return path, nil
	}
	n, err := pageCount(ctx, pdf.Options{}, path)
	if err != nil {
		return "", err
	}
	if pages >= n {
		return path, nil
	}
	src := filepath.Join(dir, strings.TrimSuffix(filepath.Base(path), ".pdf")+"-first"+strconv.Itoa(pages)+".pdf")
	if b, err := exec.CommandContext(ctx, "mutool", "clean", path, src, "1-"+strconv.Itoa(pages)).CombinedOutput(); err != nil {
		return "", fmt.Errorf("bench warm: copy the first %d pages (needs mutool): %v %s", pages, err, b)
	}
	return src, nil
}

// pdftoppm renders every page with pdftoppm in ranges of pages, procs processes at once.
func (b *warmBench) pdftoppm(procs int) (WarmRow, error) {
	out := filepath.Join(b.dir, "ppm-"+strconv.Itoa(procs))
	os.MkdirAll(out, 0o700)
	defer os.RemoveAll(out)
	pages := b.pages
	row := WarmRow{Name: fmt.Sprintf("pdftoppm -r 200 -jpeg, %d process(es)", procs), Pages: pages}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var cpu time.Duration
	var firstErr error
	start := time.Now()
	per := (pages + procs - 1) / procs
	for first := 1; first <= pages; first += per {
		last := min(pages, first+per-1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := exec.CommandContext(b.ctx, "pdftoppm", "-r", "200", "-jpeg", "-f", strconv.Itoa(first), "-l", strconv.Itoa(last),
				b.src, filepath.Join(out, "p"))
			msg, err := c.CombinedOutput()
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = fmt.Errorf("pdftoppm: %v %s", err, msg)
			}
			if c.ProcessState != nil {
				cpu += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
			}
		}()
	}
	wg.Wait()
	row.Seconds = time.Since(start).Seconds()
	row.CPUms = ms(cpu) / float64(pages)
	row.PagesPS = float64(pages) / row.Seconds
	row.KBPerPage = float64(dirBytes(out)) / 1024 / float64(pages)
	return row, firstErr
}

// cacheWarm runs proofglass cache warm into a fresh cache with workers MuPDF workers; the cache is returned for the
// requests.
func (b *warmBench) cacheWarm(workers int) (WarmRow, *pagecache.Cache, error) {
	pc := pagecache.New(filepath.Join(b.dir, "cache-"+strconv.Itoa(workers)), pagecache.Options{MaxBytes: 64 << 30})
	m := pagefile.New(b.lib.KB, pc, b.lib.PDFPassword, workers)
	self0, kids0 := cpuTimes()
	start := time.Now()
	rep, err := m.Warm(b.ctx, nil, nil)
	el := time.Since(start)
	m.Close() // the workers exit, so their CPU time is counted
	self1, kids1 := cpuTimes()
	row := WarmRow{Name: fmt.Sprintf("proofglass cache warm, %d worker(s)", workers), Pages: rep.Made,
		Seconds: el.Seconds(), PagesPS: float64(rep.Made) / el.Seconds(),
		CPUms: ms(self1-self0+kids1-kids0) / float64(max(1, rep.Made)), KBPerPage: float64(rep.Bytes) / 1024 / float64(max(1, rep.Made))}
	if err == nil && rep.Failed > 0 {
		err = fmt.Errorf("bench warm: %d pages failed: %v", rep.Failed, rep.Errors[0])
	}
	return row, pc, err
}

// queries makes VRAG-RL's request of n queries out of the library's own words, so they hit many different pages.
func (b *warmBench) queries(n int) ([]string, error) {
	var words []string
	seen := map[string]bool{}
	err := b.lib.KB.Search.EachLibraryUnitText(b.ctx, func(t string) error {
		for _, w := range strings.Fields(t) {
			if len(w) > 6 && !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("bench warm: %s has no words to query", b.src)
	}
	qs := make([]string, n)
	for i := range qs {
		qs[i] = words[(i*7)%len(words)] + " " + words[(i*13+5)%len(words)]
	}
	return qs, nil
}

// requests times the request qs on a fresh server: with an empty cache (cold), then with the warmed cache twice
// (first, warm), then from 8 clients × 5 requests at once.
func (b *warmBench) requests(res *WarmResult, o WarmOptions, qs []string, warmed *pagecache.Cache) error {
	body, _ := json.Marshal(map[string]any{"queries": qs, "top_k": o.TopK, "vrag_ret": true})
	request := func(url string) (time.Duration, error) {
		start := time.Now()
		resp, err := http.Post(url+"/search", "application/json", bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		var lists [][]map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&lists); err != nil || resp.StatusCode != 200 || len(lists) != len(qs) {
			return 0, fmt.Errorf("bench warm: /search: status %d, %d lists: %v", resp.StatusCode, len(lists), err)
		}
		return time.Since(start), nil
	}
	serve := func(pc *pagecache.Cache) (string, func(), error) {
		b.lib.Pages = pc
		s, err := server.New(b.lib, server.Options{Addr: "127.0.0.1:0", Workers: o.Workers, QueueWait: 10 * time.Minute})
		if err != nil {
			return "", nil, err
		}
		srv := httptest.NewServer(s)
		return srv.URL, func() { srv.Close(); s.Close() }, nil
	}
	// The searcher's indexes load once, before any timed request, as a long-running server has them.
	b.lib.Searcher.UseLexicalIndex()
	if _, err := b.lib.Searcher.Search(b.ctx, search.Query{Text: qs[0], K: o.TopK}); err != nil {
		return err
	}
	url, stop, err := serve(pagecache.New(filepath.Join(b.dir, "cache-cold"), pagecache.Options{MaxBytes: 64 << 30}))
	if err != nil {
		return err
	}
	cold, err := request(url)
	stop()
	if err != nil {
		return err
	}
	url, stop, err = serve(warmed)
	if err != nil {
		return err
	}
	defer stop()
	first, err := request(url)
	if err != nil {
		return err
	}
	again, err := request(url)
	if err != nil {
		return err
	}
	res.Pages = len(qs) * o.TopK
	res.ColdMS, res.FirstMS, res.WarmMS = ms(cold), ms(first), ms(again)
	res.FirstRatio = res.FirstMS / res.WarmMS
	lat, err := concurrently(8, 5, func() (time.Duration, error) { return request(url) })
	if err != nil {
		return err
	}
	res.P50MS, res.P99MS = ms(lat[len(lat)/2]), ms(lat[min(len(lat)-1, len(lat)*99/100)])
	res.P99OverP50 = res.P99MS / res.P50MS
	return nil
}

// concurrently runs request each times from clients goroutines at once and returns the latencies, sorted, and an
// error of one of them.
func concurrently(clients, each int, request func() (time.Duration, error)) ([]time.Duration, error) {
	var lat []time.Duration
	var mu sync.Mutex
	var wg sync.WaitGroup
	var reqErr error
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				d, err := request()
				mu.Lock()
				lat = append(lat, d)
				if err != nil {
					reqErr = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.Sort(lat)
	return lat, reqErr
}

// dirBytes is the size of the files in dir.
func dirBytes(dir string) int64 {
	var n int64
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
	}
	return n
}
