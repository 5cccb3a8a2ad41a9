package rank

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Tree is a small regression tree over the standardised features z = (x − mean) / std, stored as flat arrays with
// one entry a node, the root first. A node whose Left is −1 is a leaf worth Value (the shrinkage already applied);
// any other node sends a candidate to Left when z[Feature] ≤ Threshold and to Right otherwise, and its children come
// after it. A feature the candidate lacks counts as its mean (z = 0), as in the linear part.
type Tree struct {
	Feature   []int     `json:"f"`
	Threshold []float64 `json:"t"`
	Left      []int     `json:"l"`
	Right     []int     `json:"r"`
	Value     []float64 `json:"v"`
}

// eval is the tree's output for a candidate's raw features.
func (t *Tree) eval(x, mean, std []float64) float64 {
	i := 0
	for t.Left[i] >= 0 {
		z := 0.0
		if f := t.Feature[i]; f < len(x) && f < len(mean) {
			z = (x[f] - mean[f]) / std[f]
		}
		if z <= t.Threshold[i] {
			i = t.Left[i]
		} else {
			i = t.Right[i]
		}
	}
	return t.Value[i]
}

// check is whether the tree can be walked safely over n features: its arrays agree, each split's children come after
// it and exist (so no walk loops or runs off), each feature is one of the n, and the numbers are finite.
func (t *Tree) check(n int) error {
	k := len(t.Value)
	if k == 0 || len(t.Feature) != k || len(t.Threshold) != k || len(t.Left) != k || len(t.Right) != k {
		return fmt.Errorf("%d values, %d features, %d thresholds, %d left and %d right children",
			k, len(t.Feature), len(t.Threshold), len(t.Left), len(t.Right))
	}
	for i := range k {
		if f := t.Feature[i]; f < 0 || f >= n {
			return fmt.Errorf("node %d splits on feature %d of %d", i, f, n)
		}
		if !finite(t.Threshold[i]) || !finite(t.Value[i]) {
			return fmt.Errorf("node %d has threshold %g and value %g", i, t.Threshold[i], t.Value[i])
		}
		l, r := t.Left[i], t.Right[i]
		if l == -1 && r == -1 {
			continue
		}
		if l <= i || r <= i || l >= k || r >= k {
			return fmt.Errorf("node %d has children %d and %d, want nodes after it among %d", i, l, r, k)
		}
	}
	return nil
}

// BoostOptions tune boosting; a zero field takes its default.
type BoostOptions struct {
	// Rounds is how many trees to add (default 50; fewer when a round finds no split worth making).
	Rounds int
	// MaxDepth is each tree's depth (default 3), MinLeaf the fewest paired candidates a leaf may hold (default 20).
	MaxDepth int
	MinLeaf  int
	// Shrinkage scales each tree's leaf values (default 0.1), Lambda holds them towards zero (default 1).
	Shrinkage float64
	Lambda    float64
	// Negatives are the non-answering candidates paired with each answering one (default 20): those the current
	// model scores highest, so each round works on the candidates that actually outrank the answer.
	Negatives int
	// Bins are the quantile bins a feature's values are cut into to find splits (default 32, at most 256).
	Bins int
}

