package rank

import (
	"bytes"
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// banded groups: two features; the answering candidate is the one with the highest b among those whose a lies in the
// band 0.4–0.6, while candidates outside the band often have a higher b: no weighting of a and b orders that.
func banded(n int, seed uint64) []Group {
	r := rand.New(rand.NewPCG(seed, 7))
	var gs []Group
	for range n {
		g := Group{}
		inBand := r.IntN(30) // at least one candidate lies in the band
		best, bestV := -1, -1.0
		for c := range 30 {
			x := []float64{r.Float64(), r.Float64()}
			if c == inBand {
				x[0] = 0.4 + 0.2*r.Float64()
			}
			g.X = append(g.X, x)
			if x[0] >= 0.4 && x[0] <= 0.6 && x[1] > bestV {
				best, bestV = c, x[1]
			}
		}
		g.Relevant = make([]bool, len(g.X))
		g.Relevant[best] = true
		gs = append(gs, g)
	}
	return gs
}

// boosted is a linear model trained on two features and the same with boosted trees on top (default options).
func boosted(t *testing.T, train []Group) (lin, m *Model) {
	t.Helper()
	lin, err := Train(train, []string{"a", "b"}, "v", Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m, err = Boost(train, lin, BoostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return lin, m
}

func TestBoostOrdersWhatALinearModelCannot(t *testing.T) {
	train, test := banded(300, 1), banded(300, 2)
	lin, m := boosted(t, train)
	before, after := top1(lin, test), top1(m, test)
	t.Logf("band problem, held-out top-1: linear %.3f, boosted %.3f (%d trees)", before, after, len(m.Trees))
	if after < before+0.2 {
		t.Errorf("boosted top-1 %.3f, linear %.3f: want at least 0.2 better", after, before)
	}
	if len(lin.Trees) != 0 {
		t.Errorf("Boost changed its base: %d trees", len(lin.Trees))
	}
}

// noisy groups: three features; the answering candidate is the one with the highest a + 2b plus noise, c is noise:
// a linear problem a linear model cannot solve outright, where trees could fit the noise.
func noisy(n int, seed uint64) []Group {
	r := rand.New(rand.NewPCG(seed, 11))
	var gs []Group
	for range n {
		g := Group{}
		best, bestV := 0, math.Inf(-1)
		for c := range 30 {
			x := []float64{r.Float64(), r.Float64(), r.Float64()}
			g.X = append(g.X, x)
			if v := x[0] + 2*x[1] + 0.3*r.NormFloat64(); v > bestV {
				best, bestV = c, v
			}
		}
		g.Relevant = make([]bool, len(g.X))
		g.Relevant[best] = true
		gs = append(gs, g)
	}
	return gs
}

func TestBoostKeepsWhatTheLinearModelGets(t *testing.T) {
	for _, c := range []struct {
		name        string
		train, test []Group
		features    []string
		init        []float64
	}{
		{"synthetic", synthetic(200, 1), synthetic(200, 2), []string{"a", "b"}, []float64{1, 0}},
		{"noisy", noisy(300, 1), noisy(300, 2), []string{"a", "b", "c"}, nil},
	} {
		lin, err := Train(c.train, c.features, "v", Options{Init: c.init, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		m, err := Boost(c.train, lin, BoostOptions{})
		if err != nil {
			t.Fatal(err)
		}
		before, after := top1(lin, c.test), top1(m, c.test)
		t.Logf("%s linear problem, held-out top-1: linear %.3f, boosted %.3f (%d trees)", c.name, before, after, len(m.Trees))
		if after < before-0.03 {
			t.Errorf("%s: boosted top-1 %.3f, linear %.3f: want no more than 0.03 worse", c.name, after, before)
		}
	}
}

func TestBoostedModelSurvivesStorage(t *testing.T) {
	train, test := banded(200, 3), banded(100, 4)
	_, m := boosted(t, train)
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d trees encode to %d bytes", len(m.Trees), len(b))
	if len(back.Trees) != len(m.Trees) || len(m.Trees) == 0 || !back.Fits("v", 2) || back.Fits("v", 3) {
		t.Fatalf("decoded %d trees of %d (fits %v)", len(back.Trees), len(m.Trees), back.Fits("v", 2))
	}
	for _, g := range test {
		for _, x := range g.X {
			if a, b := m.Score(x), back.Score(x); a != b {
				t.Fatalf("score of %v: %v before storage, %v after", x, a, b)
			}
		}
	}
}

// The largest model Boost makes by default, 50 full trees of depth 3 with numbers at full precision, stays small.
func TestFiftyTreesEncodeSmall(t *testing.T) {
	const n = 13
	r := rand.New(rand.NewPCG(5, 5))
	m := &Model{Version: "v", Features: make([]string, n), Mean: make([]float64, n), Std: make([]float64, n), W: make([]float64, n)}
	for i := range n {
		m.Features[i], m.Mean[i], m.Std[i], m.W[i] = "feature"+string(rune('a'+i)), r.NormFloat64(), 1+r.Float64(), r.NormFloat64()
	}
	for range 50 {
		var tr Tree
		for i := range 15 { // nodes 0–6 split, 7–14 are leaves
			if i < 7 {
				tr.Feature = append(tr.Feature, r.IntN(n))
				tr.Threshold = append(tr.Threshold, r.NormFloat64())
				tr.Left, tr.Right, tr.Value = append(tr.Left, 2*i+1), append(tr.Right, 2*i+2), append(tr.Value, 0)
			} else {
				tr.Feature, tr.Threshold = append(tr.Feature, 0), append(tr.Threshold, 0)
				tr.Left, tr.Right, tr.Value = append(tr.Left, -1), append(tr.Right, -1), append(tr.Value, r.NormFloat64()/10)
			}
		}
		m.Trees = append(m.Trees, tr)
	}
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("50 full trees of depth 3 over %d features encode to %d bytes", n, len(b))
	if len(b) > 50_000 {
		t.Errorf("encoded to %d bytes, want well under 100 KB", len(b))
	}
	if _, err := Decode(b); err != nil {
		t.Error(err)
	}
}

func TestDecodeRefusesDamagedTrees(t *testing.T) {
	model := func(tree string) string {
		return `{"version":"v","features":["a","b"],"mean":[0,0],"std":[1,1],"w":[1,0],"trees":[` + tree + `]}`
	}
	good := `{"f":[0,0,0],"t":[0.5,0,0],"l":[1,-1,-1],"r":[2,-1,-1],"v":[0,-1,1]}`
	if m, err := Decode([]byte(model(good))); err != nil || m.Score([]float64{0.4, 0}) != 0.4-1 || m.Score([]float64{0.6, 0}) != 0.6+1 {
		t.Fatalf("a whole tree: %v", err)
	}
	for _, c := range []struct{ name, tree string }{
		{"child out of range", `{"f":[0,0,0],"t":[0.5,0,0],"l":[1,-1,-1],"r":[3,-1,-1],"v":[0,-1,1]}`},
		{"negative child", `{"f":[0,0,0],"t":[0.5,0,0],"l":[1,-1,-1],"r":[-2,-1,-1],"v":[0,-1,1]}`},
		{"back-edge", `{"f":[0,0,0],"t":[0.5,0.1,0],"l":[1,0,-1],"r":[2,2,-1],"v":[0,0,1]}`},
		{"self-loop", `{"f":[0,0,0],"t":[0.5,0.1,0],"l":[1,1,-1],"r":[2,2,-1],"v":[0,0,1]}`},
		{"half a leaf", `{"f":[0,0,0],"t":[0.5,0,0],"l":[1,-1,-1],"r":[2,2,-1],"v":[0,-1,1]}`},
		{"feature out of range", `{"f":[2,0,0],"t":[0.5,0,0],"l":[1,-1,-1],"r":[2,-1,-1],"v":[0,-1,1]}`},
		{"negative feature", `{"f":[-1,0,0],"t":[0.5,0,0],"l":[1,-1,-1],"r":[2,-1,-1],"v":[0,-1,1]}`},
		{"arrays disagree", `{"f":[0,0,0],"t":[0.5,0,0],"l":[1,-1,-1],"r":[2,-1,-1],"v":[0,-1]}`},
		{"no nodes", `{"f":[],"t":[],"l":[],"r":[],"v":[]}`},
		{"NaN in JSON", `{"f":[0,0,0],"t":[NaN,0,0],"l":[1,-1,-1],"r":[2,-1,-1],"v":[0,-1,1]}`},
	} {
		if _, err := Decode([]byte(model(c.tree))); err == nil {
			t.Errorf("%s: decoded, want an error", c.name)
		}
	}
	// JSON cannot carry NaN or infinities, but a model's check refuses them too.
	for _, c := range []struct {
		name string
		edit func(*Tree)
	}{
		{"NaN threshold", func(tr *Tree) { tr.Threshold[0] = math.NaN() }},
		{"NaN value", func(tr *Tree) { tr.Value[1] = math.NaN() }},
		{"infinite value", func(tr *Tree) { tr.Value[2] = math.Inf(1) }},
	} {
		m, err := Decode([]byte(model(good)))
		if err != nil {
			t.Fatal(err)
		}
		c.edit(&m.Trees[0])
		if err := m.check(); err == nil {
			t.Errorf("%s: passed the check, want an error", c.name)
		}
	}
}

func TestBoostRefusesWhatCannotTrain(t *testing.T) {
	base := &Model{Version: "v", Features: []string{"a"}, Mean: []float64{0}, Std: []float64{1}, W: []float64{1}}
	for _, c := range []struct {
		name   string
		groups []Group
		base   *Model
		want   string
	}{
		{"no answering candidate", []Group{{X: [][]float64{{1}, {2}}, Relevant: []bool{false, false}}}, base, "answering page"},
		{"only answering candidates", []Group{{X: [][]float64{{1}, {2}}, Relevant: []bool{true, true}}}, base, "answering page"},
		{"no groups", nil, base, "answering page"},
		{"features of the wrong length", []Group{{X: [][]float64{{1, 2}, {3}}, Relevant: []bool{true, false}}}, base, "features"},
		{"marks of the wrong length", []Group{{X: [][]float64{{1}, {3}}, Relevant: []bool{true}}}, base, "marks"},
		{"a NaN feature", []Group{{X: [][]float64{{math.NaN()}, {3}}, Relevant: []bool{true, false}}}, base, "NaN"},
		{"no base", []Group{{X: [][]float64{{1}, {3}}, Relevant: []bool{true, false}}}, nil, "base"},
		{"a damaged base", []Group{{X: [][]float64{{1}, {3}}, Relevant: []bool{true, false}}}, &Model{W: []float64{1}}, "base"},
	} {
		_, err := Boost(c.groups, c.base, BoostOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "boost ranker: ") {
			t.Errorf("%s: %v, want a boost ranker error about %q", c.name, err, c.want)
		}
	}
}

func TestBoostIsDeterministic(t *testing.T) {
	train := banded(150, 6)
	lin, err := Train(train, []string{"a", "b"}, "v", Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	w := slices.Clone(lin.W)
	var enc [2][]byte
	for i := range enc {
		m, err := Boost(train, lin, BoostOptions{Rounds: 20})
		if err != nil {
			t.Fatal(err)
		}
		if enc[i], err = m.Encode(); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(enc[0], enc[1]) {
		t.Error("two runs of Boost on the same input gave different models")
	}
	if !slices.Equal(w, lin.W) || len(lin.Trees) != 0 {
		t.Error("Boost changed its base model")
	}
}

// A model without trees is the linear model: its score is w · (x − mean) / std to the last bit.
func TestScoreWithoutTreesIsLinear(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, c := range []struct {
		name string
		n    int
	}{{"one feature", 1}, {"two features", 2}, {"thirteen features", 13}} {
		m := &Model{Version: "v", Features: make([]string, c.n), Mean: make([]float64, c.n), Std: make([]float64, c.n), W: make([]float64, c.n)}
		for i := range c.n {
			m.Mean[i], m.Std[i], m.W[i] = r.NormFloat64(), 0.1+r.Float64(), r.NormFloat64()
		}
		for range 100 {
			x := make([]float64, c.n)
			want := 0.0
			for i := range x {
				x[i] = r.NormFloat64() * 3
				want += m.W[i] * (x[i] - m.Mean[i]) / m.Std[i]
			}
			if got := m.Score(x); got != want {
				t.Fatalf("%s: score of %v is %v, want %v", c.name, x, got, want)
			}
		}
	}
}

// wide groups are the size of the real training data: 600 questions of 100 candidates with 13 features, the answer
// chosen by a non-linear rule.
func wide() []Group {
	r := rand.New(rand.NewPCG(9, 9))
	gs := make([]Group, 600)
	for gi := range gs {
		g := &gs[gi]
		best, bestV := 0, math.Inf(-1)
		for c := range 100 {
			x := make([]float64, 13)
			for i := range x {
				x[i] = r.Float64()
			}
			g.X = append(g.X, x)
			if v := x[0] + x[1]*x[2] - math.Abs(x[3]-0.5) + 0.3*r.NormFloat64(); v > bestV {
				best, bestV = c, v
			}
		}
		g.Relevant = make([]bool, len(g.X))
		g.Relevant[best] = true
	}
	return gs
}

func BenchmarkBoost(b *testing.B) {
	gs := wide()
	names := make([]string, 13)
	for i := range names {
		names[i] = string(rune('a' + i))
	}
	lin, err := Train(gs, names, "v", Options{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	var m *Model
	for b.Loop() {
		if m, err = Boost(gs, lin, BoostOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	enc, _ := m.Encode()
	b.Logf("600×100×13: %d trees, %d bytes encoded, training top-1 linear %.3f, boosted %.3f", len(m.Trees), len(enc), top1(lin, gs), top1(m, gs))
}

// highest picks what a stable sort by score, best first, would put first.
func TestHighestIsTheStableSortsFirst(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	for _, k := range []int{1, 3, 20, 100} {
		for range 50 {
			n := r.IntN(40)
			score, relevant := make([]float64, n), make([]bool, n)
			for c := range n {
				score[c], relevant[c] = float64(r.IntN(5)), r.IntN(4) == 0 // few distinct scores: many ties
			}
			var want []int
			for c := range n {
				if !relevant[c] {
					want = append(want, c)
				}
			}
			slices.SortStableFunc(want, func(a, b int) int { return cmp.Compare(score[b], score[a]) })
			want = want[:min(len(want), k)]
			if got := highest(nil, 0, n, relevant, score, k); !slices.Equal(got, want) {
				t.Fatalf("k %d, scores %v, answers %v: %v, want %v", k, score, relevant, got, want)
			}
		}
	}
}
