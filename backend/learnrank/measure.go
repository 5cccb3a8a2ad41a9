package learnrank

import (
	"cmp"
	"slices"

	"proofglass/backend/rank"
	"proofglass/backend/search"
)

// tally accumulates Metrics.
type tally struct {
	n                     int
	hit1, hit5, hit10, rr float64
}

// add counts a question whose page ranks at r (1-based; 0: not among the candidates).
func (t *tally) add(r int) {
	t.n++
	if r < 1 {
		return
	}
	if r == 1 {
		t.hit1++
	}
	if r <= 5 {
		t.hit5++
	}
	if r <= 10 {
		t.hit10++
		t.rr += 1 / float64(r)
	}
}

func (t tally) metrics() Metrics {
	if t.n == 0 {
		return Metrics{}
	}
	n := float64(t.n)
	return Metrics{Questions: t.n, Hit1: t.hit1 / n, Hit5: t.hit5 / n, Hit10: t.hit10 / n, MRR: t.rr / n}
}

// pairTally is a set's tallies under both rankers.
type pairTally struct{ hand, learned tally }

func (p pairTally) pair(learned bool) Pair {
	out := Pair{HandSet: p.hand.metrics()}
	if learned {
		m := p.learned.metrics()
		out.Learned = &m
	}
	return out
}

// rankOf is where the first candidate answering a ranks among cands in their order (hand-set), or ordered by m when
// m is set.
func rankOf(cands []search.Candidate, a asked, m *rank.Model) int {
	order := cands
	if m != nil {
		order = slices.Clone(cands)
		score := make(map[int64]float64, len(order))
		for _, c := range order {
			score[c.UnitID] = m.Score(c.Features)
		}
		slices.SortStableFunc(order, func(a, b search.Candidate) int { return cmp.Compare(score[b.UnitID], score[a.UnitID]) })
	}
	for i, c := range order {
		if a.answers(c.UnitID) {
			return i + 1
		}
	}
	return 0
}

// measure fills the report's figures from the held-out questions, under the hand-set fusion and under the learned
// rankers (if any): m over the whole library, dm within the questions' documents.
func measure(rep *Report, held []asked, m, dm *rank.Model) {
	var lib, within pairTally
	byDoc, byQKind, byDKind := map[string]*pairTally{}, map[string]*pairTally{}, map[string]*pairTally{}
	at := func(mp map[string]*pairTally, k string) *pairTally {
		if mp[k] == nil {
			mp[k] = &pairTally{}
		}
		return mp[k]
	}
	for _, a := range held {
		h := rankOf(a.cands, a, nil)
		for _, p := range []*pairTally{&lib, at(byDoc, a.doc), at(byQKind, a.q.Kind), at(byDKind, a.docKind)} {
			p.hand.add(h)
		}
		within.hand.add(rankOf(a.scoped, a, nil))
		if dm != nil {
			within.learned.add(rankOf(a.scoped, a, dm))
		}
		if m == nil {
			continue
		}
		l := rankOf(a.cands, a, m)
		for _, p := range []*pairTally{&lib, at(byDoc, a.doc), at(byQKind, a.q.Kind), at(byDKind, a.docKind)} {
			p.learned.add(l)
		}
	}
	learned := m != nil
	rep.Library, rep.WithinDocument = lib.pair(learned), within.pair(dm != nil)
	for k, p := range byDoc {
		rep.ByDocument[k] = p.pair(learned)
	}
	for k, p := range byQKind {
		rep.ByQuestionKind[k] = p.pair(learned)
	}
	for k, p := range byDKind {
		rep.ByDocumentKind[k] = p.pair(learned)
	}
}