// Boost adds gradient-boosted regression trees to a trained model: starting from base's scores, each round fits a
// tree by Newton steps to the pairwise logistic (RankNet) loss of each answering candidate against the Negatives
// others the current model scores highest. base is left as it was; the result is a copy of it (its Trained time and
// counts too) with the trees added, and is the same for the same input.
func Boost(groups []Group, base *Model, o BoostOptions) (*Model, error) {
	if base == nil {
		return nil, fmt.Errorf("boost ranker: no base model")
	}
	if err := base.check(); err != nil {
		return nil, fmt.Errorf("boost ranker: base model: %w", err)
	}
	o = o.withDefaults()
	n := len(base.W)

	// Every candidate once, flat: its standardised features, its score so far, and where its group starts.
	var z, score []float64
	var relevant []bool
	var starts []int // the first candidate of each question with an answering candidate and another, and its end
	for _, g := range groups {
		if len(g.Relevant) != len(g.X) {
			return nil, fmt.Errorf("boost ranker: a question has %d candidates and %d answer marks", len(g.X), len(g.Relevant))
		}
		first, hasRel, hasOther := len(score), false, false
		for c, x := range g.X {
			if len(x) != n {
				return nil, fmt.Errorf("boost ranker: a candidate has %d features, want %d", len(x), n)
			}
			for i, v := range x {
				zi := (v - base.Mean[i]) / base.Std[i]
				if !finite(zi) {
					return nil, fmt.Errorf("boost ranker: a candidate's %s is %g", base.Features[i], v)
				}
				z = append(z, zi)
			}
			score = append(score, base.Score(x))
			relevant = append(relevant, g.Relevant[c])
			hasRel, hasOther = hasRel || g.Relevant[c], hasOther || !g.Relevant[c]
		}
		if hasRel && hasOther {
			starts = append(starts, first, len(score))
		}
	}
	if len(starts) == 0 {
		return nil, fmt.Errorf("boost ranker: no question has its answering page among the candidates")
	}

	edges, bins := binned(z, len(score), n, o.Bins)
	b := &builder{o: o, n: n, edges: edges, bins: bins, g: make([]float64, len(score)), h: make([]float64, len(score))}
	out := *base
	out.Features, out.Mean, out.Std, out.W = slices.Clone(base.Features), slices.Clone(base.Mean), slices.Clone(base.Std), slices.Clone(base.W)
	out.Trees = slices.Clone(base.Trees)
	paired := make([]bool, len(score))
	var others []int
	for range o.Rounds {
		clear(b.g)
		clear(b.h)
		clear(paired)
		for gi := 0; gi < len(starts); gi += 2 {
			lo, hi := starts[gi], starts[gi+1]
			others = highest(others[:0], lo, hi, relevant, score, o.Negatives)
			for p := lo; p < hi; p++ {
				if !relevant[p] {
					continue
				}
				for _, q := range others {
					// The loss log(1 + e^−(s_p − s_q)): its gradient in s_p is −ρ, in s_q +ρ, its curvature ρ(1 − ρ).
					rho := 1 / (1 + math.Exp(score[p]-score[q]))
					w := rho * (1 - rho)
					b.g[p] -= rho
					b.g[q] += rho
					b.h[p] += w
					b.h[q] += w
					paired[p], paired[q] = true, true
				}
			}
		}
		var active []int
		for c, ok := range paired {
			if ok {
				active = append(active, c)
			}
		}
		t, cuts := b.tree(active)
		if len(t.Value) == 1 {
			break // no split is worth making: a constant changes no order, and the next round would be this one
		}
		for c := range score {
			score[c] += t.walk(cuts, bins[c*n:(c+1)*n])
		}
		out.Trees = append(out.Trees, t)
	}
	return &out, nil
}

// highest appends to out the k candidates in lo..hi that do not answer and score highest, best first (the earlier of
// two that score the same first).
func highest(out []int, lo, hi int, relevant []bool, score []float64, k int) []int {
	for c := lo; c < hi; c++ {
		if relevant[c] {
			continue
		}
		if len(out) == k {
			if score[c] <= score[out[k-1]] {
				continue
			}
			out = out[:k-1]
		}
		i := len(out)
		out = append(out, c)
		for ; i > 0 && score[out[i-1]] < score[c]; i-- {
			out[i] = out[i-1]
		}
		out[i] = c
	}
	return out
}

// withDefaults are the options with each unset one at its default.
func (o BoostOptions) withDefaults() BoostOptions {
	if o.Rounds <= 0 {
		o.Rounds = 50
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = 3
	}
	if o.MinLeaf <= 0 {
		o.MinLeaf = 20
	}
	if o.Shrinkage <= 0 {
		o.Shrinkage = 0.1
	}
	if o.Lambda <= 0 {
		o.Lambda = 1
	}
	if o.Negatives <= 0 {
		o.Negatives = 20
	}
	if o.Bins <= 1 {
		o.Bins = 32
	}
	o.Bins = min(o.Bins, 256)
	return o
}

// binned cuts each feature's values (z, count rows of n) at up to nb−1 quantiles, and gives each value its bin: bin
// k holds the values above edge k−1 and at most edge k, so "bin ≤ k" is "z ≤ edge k", the test a tree stores.
func binned(z []float64, count, n, nb int) ([][]float64, []uint8) {
	edges := make([][]float64, n)
	col := make([]float64, count)
	for f := range n {
		for c := range count {
			col[c] = z[c*n+f]
		}
		slices.Sort(col)
		for k := 1; k < nb; k++ {
			e := col[max(k*count/nb-1, 0)]
			if e >= col[count-1] {
				break // nothing lies above it
			}
			if len(edges[f]) == 0 || e > edges[f][len(edges[f])-1] {
				edges[f] = append(edges[f], e)
			}
		}
	}
	bins := make([]uint8, len(z))
	for c := range count {
		for f := range n {
			bins[c*n+f] = uint8(sort.SearchFloat64s(edges[f], z[c*n+f]))
		}
	}
	return edges, bins
}

