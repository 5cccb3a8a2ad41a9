package vector

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lowRank makes n vectors of dim dims lying near a latent-dimensional subspace, like real embeddings.
func lowRank(n, dims, latent int, seed uint64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	proj := make([]float32, latent*dims)
	for i := range proj {
		proj[i] = float32(r.NormFloat64())
	}
	out := make([][]float32, n)
	z := make([]float32, latent)
	for i := range out {
		for j := range z {
			z[j] = float32(r.NormFloat64())
		}
		v := make([]float32, dims)
		for d := range v {
			var s float32
			for j, zj := range z {
				s += zj * proj[j*dims+d]
			}
			v[d] = s + 0.05*float32(r.NormFloat64())
		}
		out[i] = v
	}
	return out
}

func seqIDs(n int, base int64) []int64 {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = base + int64(i)
	}
	return ids
}

// recall is the share of exact's ids that got also found.
func recall(t *testing.T, exact, got Index, qs [][]float32, k int, f *Filter) float64 {
	t.Helper()
	hit, total := 0, 0
	for _, q := range qs {
		want, err := exact.Search(q, k, f)
		if err != nil {
			t.Fatal(err)
		}
		res, err := got.Search(q, k, f)
		if err != nil {
			t.Fatal(err)
		}
		in := map[int64]bool{}
		for _, r := range res {
			in[r.ID] = true
		}
		for _, w := range want {
			total++
			if in[w.ID] {
				hit++
			}
		}
	}
	if total == 0 {
		t.Fatal("exact search found nothing")
	}
	return float64(hit) / float64(total)
}

func build(t *testing.T, c Config, vecs [][]float32) (*Exact, *HNSW) {
	t.Helper()
	e, err := NewExact(c)
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHNSW(c)
	if err != nil {
		t.Fatal(err)
	}
	ids := seqIDs(len(vecs), 1)
	if err := e.AddBatch(ids, vecs); err != nil {
		t.Fatal(err)
	}
	if err := h.AddBatch(ids, vecs); err != nil {
		t.Fatal(err)
	}
	return e, h
}

func TestRecallAgainstExact(t *testing.T) {
	all := lowRank(3100, 48, 16, 7)
	vecs, qs := all[:3000], all[3000:] // queries: same subspace, unseen points
	for name, m := range map[string]Metric{"cosine": Cosine, "dot": Dot, "l2": L2} {
		t.Run(name, func(t *testing.T) {
			n := 3000
			if m != Cosine {
				n = 2000 // the primary metric gets the full size; the others share its code paths
			}
			e, h := build(t, Config{Dims: 48, Metric: m}, vecs[:n])
			if r := recall(t, e, h, qs, 10, nil); r < 0.95 {
				t.Fatalf("recall@10 = %.3f, want ≥ 0.95", r)
			}
		})
	}
}

func TestDeleteAndReAdd(t *testing.T) {
	vecs := lowRank(2000, 32, 8, 3)
	c := Config{Dims: 32, Metric: Cosine, RebuildFraction: -1}
	e, h := build(t, c, vecs)
	for id := int64(1); id <= 600; id++ {
		if !h.Delete(id) || !e.Delete(id) {
			t.Fatalf("delete %d: not found", id)
		}
	}
	if h.Delete(5) {
		t.Fatal("second delete of 5 reported success")
	}
	if h.Len() != 1400 || h.Tombstones() != 600 {
		t.Fatalf("len %d tombstones %d, want 1400 and 600", h.Len(), h.Tombstones())
	}
	for i := 0; i < 50; i++ {
		res, _ := h.Search(vecs[i], 10, nil) // the deleted vectors themselves
		for _, r := range res {
			if r.ID <= 600 {
				t.Fatalf("deleted id %d returned", r.ID)
			}
		}
	}
	qs := vecs[1000:1100]
	if r := recall(t, e, h, qs, 10, nil); r < 0.95 {
		t.Fatalf("recall after deletes = %.3f", r)
	}
	// Re-add deleted ids under new vectors: each must be its own nearest neighbour.
	fresh := lowRank(100, 32, 8, 99)
	for i, v := range fresh {
		if err := h.Add(int64(i+1), v); err != nil {
			t.Fatal(err)
		}
		e.Add(int64(i+1), v)
	}
	for i, v := range fresh {
		res, _ := h.Search(v, 1, nil)
		if len(res) != 1 || res[0].ID != int64(i+1) {
			t.Fatalf("re-added id %d: search gave %v", i+1, res)
		}
	}
	// Replacing a live id keeps one entry for it.
	if err := h.Add(1500, fresh[0]); err != nil {
		t.Fatal(err)
	}
	e.Add(1500, fresh[0])
	if h.Len() != 1500 {
		t.Fatalf("len after re-add and replace = %d, want 1500", h.Len())
	}
	h.Rebuild()
	if h.Tombstones() != 0 || h.Len() != 1500 {
		t.Fatalf("after rebuild: len %d tombstones %d", h.Len(), h.Tombstones())
	}
	if r := recall(t, e, h, qs, 10, nil); r < 0.95 {
		t.Fatalf("recall after rebuild = %.3f", r)
	}
}

