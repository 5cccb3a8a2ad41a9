package vector

import "testing"

// BenchmarkHNSWBuild reports the bulk build rate at 768 dims; `proofglass-lab bench vector` has the full comparison.
func BenchmarkHNSWBuild(b *testing.B) {
	vecs := lowRank(5000, 768, 32, 1)
	ids := seqIDs(len(vecs), 0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h, _ := NewHNSW(Config{Dims: 768, Metric: Cosine})
		h.AddBatch(ids, vecs)
	}
	b.ReportMetric(float64(len(vecs)*b.N)/b.Elapsed().Seconds(), "vectors/s")
}

// BenchmarkSearch compares HNSW with exact scan on the same 5,000 vectors.
func BenchmarkSearch(b *testing.B) {
	vecs := lowRank(5100, 768, 32, 1)
	ids := seqIDs(5000, 0)
	h, _ := NewHNSW(Config{Dims: 768, Metric: Cosine})
	h.AddBatch(ids, vecs[:5000])
	e, _ := NewExact(Config{Dims: 768, Metric: Cosine})
	e.AddBatch(ids, vecs[:5000])
	for name, ix := range map[string]Index{"hnsw": h, "exact": e} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				ix.Search(vecs[5000+i%100], 10, nil)
			}
		})
	}
}
