// Package rank is the learned ranker: a linear model over the signals the searcher computes for each candidate page,
// trained pairwise on questions whose answering page is known, optionally with gradient-boosted regression trees on
// top of it for what a linear score cannot order.
package rank

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Model scores a candidate from its features: w · (x − mean) / std, plus the outputs of its trees (if any) on the same
// standardised features. It is small (one weight a feature, a few dozen small trees) and is stored with the library as
// JSON.
type Model struct {
	// Version names the feature set the model was trained on; a searcher whose features differ ignores the model.
	Version  string    `json:"version"`
	Features []string  `json:"features"`
	Mean     []float64 `json:"mean"`
	Std      []float64 `json:"std"`
	W        []float64 `json:"w"`
	// Trained is when, Questions how many training questions and Pages how many pages the library had.
	Trained   time.Time `json:"trained"`
	Questions int       `json:"questions"`
	Pages     int       `json:"pages"`
	// Trees are boosted on top of the linear score (see Boost); a model without them is the linear model alone.
	Trees []Tree `json:"trees,omitempty"`
}

// Score is the model's score of a candidate's features (higher is better).
func (m *Model) Score(x []float64) float64 {
	s := 0.0
	for i, w := range m.W {
		if i < len(x) {
			s += w * (x[i] - m.Mean[i]) / m.Std[i]
		}
	}
	for i := range m.Trees {
		s += m.Trees[i].eval(x, m.Mean, m.Std)
	}
	return s
}

// Weights are the linear part's weights per unit of each raw feature, by feature name.
func (m *Model) Weights() map[string]float64 {
	out := make(map[string]float64, len(m.W))
	for i, f := range m.Features {
		out[f] = m.W[i] / m.Std[i]
	}
	return out
}

// Fits reports whether the model was trained on this feature set (its trees split only on those features).
func (m *Model) Fits(version string, n int) bool {
	if m == nil || m.Version != version || len(m.W) != n || len(m.Mean) != n || len(m.Std) != n {
		return false
	}
	for _, t := range m.Trees {
		for _, f := range t.Feature {
			if f < 0 || f >= n {
				return false
			}
		}
	}
	return true
}

// Encode is the model as stored.
func (m *Model) Encode() ([]byte, error) { return json.Marshal(m) }

// Decode reads a stored model.
func Decode(b []byte) (*Model, error) {
	var m Model
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("decode ranker: %w", err)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("decode ranker: %w", err)
	}
	return &m, nil
}

// check is whether a model is whole: as many weights, means, scales and names, usable scales and weights, and trees
// that Score can walk safely.
func (m *Model) check() error {
	n := len(m.W)
	if n == 0 || len(m.Mean) != n || len(m.Std) != n || len(m.Features) != n {
		return fmt.Errorf("%d weights, %d means, %d scales, %d feature names", n, len(m.Mean), len(m.Std), len(m.Features))
	}
	for i := range n {
		if !(m.Std[i] > 0) || !finite(m.W[i]) || !finite(m.Mean[i]) || math.IsInf(m.Std[i], 0) {
			return fmt.Errorf("feature %s has mean %g, scale %g and weight %g", m.Features[i], m.Mean[i], m.Std[i], m.W[i])
		}
	}
	for i := range m.Trees {
		if err := m.Trees[i].check(n); err != nil {
			return fmt.Errorf("tree %d: %w", i, err)
		}
	}
	return nil
}

// Group is one training question: its candidates' features, and which of them answer it.
type Group struct {
	X        [][]float64
	Relevant []bool
}

// Options tune training.
type Options struct {
	// Init are the starting weights on the raw features (the hand-set ranker's), and the prior the model is held to:
	// with few questions it stays near them.
	Init []float64
	// L2 is how strongly the weights are held to Init (default 0.05), Epochs the passes over the pairs (default 30),
	// Negatives the non-answering candidates paired with each answering one (default 20, the best ranked first).
	L2        float64
	Epochs    int
	Negatives int
	Seed      uint64
}

