package search

import (
	"cmp"
	"slices"
)

// fusedUnit is a unit's reciprocal-rank fusion score with the rank and raw score it had in each signal.
type fusedUnit struct {
	id    int64
	score float64
	ranks [3]int // 1-based; 0 = absent
	raw   [3]float64
	// structure are its 1-based ranks in the structure signals (structDoc…), 0 where a signal did not list it.
	structure [numStructure]int
}

// fuse combines ranked lists by weighted reciprocal-rank fusion: score(u) = Σ_s w_s / (k + rank_s(u)). Ties are
// broken by the best single rank, then by unit id, so equal inputs always give the same order.
func fuse(sigs [3]signal, w [3]float64, k int) []fusedUnit {
	byID := map[int64]*fusedUnit{}
	var order []*fusedUnit
	for s, sig := range sigs {
		if w[s] == 0 {
			continue
		}
		for r, id := range sig.ids {
			f := byID[id]
			if f == nil {
				f = &fusedUnit{id: id}
				byID[id] = f
				order = append(order, f)
			}
			if f.ranks[s] != 0 {
				continue // listed twice by one signal: keep the better rank
			}
			f.ranks[s] = r + 1
			f.raw[s] = sig.scores[r]
			f.score += w[s] / float64(k+r+1)
		}
	}
	best := func(f *fusedUnit) int {
		b := 1 << 30
		for _, r := range f.ranks {
			if r > 0 && r < b {
				b = r
			}
		}
		return b
	}
	slices.SortFunc(order, func(a, b *fusedUnit) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(best(a), best(b)), cmp.Compare(a.id, b.id))
	})
	out := make([]fusedUnit, len(order))
	for i, f := range order {
		out[i] = *f
	}
	return out
}