func TestConcurrentAddDeleteSearch(t *testing.T) {
	vecs := lowRank(2400, 32, 8, 5)
	h, err := NewHNSW(Config{Dims: 32, Metric: L2, RebuildFraction: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.AddBatch(seqIDs(400, 0), vecs[:400]); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() { // writers: add a stripe, delete every third
			defer wg.Done()
			for i := 400 + w; i < len(vecs); i += 4 {
				if err := h.Add(int64(i), vecs[i]); err != nil {
					t.Error(err)
					return
				}
				if i%3 == 0 {
					h.Delete(int64(i))
				}
			}
		}()
	}
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				res, err := h.Search(vecs[(i*7+w)%len(vecs)], 5, nil)
				if err != nil || len(res) == 0 {
					t.Errorf("search: %v %v", res, err)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() { defer wg.Done(); h.Rebuild() }() // a rebuild racing the writers must lose nothing
	wg.Wait()
	want := 400
	for i := 400; i < len(vecs); i++ {
		if i%3 != 0 {
			want++
		}
	}
	if h.Len() != want {
		t.Fatalf("len = %d, want %d", h.Len(), want)
	}
	e, _ := NewExact(Config{Dims: 32, Metric: L2})
	for i, v := range vecs {
		if i < 400 || i%3 != 0 {
			e.Add(int64(i), v)
		}
	}
	if r := recall(t, e, h, vecs[:100], 10, nil); r < 0.95 {
		t.Fatalf("recall after concurrent build = %.3f", r)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	vecs := lowRank(1500, 48, 12, 11)
	qs := vecs[:40]
	mk := map[string]func() Index{
		"hnsw":      func() Index { h, _ := NewHNSW(Config{Dims: 48, Metric: Cosine}); return h },
		"exact-f32": func() Index { e, _ := NewExact(Config{Dims: 48, Metric: L2}); return e },
		"exact-f16": func() Index { e, _ := NewExact(Config{Dims: 48, Metric: L2, Storage: F16}); return e },
		"exact-i8":  func() Index { e, _ := NewExact(Config{Dims: 48, Metric: Cosine, Storage: I8}); return e },
		"auto":      func() Index { a, _ := NewAuto(Config{Dims: 48, Metric: Cosine, Crossover: 1000}); return a },
	}
	for name, newIx := range mk {
		t.Run(name, func(t *testing.T) {
			a := newIx()
			if err := a.AddBatch(seqIDs(len(vecs), 100), vecs); err != nil {
				t.Fatal(err)
			}
			for id := int64(100); id < 150; id++ {
				a.Delete(id)
			}
			a.SetGeneration(42)
			path := filepath.Join(t.TempDir(), "ix.bin")
			if err := a.Save(path); err != nil {
				t.Fatal(err)
			}
			b := newIx()
			if err := b.Load(path); err != nil {
				t.Fatal(err)
			}
			if b.Len() != a.Len() || b.Generation() != 42 {
				t.Fatalf("loaded len %d gen %d, saved len %d gen 42", b.Len(), b.Generation(), a.Len())
			}
			for _, q := range qs {
				ra, _ := a.Search(q, 10, nil)
				rb, _ := b.Search(q, 10, nil)
				if d := cmp.Diff(ra, rb); d != "" {
					t.Fatalf("results differ after load (-saved +loaded):\n%s", d)
				}
			}
			// The loaded index keeps working: add and find a new vector.
			if err := b.Add(9999, vecs[0]); err != nil {
				t.Fatal(err)
			}
			if res, _ := b.Search(vecs[0], 2, nil); len(res) < 1 || (res[0].ID != 9999 && res[0].ID != 100) {
				t.Fatalf("after load+add, search gave %v", res)
			}
		})
	}
}

func TestCorruptFilesFail(t *testing.T) {
	vecs := lowRank(300, 16, 4, 2)
	h, _ := NewHNSW(Config{Dims: 16, Metric: Cosine})
	h.AddBatch(seqIDs(300, 1), vecs)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.bin")
	if err := h.Save(good); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(off int) []byte {
		b := append([]byte(nil), data...)
		b[off] ^= 0x40
		return b
	}
	cases := map[string][]byte{
		"empty":            nil,
		"header only":      data[:headerSize],
		"truncated half":   data[:len(data)/2],
		"truncated by one": data[:len(data)-1],
		"bad magic":        flip(0),
		"count flipped":    flip(25),
		"vector flipped":   flip(headerSize + 40),
		"link flipped":     flip(len(data) - 3),
		"trailing garbage": append(append([]byte(nil), data...), 1, 2, 3),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, "bad.bin")
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
			for ixName, ix := range map[string]Index{"hnsw": mustHNSW(t, 16), "auto": mustAuto(t, 16)} {
				err := ix.Load(p)
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("%s: load gave %v, want ErrCorrupt", ixName, err)
				}
				if ix.Len() != 0 {
					t.Fatalf("%s: failed load changed the index", ixName)
				}
			}
		})
	}
	t.Run("dimension mismatch", func(t *testing.T) {
		if err := mustHNSW(t, 32).Load(good); !errors.Is(err, ErrDims) {
			t.Fatalf("got %v, want ErrDims", err)
		}
	})
	t.Run("metric mismatch", func(t *testing.T) {
		h2, _ := NewHNSW(Config{Dims: 16, Metric: L2})
		if err := h2.Load(good); !errors.Is(err, ErrKind) {
			t.Fatalf("got %v, want ErrKind", err)
		}
	})
	t.Run("stale generation", func(t *testing.T) {
		if _, err := Open(good, Config{Dims: 16, Metric: Cosine}, 7); !errors.Is(err, ErrStale) {
			t.Fatalf("got %v, want ErrStale", err)
		}
		if a, err := Open(good, Config{Dims: 16, Metric: Cosine}, 0); err != nil || a.Len() != 300 {
			t.Fatalf("open at matching generation: %v", err)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		if err := mustHNSW(t, 16).Load(filepath.Join(dir, "none.bin")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("got %v, want not-exist", err)
		}
	})
}

