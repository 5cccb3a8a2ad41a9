package search

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"proofglass/backend/kb"
)

func TestFuse(t *testing.T) {
	sig := func(ids ...int64) signal {
		s := signal{ids: ids}
		for i := range ids {
			s.scores = append(s.scores, float64(100-i))
		}
		return s
	}
	cases := map[string]struct {
		sigs [3]signal
		w    [3]float64
		want []int64
	}{
		"agreement-wins":   {[3]signal{sig(1, 2, 3), sig(2, 4, 5)}, [3]float64{1, 1, 1}, []int64{2, 1, 4, 3, 5}},
		"symmetric":        {[3]signal{sig(1, 2, 3), sig(3, 2, 1)}, [3]float64{1, 1, 1}, []int64{1, 3, 2}},
		"single-signal":    {[3]signal{sig(5, 4)}, [3]float64{1, 1, 1}, []int64{5, 4}},
		"weight-zero":      {[3]signal{sig(1, 2), sig(2, 1)}, [3]float64{0, 1, 1}, []int64{2, 1}},
		"weighted":         {[3]signal{sig(1, 2), sig(2, 1)}, [3]float64{2, 1, 0}, []int64{1, 2}},
		"ties-by-id":       {[3]signal{sig(7), sig(3)}, [3]float64{1, 1, 1}, []int64{3, 7}},
		"union":            {[3]signal{sig(1), sig(2), sig(3)}, [3]float64{1, 1, 1}, []int64{1, 2, 3}},
		"duplicate-in-one": {[3]signal{sig(1, 1, 2)}, [3]float64{1, 1, 1}, []int64{1, 2}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var got []int64
			for _, f := range fuse(c.sigs, c.w, 60) {
				got = append(got, f.id)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("fuse = %v, want %v", got, c.want)
			}
		})
	}
	f := fuse([3]signal{sig(1, 2), sig(2)}, [3]float64{1, 1, 1}, 60)
	if f[0].id != 2 || f[0].ranks != [3]int{2, 1, 0} || math.Abs(f[0].score-(1.0/62+1.0/61)) > 1e-15 || f[0].raw[0] != 99 {
		t.Errorf("fused unit = %+v", f[0])
	}
}

func TestParseTerms(t *testing.T) {
	cases := map[string]struct {
		q     string
		words []string
		cjk   []string
		keys  []string
	}{
		"english":   {"What is the accuracy of ProgramFC on HOVER?", []string{"accuracy", "programfc", "hover"}, nil, nil},
		"only-stop": {"what is the", []string{"what", "is", "the"}, nil, nil},
		"chinese":   {"视觉文档 问答", nil, []string{"视觉文档", "问答"}, []string{"视觉", "觉文", "文档", "问答"}},
		"mixed-run": {"GPT4模型效果", []string{"gpt4"}, []string{"模型效果"}, []string{"模型", "型效", "效果"}},
		// Question words are cut out of CJK runs, as English stop words are dropped.
		"zh-question":            {"哪一种假文取自鲁迅？", nil, []string{"种假文取自鲁迅"}, []string{"种假", "假文", "文取", "取自", "自鲁", "鲁迅"}},
		"zh-only-question-words": {"什么", nil, []string{"什么"}, []string{"什么"}},
		"duplicates":             {"cat Cat CAT", []string{"cat"}, nil, nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			tm := parseTerms(c.q)
			if !slices.Equal(tm.words, c.words) || !slices.Equal(tm.cjk, c.cjk) || !slices.Equal(tm.cjkKeys(), c.keys) {
				t.Errorf("parseTerms(%q) = words %q cjk %q keys %q", c.q, tm.words, tm.cjk, tm.cjkKeys())
			}
		})
	}
}