// builder grows one tree from the candidates' gradients and curvatures over their binned features.
type builder struct {
	o     BoostOptions
	n     int
	edges [][]float64
	bins  []uint8
	g, h  []float64
	t     Tree
	cuts  []int // the bin each split sends left at or below, as the training candidates are routed
	hist  [][3]float64
	tmp   []int
}

// tree is the tree fitted to the given candidates, and its splits as bins.
func (b *builder) tree(idx []int) (Tree, []int) {
	b.t, b.cuts = Tree{}, nil
	b.grow(idx, 0)
	return b.t, b.cuts
}

// grow adds the node for idx (and the nodes below it) and returns its index.
func (b *builder) grow(idx []int, depth int) int {
	node := len(b.t.Value)
	b.t.Feature = append(b.t.Feature, 0)
	b.t.Threshold = append(b.t.Threshold, 0)
	b.t.Left = append(b.t.Left, -1)
	b.t.Right = append(b.t.Right, -1)
	b.t.Value = append(b.t.Value, 0)
	b.cuts = append(b.cuts, -1)
	G, H := 0.0, 0.0
	for _, c := range idx {
		G += b.g[c]
		H += b.h[c]
	}
	f, cut := -1, -1
	if depth < b.o.MaxDepth && len(idx) >= 2*b.o.MinLeaf {
		f, cut = b.split(idx, G, H)
	}
	if f < 0 {
		b.t.Value[node] = -G / (H + b.o.Lambda) * b.o.Shrinkage
		return node
	}
	// Those at or below the cut first, the rest after, each in their order.
	b.tmp = b.tmp[:0]
	k := 0
	for _, c := range idx {
		if int(b.bins[c*b.n+f]) <= cut {
			idx[k] = c
			k++
		} else {
			b.tmp = append(b.tmp, c)
		}
	}
	copy(idx[k:], b.tmp)
	b.t.Feature[node], b.t.Threshold[node], b.cuts[node] = f, b.edges[f][cut], cut
	l := b.grow(idx[:k], depth+1)
	r := b.grow(idx[k:], depth+1)
	b.t.Left[node], b.t.Right[node] = l, r
	return node
}

// split is the feature and bin whose split of idx most lowers the loss's second-order estimate, with at least
// MinLeaf candidates either side; −1, −1 when none lowers it.
func (b *builder) split(idx []int, G, H float64) (int, int) {
	lambda, minLeaf := b.o.Lambda, b.o.MinLeaf
	parent := G * G / (H + lambda)
	bestF, bestCut, bestGain := -1, -1, 1e-9
	for f := range b.n {
		nb := len(b.edges[f]) + 1
		if nb < 2 {
			continue
		}
		b.hist = slices.Grow(b.hist[:0], nb)[:nb]
		clear(b.hist)
		for _, c := range idx {
			s := &b.hist[b.bins[c*b.n+f]]
			s[0] += b.g[c]
			s[1] += b.h[c]
			s[2]++
		}
		gl, hl, cl := 0.0, 0.0, 0
		for cut := range nb - 1 {
			gl, hl, cl = gl+b.hist[cut][0], hl+b.hist[cut][1], cl+int(b.hist[cut][2])
			if cl < minLeaf {
				continue
			}
			if len(idx)-cl < minLeaf {
				break
			}
			gr, hr := G-gl, H-hl
			if gain := gl*gl/(hl+lambda) + gr*gr/(hr+lambda) - parent; gain > bestGain {
				bestF, bestCut, bestGain = f, cut, gain
			}
		}
	}
	return bestF, bestCut
}

// walk is the tree's output for a training candidate, routed by its bins (the same route eval takes on its features).
func (t *Tree) walk(cuts []int, bins []uint8) float64 {
	i := 0
	for t.Left[i] >= 0 {
		if int(bins[t.Feature[i]]) <= cuts[i] {
			i = t.Left[i]
		} else {
			i = t.Right[i]
		}
	}
	return t.Value[i]
}
