package rank

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// synthetic groups: two features; the answering candidate is the one with the highest second feature, while the
// first (which the initial weights favour) is noise.
func synthetic(n int, seed uint64) []Group {
	r := rand.New(rand.NewPCG(seed, 1))
	var gs []Group
	for range n {
		g := Group{}
		best, bestV := 0, -1.0
		for c := range 30 {
			x := []float64{r.Float64(), r.Float64()}
			g.X = append(g.X, x)
			if x[1] > bestV {
				best, bestV = c, x[1]
			}
		}
		g.Relevant = make([]bool, len(g.X))
		g.Relevant[best] = true
		g.X[best][1] += 0.3 // the answering page stands out on b, as a real signal's best does
		gs = append(gs, g)
	}
	return gs
}

// top1 is the share of groups whose answering candidate scores highest.
func top1(m *Model, gs []Group) float64 {
	hit := 0
	for _, g := range gs {
		best, bestS := -1, 0.0
		for i, x := range g.X {
			if s := m.Score(x); best < 0 || s > bestS {
				best, bestS = i, s
			}
		}
		if g.Relevant[best] {
			hit++
		}
	}
	return float64(hit) / float64(len(gs))
}

func TestTrainLearnsWhatTheInitialWeightsMiss(t *testing.T) {
	train, test := synthetic(200, 1), synthetic(200, 2)
	init := []float64{1, 0}
	base := &Model{Version: "v", Features: []string{"a", "b"}, Mean: []float64{0, 0}, Std: []float64{1, 1}, W: init}
	m, err := Train(train, []string{"a", "b"}, "v", Options{Init: init, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	before, after := top1(base, test), top1(m, test)
	t.Logf("top-1 on held-out groups: initial weights %.2f, trained %.2f (w %v)", before, after, m.W)
	if after < 0.9 || after <= before {
		t.Errorf("trained top-1 %.2f (initial %.2f), want ≥ 0.9 and better", after, before)
	}
	// The model survives storage.
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if top1(back, test) != after || !back.Fits("v", 2) || back.Fits("w", 2) || back.Fits("v", 3) {
		t.Errorf("decoded model differs: %+v", back)
	}
}

// With no evidence against them, the initial weights stand: a model trained on groups its prior already ranks
// perfectly keeps ranking them so.
func TestTrainKeepsAGoodPrior(t *testing.T) {
	gs := synthetic(100, 3)
	m, err := Train(gs, []string{"a", "b"}, "v", Options{Init: []float64{0, 1}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := top1(m, gs); got < 0.95 {
		t.Errorf("top-1 %.2f after training from the right weights, want ≥ 0.95 (w %v)", got, m.W)
	}
}

func TestTrainRefusesWhatCannotTrain(t *testing.T) {
	if _, err := Train(nil, []string{"a"}, "v", Options{}); err == nil {
		t.Error("no groups: want an error")
	}
	g := Group{X: [][]float64{{1}, {2}}, Relevant: []bool{false, false}}
	if _, err := Train([]Group{g}, []string{"a"}, "v", Options{}); err == nil || !strings.Contains(err.Error(), "answering page") {
		t.Errorf("no answering candidate: %v", err)
	}
	bad := Group{X: [][]float64{{1, 2}}, Relevant: []bool{true}}
	if _, err := Train([]Group{bad}, []string{"a"}, "v", Options{}); err == nil {
		t.Error("features of the wrong length: want an error")
	}
}

func TestDecodeRefusesDamagedModels(t *testing.T) {
	for _, s := range []string{`{`, `{"w":[]}`, `{"features":["a"],"w":[1],"mean":[0],"std":[0]}`,
		`{"features":["a","b"],"w":[1],"mean":[0],"std":[1]}`} {
		if _, err := Decode([]byte(s)); err == nil {
			t.Errorf("%s: decoded, want an error", s)
		}
	}
}