func mustHNSW(t *testing.T, dims int) *HNSW {
	h, err := NewHNSW(Config{Dims: dims, Metric: Cosine})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func mustAuto(t *testing.T, dims int) *Auto {
	a, err := NewAuto(Config{Dims: dims, Metric: Cosine})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestDimensionMismatch(t *testing.T) {
	for name, ix := range map[string]Index{"hnsw": mustHNSW(t, 8), "auto": mustAuto(t, 8), "exact": func() Index { e, _ := NewExact(Config{Dims: 8}); return e }()} {
		t.Run(name, func(t *testing.T) {
			if err := ix.Add(1, make([]float32, 8)); err != nil {
				t.Fatal(err)
			}
			if err := ix.Add(2, make([]float32, 9)); !errors.Is(err, ErrDims) {
				t.Fatalf("add: got %v", err)
			}
			if err := ix.AddBatch([]int64{3}, [][]float32{make([]float32, 7)}); !errors.Is(err, ErrDims) {
				t.Fatalf("add batch: got %v", err)
			}
			if _, err := ix.Search(make([]float32, 4), 3, nil); !errors.Is(err, ErrDims) {
				t.Fatalf("search: got %v", err)
			}
			if ix.Len() != 1 {
				t.Fatalf("len %d after rejected adds", ix.Len())
			}
		})
	}
	if _, err := NewHNSW(Config{Dims: 0}); !errors.Is(err, ErrDims) {
		t.Fatalf("zero dims: %v", err)
	}
}

func TestFilteredSearchRecall(t *testing.T) {
	all := lowRank(3060, 32, 8, 21)
	vecs, qs := all[:3000], all[3000:]
	// "collection" of id is id % 100: a filter on a few collections is selective.
	inColl := func(ids ...int64) func(int64) bool {
		return func(id int64) bool {
			for _, c := range ids {
				if id%100 == c {
					return true
				}
			}
			return false
		}
	}
	var listed []int64
	for id := int64(1); id <= 3000; id += 50 {
		listed = append(listed, id)
	}
	cases := map[string]struct {
		exactBelow int
		f          *Filter
	}{
		"1% predicate, exact fallback":   {0, &Filter{Allow: inColl(7)}},
		"20% predicate, widened graph":   {100, &Filter{Allow: inColl(seqIDs(20, 0)...)}},
		"2% predicate, widened graph":    {10, &Filter{Allow: inColl(3, 4)}},
		"id list":                        {0, &Filter{IDs: listed}},
		"id list through graph":          {10, &Filter{IDs: listed}},
		"id list and predicate":          {0, &Filter{IDs: listed, Allow: func(id int64) bool { return id%3 == 0 }}},
		"50% predicate":                  {0, &Filter{Allow: func(id int64) bool { return id%2 == 0 }}},
		"predicate matching nothing":     {0, &Filter{Allow: func(int64) bool { return false }}},
		"id list with unknown and dupes": {0, &Filter{IDs: []int64{-5, 1, 1, 51, 10_000}}},
	}
	e, h := build(t, Config{Dims: 32, Metric: Cosine}, vecs)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			h.swapMu.Lock()
			h.g.exactFrom = tc.exactBelow // one graph serves every case; only the switch-over size differs
			if tc.exactBelow == 0 {
				h.g.exactFrom = h.cfg.FilterExactBelow
			}
			h.swapMu.Unlock()
			for _, q := range qs[:5] {
				res, _ := h.Search(q, 10, tc.f)
				for _, r := range res {
					if (tc.f.Allow != nil && !tc.f.Allow(r.ID)) || (tc.f.IDs != nil && !contains(tc.f.IDs, r.ID)) {
						t.Fatalf("id %d does not pass the filter", r.ID)
					}
				}
			}
			want, _ := e.Search(qs[0], 10, tc.f)
			if len(want) == 0 {
				if got, _ := h.Search(qs[0], 10, tc.f); len(got) != 0 {
					t.Fatalf("got %v, want nothing", got)
				}
				return
			}
			if r := recall(t, e, h, qs, 10, tc.f); r < 0.95 {
				t.Fatalf("filtered recall@10 = %.3f", r)
			}
		})
	}
}

