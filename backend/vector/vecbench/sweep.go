package vecbench

import (
	"context"
	"fmt"
	"time"

	"proofglass/backend/vector"
)

// Sweep measures exact scan and HNSW (at the default efSearch) at growing sizes on synthetic data, to find where
// the graph's search speed starts to pay for its build: the crossover the Auto index switches at.
func Sweep(ctx context.Context, o Options, sizes []int, emit func(Row)) error {
	if o.Queries <= 0 {
		o.Queries = 200
	}
	if o.K <= 0 {
		o.K = 10
	}
	maxN := 0
	for _, n := range sizes {
		maxN = max(maxN, n)
	}
	all := Synthetic(maxN+o.Queries, o.Dims, 32, max(o.Seed, 1))
	qs := all[maxN:]
	cfg := vector.Config{Dims: o.Dims, Metric: vector.Cosine, M: o.M, EfConstruction: o.EfC}
	for _, n := range sizes {
		if err := ctx.Err(); err != nil {
			return err
		}
		ids := make([]int64, n)
		for i := range ids {
			ids[i] = int64(i + 1)
		}
		ex, _ := vector.NewExact(cfg)
		ex.AddBatch(ids, all[:n])
		truth := make([][]int64, len(qs))
		r := Row{Index: "exact", Setting: "f32", Data: "synthetic", N: n, Dims: o.Dims, Recall: 1}
		r.QPS = qps(len(qs), 1, func(i int) {
			res, _ := ex.Search(qs[i], o.K, nil)
			truth[i] = idsOf(res)
		})
		emit(r)
		hn, err := vector.NewHNSW(cfg)
		if err != nil {
			return err
		}
		t0 := time.Now()
		hn.AddBatch(ids, all[:n])
		r = Row{Index: "proofglass-hnsw", Setting: fmt.Sprintf("ef=%d (default)", 64), Data: "synthetic", N: n, Dims: o.Dims}
		r.BuildPerS = float64(n) / time.Since(t0).Seconds()
		got := make([][]int64, len(qs))
		r.QPS = qps(len(qs), 1, func(i int) {
			res, _ := hn.Search(qs[i], o.K, nil)
			got[i] = idsOf(res)
		})
		r.Recall = recallAt(truth, got)
		emit(r)
	}
	return nil
}