// Train fits a model pairwise (a logistic loss on score differences: RankNet with a linear scorer) on the groups
// that have an answering candidate. features names the features, version the feature set.
func Train(groups []Group, features []string, version string, o Options) (*Model, error) {
	n := len(features)
	if o.L2 <= 0 {
		o.L2 = 0.05
	}
	if o.Epochs <= 0 {
		o.Epochs = 30
	}
	if o.Negatives <= 0 {
		o.Negatives = 20
	}
	mean, std, err := moments(groups, n)
	if err != nil {
		return nil, err
	}
	prior := make([]float64, n) // the initial weights in the standardised space
	for i := range n {
		if i < len(o.Init) {
			prior[i] = o.Init[i] * std[i]
		}
	}
	pairs := pairsOf(groups, n, mean, std, o.Negatives)
	if len(pairs) == 0 {
		return nil, fmt.Errorf("train ranker: no question has its answering page among the candidates")
	}
	// The prior's order is what counts, not its scale: hand-set weights on reciprocal ranks give scores a
	// hundredth apart, which the logistic loss reads as coin tosses. Scaled to fit the pairs best, the prior keeps
	// its order, and holding the weights to it holds the ranking to the hand-set one.
	a := priorScale(prior, pairs)
	for i := range prior {
		prior[i] *= a
	}
	w := slices.Clone(prior)
	avg, steps := make([]float64, n), 0
	r := rand.New(rand.NewPCG(o.Seed, o.Seed^0x2545f4914f6cdd1d))
	lr := 0.1
	for epoch := range o.Epochs {
		r.Shuffle(len(pairs), func(a, b int) { pairs[a], pairs[b] = pairs[b], pairs[a] })
		step := lr / (1 + float64(epoch)/5)
		for _, d := range pairs {
			// d = x_pos − x_neg; the objective is the mean over pairs of log(1 + e^(−w·d)), plus L2/2 |w − prior|²
			g := -sigmoid(-dot(w, d))
			for i := range w {
				w[i] -= step * (g*d[i] + o.L2*(w[i]-prior[i]))
			}
			if epoch >= o.Epochs/2 {
				// The average of the second half's weights: stochastic steps leave noise in any single one.
				for i := range w {
					avg[i] += w[i]
				}
				steps++
			}
		}
	}
	for i := range avg {
		avg[i] /= float64(max(steps, 1))
	}
	return &Model{Version: version, Features: slices.Clone(features), Mean: mean, Std: std, W: avg, Trained: time.Now().UTC()}, nil
}

// priorScale is the factor α ≥ 0 that best fits the prior's scores to the pairs: it minimises the mean of
// log(1 + e^(−α·prior·d)), searched on a logarithmic grid and refined around its best point.
func priorScale(prior []float64, pairs [][]float64) float64 {
	s := make([]float64, len(pairs))
	any := false
	for i, d := range pairs {
		s[i] = dot(prior, d)
		any = any || s[i] != 0
	}
	if !any {
		return 1
	}
	loss := func(a float64) float64 {
		sum := 0.0
		for _, v := range s {
			sum += softplus(-a * v)
		}
		return sum / float64(len(s))
	}
	best, bestLoss := 1.0, loss(1)
	for e := -3.0; e <= 9; e += 0.25 {
		if a := math.Pow(10, e); loss(a) < bestLoss {
			best, bestLoss = a, loss(a)
		}
	}
	for step := best / 2; step > best*1e-3; step /= 2 {
		for _, a := range []float64{best - step, best + step} {
			if a > 0 && loss(a) < bestLoss {
				best, bestLoss = a, loss(a)
			}
		}
	}
	return best
}

// softplus is log(1 + e^x), without overflow for large x.
func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}

// moments are the features' means and standard deviations over every candidate (a constant feature gets scale 1).
func moments(groups []Group, n int) ([]float64, []float64, error) {
	mean, sq := make([]float64, n), make([]float64, n)
	count := 0
	for _, g := range groups {
		for _, x := range g.X {
			if len(x) != n {
				return nil, nil, fmt.Errorf("train ranker: a candidate has %d features, want %d", len(x), n)
			}
			for i, v := range x {
				mean[i] += v
				sq[i] += v * v
			}
			count++
		}
	}
	if count == 0 {
		return nil, nil, fmt.Errorf("train ranker: no candidates")
	}
	std := make([]float64, n)
	for i := range n {
		mean[i] /= float64(count)
		v := sq[i]/float64(count) - mean[i]*mean[i]
		std[i] = math.Sqrt(max(v, 0))
		if std[i] < 1e-12 {
			std[i] = 1
		}
	}
	return mean, std, nil
}

// pairsOf are the standardised feature differences (answering − other) of each group's answering candidates
// against its best-ranked others.
func pairsOf(groups []Group, n int, mean, std []float64, negatives int) [][]float64 {
	z := func(x []float64) []float64 {
		out := make([]float64, n)
		for i := range n {
			out[i] = (x[i] - mean[i]) / std[i]
		}
		return out
	}
	var pairs [][]float64
	for _, g := range groups {
		for p, rel := range g.Relevant {
			if !rel {
				continue
			}
			zp := z(g.X[p])
			used := 0
			for q, other := range g.Relevant {
				if other || used >= negatives {
					continue
				}
				zq := z(g.X[q])
				d := make([]float64, n)
				for i := range n {
					d[i] = zp[i] - zq[i]
				}
				pairs = append(pairs, d)
				used++
			}
		}
	}
	return pairs
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