func contains(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func TestAutoPromotes(t *testing.T) {
	vecs := lowRank(700, 16, 6, 8)
	a, err := NewAuto(Config{Dims: 16, Metric: Cosine, Crossover: 500})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs[:499] {
		a.Add(int64(i), v)
	}
	if a.Kind() != "exact" {
		t.Fatalf("kind %s below crossover", a.Kind())
	}
	for i, v := range vecs[499:] {
		a.Add(int64(499+i), v)
	}
	if a.Kind() != "hnsw" || a.Len() != 700 {
		t.Fatalf("kind %s len %d past crossover", a.Kind(), a.Len())
	}
	e, _ := NewExact(Config{Dims: 16, Metric: Cosine})
	e.AddBatch(seqIDs(700, 0), vecs)
	if r := recall(t, e, a, vecs[:50], 10, nil); r < 0.95 {
		t.Fatalf("recall after promotion = %.3f", r)
	}
}

func TestQuantisedStorage(t *testing.T) {
	vecs := lowRank(2000, 64, 16, 4)
	qs := lowRank(2050, 64, 16, 4)[2000:]
	for name, tc := range map[string]struct {
		s   Storage
		m   Metric
		min float64
	}{
		"f16 cosine": {F16, Cosine, 0.99},
		"f16 l2":     {F16, L2, 0.99},
		"i8 cosine":  {I8, Cosine, 0.9},
		"i8 l2":      {I8, L2, 0.9},
		"i8 dot":     {I8, Dot, 0.9},
	} {
		t.Run(name, func(t *testing.T) {
			ref, _ := NewExact(Config{Dims: 64, Metric: tc.m})
			q, _ := NewExact(Config{Dims: 64, Metric: tc.m, Storage: tc.s})
			ref.AddBatch(seqIDs(2000, 0), vecs)
			q.AddBatch(seqIDs(2000, 0), vecs)
			q.Delete(5) // exercises the row move
			ref.Delete(5)
			if r := recall(t, ref, q, qs, 10, nil); r < tc.min {
				t.Fatalf("recall@10 vs f32 = %.3f, want ≥ %.2f", r, tc.min)
			}
		})
	}
}

func TestHalfPrecision(t *testing.T) {
	for name, f := range map[string]float32{"one": 1, "neg": -2.5, "small": 1e-5, "tiny": 3e-8, "big": 60000, "huge": 1e6, "zero": 0} {
		t.Run(name, func(t *testing.T) {
			got := f16to32[f32to16(f)]
			if f == 1e6 {
				if !math.IsInf(float64(got), 1) {
					t.Fatalf("%g → %g, want +Inf", f, got)
				}
				return
			}
			if diff := math.Abs(float64(got - f)); diff > math.Abs(float64(f))*1e-3+6e-8 {
				t.Fatalf("%g → %g", f, got)
			}
		})
	}
}

func TestKernelsMatchPortable(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 7, 8, 9, 31, 32, 33, 100, 768, 1000} {
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
		}
		for name, pair := range map[string][2]float32{"dot": {dot(a, b), dotGo(a, b)}, "l2": {l2sq(a, b), l2sqGo(a, b)}} {
			if d := math.Abs(float64(pair[0] - pair[1])); d > 1e-4*math.Max(1, math.Abs(float64(pair[1]))) {
				t.Fatalf("%s n=%d: kernel %g, portable %g", name, n, pair[0], pair[1])
			}
		}
	}
}

