// Package lexical ranks units by BM25 from an in-memory inverted index that scores exactly as SQLite FTS5's
// bm25() on Proofglass's word index (units_fts), so a search reads only its terms' postings from memory instead of
// every matching row and its size record from SQLite.
package lexical

import (
	"cmp"
	"fmt"
	"slices"
)

// segment is an immutable inverted index over a set of units: their FTS5 tokens (porter over unicode61, as
// SQLite produced them) with per-unit token counts.
type segment struct {
	units []int64  // unit id by doc number, ascending
	docs  []int64  // document id by doc number
	lens  []uint32 // token count by doc number (FTS5's docsize)
	total int64    // tokens over all docs

	terms map[string]uint32 // term → index into off
	off   []uint32          // postings of term i are post[off[i]:off[i+1]]
	post  []uint32          // doc numbers, ascending within a term
	tf    []uint16          // occurrences of the term in the doc (saturated at 65535)
}

// postings returns the doc numbers and frequencies of a term.
func (s *segment) postings(term string) ([]uint32, []uint16) {
	i, ok := s.terms[term]
	if !ok {
		return nil, nil
	}
	return s.post[s.off[i]:s.off[i+1]], s.tf[s.off[i]:s.off[i+1]]
}

// find returns the doc number of a unit id.
func (s *segment) find(unit int64) (uint32, bool) {
	i, ok := slices.BinarySearch(s.units, unit)
	return uint32(i), ok
}

// builder makes a segment from FTS5's instance stream (term, unit) ordered by term then unit, as fts5vocab's
// 'instance' table yields it.
type builder struct {
	seg      *segment
	pos      map[int64]uint32 // unit id → doc number
	term     string
	lastDoc  int64 // doc number of the current term's last posting, -1 when none
	nTerms   int
	finished bool
}

// newBuilder starts a segment over the given units (ascending ids; units with no tokens count too, as FTS5
// counts them in its row total).
func newBuilder(units, docs []int64) (*builder, error) {
	if !slices.IsSorted(units) {
		return nil, fmt.Errorf("lexical: unit ids not ascending")
	}
	s := &segment{units: units, docs: docs, lens: make([]uint32, len(units)), terms: map[string]uint32{}}
	pos := make(map[int64]uint32, len(units))
	for i, u := range units {
		pos[u] = uint32(i)
	}
	return &builder{seg: s, pos: pos, lastDoc: -1}, nil
}

// add records one token instance.
func (b *builder) add(term []byte, unit int64) error {
	d, ok := b.pos[unit]
	if !ok {
		return fmt.Errorf("lexical: token of unit %d, which the unit list lacks", unit)
	}
	s := b.seg
	s.lens[d]++
	s.total++
	if b.nTerms == 0 || string(term) != b.term {
		if b.nTerms > 0 && string(term) < b.term {
			return fmt.Errorf("lexical: instance stream not ordered by term (%q after %q)", term, b.term)
		}
		b.term = string(term)
		if _, dup := s.terms[b.term]; dup {
			return fmt.Errorf("lexical: term %q seen twice", term)
		}
		s.terms[b.term] = uint32(len(s.off))
		s.off = append(s.off, uint32(len(s.post)))
		b.nTerms++
		b.lastDoc = -1
	}
	if int64(d) == b.lastDoc {
		if t := &s.tf[len(s.tf)-1]; *t < 65535 {
			*t++
		}
		return nil
	}
	if int64(d) < b.lastDoc {
		return fmt.Errorf("lexical: postings of %q not ordered by unit", term)
	}
	s.post = append(s.post, d)
	s.tf = append(s.tf, 1)
	b.lastDoc = int64(d)
	return nil
}

// finish closes the last term's postings and returns the segment.
func (b *builder) finish() *segment {
	if !b.finished {
		b.seg.off = append(b.seg.off, uint32(len(b.seg.post)))
		b.finished = true
	}
	b.pos = nil
	return b.seg
}

// hit is one scored doc of a search.
type hit struct {
	unit  int64
	score float64
}

// better orders hits best first, ties by unit id.
func better(a, b hit) int {
	return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.unit, b.unit))
}
