package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"proofglass/backend/library"
	"proofglass/backend/pagecache"
)

// BenchmarkVRAGSearch measures what VRAG-RL's rollout does: one request of 100 queries (top_k 10), cold (no page
// files: every returned page rendered) and warm, the cold request again with one render worker as the baseline of
// parallel rendering, and the latency of 100-query requests from 8 concurrent clients (p99/p50). Run:
//
//	go test ./backend/server -run '^$' -bench VRAGSearch -benchtime 1x
//	PROOFGLASS_BENCH_WORKERS=8 go test ./backend/server -run '^$' -bench VRAGSearch -benchtime 1x   # as with 8 cores
func BenchmarkVRAGSearch(b *testing.B) {
	f := newFixture(b, nil)
	lib := f.lib
	// 100 queries made of the corpus's own words, so they hit many different pages.
	var words []string
	lib.KB.Search.EachLibraryUnitText(context.Background(), func(t string) error {
		for _, w := range strings.Fields(t) {
			if len(w) > 6 && !slices.Contains(words, w) {
				words = append(words, w)
			}
		}
		return nil
	})
	qs := make([]string, 100)
	for i := range qs {
		qs[i] = words[(i*7)%len(words)] + " " + words[(i*13+5)%len(words)]
	}
	body, _ := json.Marshal(map[string]any{"queries": qs, "top_k": 10, "vrag_ret": true})

	request := func(url string) time.Duration {
		start := time.Now()
		req, _ := http.NewRequest("POST", url+"/search", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var lists [][]legacyItem
		if err := json.NewDecoder(resp.Body).Decode(&lists); err != nil || resp.StatusCode != 200 || len(lists) != 100 {
			b.Fatalf("status %d, %d lists: %v", resp.StatusCode, len(lists), err)
		}
		resp.Body.Close()
		return time.Since(start)
	}
	serve := func(workers int) (string, func()) {
		s, err := New(lib, Options{Addr: "127.0.0.1:0", Workers: workers, QueueWait: 10 * time.Minute})
		if err != nil {
			b.Fatal(err)
		}
		srv := httptest.NewServer(s)
		return srv.URL, func() { srv.Close(); s.Close() }
	}
	emptyCache := func() {
		os.RemoveAll(library.PagesDir(lib.Config))
		lib.Pages = pagecache.New(library.PagesDir(lib.Config), pagecache.Options{})
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

	var cold1, cold, warm time.Duration
	var lat []time.Duration
	b.ResetTimer()
	for range b.N {
		emptyCache()
		url, stop := serve(1)
		request(url) // starts the one MuPDF worker, loads the index
		emptyCache()
		cold1 += request(url)
		stop()

		// PROOFGLASS_BENCH_WORKERS sizes the server as on a machine with that many cores (default: this one's).
		workers, _ := strconv.Atoi(os.Getenv("PROOFGLASS_BENCH_WORKERS"))
		url, stop = serve(workers)
		request(url) // warm up the searcher and start the workers
		emptyCache()
		cold += request(url)
		warm += request(url)

		var mu sync.Mutex
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 5 {
					d := request(url)
					mu.Lock()
					lat = append(lat, d)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		stop()
	}
	b.StopTimer()
	n := time.Duration(b.N)
	slices.Sort(lat)
	p50, p99 := lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
	b.ReportMetric(ms(cold/n), "cold-ms")
	b.ReportMetric(ms(warm/n), "warm-ms")
	b.ReportMetric(float64(cold)/float64(warm), "cold/warm")
	b.ReportMetric(float64(cold1)/float64(cold), "serial/parallel-cold")
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p99), "p99-ms")
	b.ReportMetric(float64(p99)/float64(p50), "p99/p50")
	_, files := lib.Pages.Size()
	fmt.Printf("VRAG search, 100 queries × top_k 10, %d pages rendered cold, %d CPUs: cold %.0f ms (1 render worker: %.0f ms, %.2fx), warm %.0f ms (cold/warm %.1fx); 8 clients × 5 requests: p50 %.0f ms, p99 %.0f ms, p99/p50 %.2f (requests are admitted in arrival order)\n",
		files, runtime.NumCPU(), ms(cold/n), ms(cold1/n), float64(cold1)/float64(cold), ms(warm/n), float64(cold)/float64(warm), ms(p50), ms(p99), float64(p99)/float64(p50))
}