func TestAutoPromotesUnderConcurrentWrites(t *testing.T) {
	vecs := lowRank(900, 16, 6, 9)
	a, err := NewAuto(Config{Dims: 16, Metric: Cosine, Crossover: 300})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(vecs); i += 3 {
				if err := a.Add(int64(i), vecs[i]); err != nil {
					t.Error(err)
					return
				}
				if _, err := a.Search(vecs[i], 3, nil); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if a.Len() != len(vecs) || a.Kind() != "hnsw" {
		t.Fatalf("len %d kind %s, want %d hnsw: a write was lost during promotion", a.Len(), a.Kind(), len(vecs))
	}
}

func TestNonFiniteRejected(t *testing.T) {
	for name, ix := range map[string]Index{"hnsw": mustHNSW(t, 4), "auto": mustAuto(t, 4)} {
		t.Run(name, func(t *testing.T) {
			bad := []float32{1, float32(math.NaN()), 0, 0}
			if err := ix.Add(1, bad); !errors.Is(err, ErrNotFinite) {
				t.Fatalf("add NaN: %v", err)
			}
			if _, err := ix.Search([]float32{float32(math.Inf(1)), 0, 0, 0}, 1, nil); !errors.Is(err, ErrNotFinite) {
				t.Fatalf("search Inf: %v", err)
			}
			if ix.Len() != 0 {
				t.Fatal("NaN vector stored")
			}
		})
	}
}

func TestBackgroundRebuildPastThreshold(t *testing.T) {
	vecs := lowRank(2600, 16, 6, 12)
	h, err := NewHNSW(Config{Dims: 16, Metric: L2})
	if err != nil {
		t.Fatal(err)
	}
	h.AddBatch(seqIDs(2600, 0), vecs)
	for id := int64(0); id < 1100; id++ { // > 1,000 tombstones and > 25% of the graph
		h.Delete(id)
	}
	h.Wait()
	// The rebuild starts at the 1,000th delete; deletes made while it runs are replayed as tombstones in the new graph.
	if h.Tombstones() > 100 || h.Len() != 1500 {
		t.Fatalf("after background rebuild: tombstones %d len %d", h.Tombstones(), h.Len())
	}
	e, _ := NewExact(Config{Dims: 16, Metric: L2})
	e.AddBatch(seqIDs(1500, 1100), vecs[1100:])
	if r := recall(t, e, h, vecs[:60], 10, nil); r < 0.95 {
		t.Fatalf("recall after background rebuild = %.3f", r)
	}
}