func TestMatchBoxes(t *testing.T) {
	w := func(s string, x float64) kb.Word { return kb.Word{Text: s, X0: x, Y0: 0, X1: x + 1, Y1: 1} }
	cases := map[string]struct {
		q     string
		words []kb.Word
		want  []Box
	}{
		"latin": {"cat kitten", []kb.Word{w("The", 0), w("Cat,", 1), w("sat", 2), w("kitten.", 3)},
			[]Box{{"cat", 1, 0, 2, 1}, {"kitten", 3, 0, 4, 1}}},
		"hyphenated": {"fact checking", []kb.Word{w("fact-checking", 0), w("facts", 1)},
			[]Box{{"fact", 0, 0, 1, 1}, {"fact", 1, 0, 2, 1}}},
		// The word index matches by Porter stem, so boxes do too, named by the query word; words that merely share
		// letters with a query word get none.
		"stemmed": {"degrees awarded", []kb.Word{w("Degree", 0), w("degradation", 1), w("award.", 2), w("awkward", 3)},
			[]Box{{"degrees", 0, 0, 1, 1}, {"awarded", 2, 0, 3, 1}}},
		"stemmed-double": {"running", []kb.Word{w("ran", 0), w("run", 1), w("runner", 2), w("Runs", 3)},
			[]Box{{"running", 1, 0, 2, 1}, {"running", 3, 0, 4, 1}}},
		"cjk-per-char": {"文档问答", []kb.Word{w("视", 0), w("文", 1), w("档", 2), w("问", 3), w("x", 4), w("答", 5)},
			[]Box{{"文档", 1, 0, 2, 1}, {"文档", 2, 0, 3, 1}, {"档问", 3, 0, 4, 1}}},
		"cjk-line": {"问答系统", []kb.Word{w("这是一个问答系统的例子", 0), w("other", 1)},
			[]Box{{"问答", 0, 0, 1, 1}}},
		"cjk-short": {"问答", []kb.Word{w("问", 0), w("答", 1), w("答", 2)},
			[]Box{{"问答", 0, 0, 1, 1}, {"问答", 1, 0, 2, 1}}},
		"none": {"zebra", []kb.Word{w("cat", 0)}, nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := matchBoxes(c.words, parseTerms(c.q)); !slices.Equal(got, c.want) {
				t.Errorf("matchBoxes = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestExactMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n, dim = 500, 16
	ids := make([]int64, n)
	vecs := make([][]float32, n)
	for i := range ids {
		ids[i] = int64(1000 + i)
		vecs[i] = make([]float32, dim)
		for j := range vecs[i] {
			vecs[i][j] = float32(r.NormFloat64())
		}
		normalize(vecs[i])
	}
	idx, err := NewExact(dim, ids, vecs)
	if err != nil {
		t.Fatal(err)
	}
	q := slices.Clone(vecs[7])
	allow := func(id int64) bool { return id%3 != 0 }
	got, err := idx.Search(q, 10, allow)
	if err != nil {
		t.Fatal(err)
	}
	var want []Neighbor
	for i, v := range vecs {
		if !allow(ids[i]) {
			continue
		}
		var s float32
		for j := range v {
			s += v[j] * q[j]
		}
		want = append(want, Neighbor{ids[i], s})
	}
	sort.SliceStable(want, func(a, b int) bool { return want[a].Score > want[b].Score })
	if !slices.Equal(got, want[:10]) {
		t.Errorf("exact search = %v, want %v", got, want[:10])
	}
	if got[0].UnitID != 1007 {
		t.Errorf("nearest to vector 7 is %d", got[0].UnitID)
	}
	if _, err := idx.Search(q[:3], 10, nil); err == nil {
		t.Error("accepted a query of the wrong dimension")
	}
}

func TestParseWeights(t *testing.T) {
	cases := map[string]struct {
		in   string
		want Weights
		ok   bool
	}{
		"empty":   {"", DefaultWeights, true},
		"one":     {"text=0.25", Weights{BM25: 1, Text: 0.25, Visual: 1}, true},
		"all":     {"bm25=2, text=0, visual=0.5", Weights{BM25: 2, Text: 0, Visual: 0.5}, true},
		"unknown": {"colour=1", Weights{}, false},
		"neg":     {"bm25=-1", Weights{}, false},
		"nonum":   {"bm25=x", Weights{}, false},
		"noeq":    {"bm25", Weights{}, false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseWeights(c.in)
			if (err == nil) != c.ok || (c.ok && got != c.want) {
				t.Errorf("ParseWeights(%q) = %+v, %v", c.in, got, err)
			}
		})
	}
}
