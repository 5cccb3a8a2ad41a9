package vector

// cand is a graph slot with its distance to the query.
type cand struct {
	dist float32
	slot uint32
}

// minHeap and maxHeap are hand-written binary heaps: container/heap's interface calls cost more than the distance
// computations they order at these sizes.
type minHeap []cand

func (h *minHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].dist <= s[i].dist {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *minHeap) pop() cand {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(s) {
			break
		}
		m := l
		if r := l + 1; r < len(s) && s[r].dist < s[l].dist {
			m = r
		}
		if s[i].dist <= s[m].dist {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

type maxHeap []cand

func (h *maxHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].dist >= s[i].dist {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *maxHeap) pop() cand {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(s) {
			break
		}
		m := l
		if r := l + 1; r < len(s) && s[r].dist > s[l].dist {
			m = r
		}
		if s[i].dist >= s[m].dist {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// sorted empties the heap and returns its items nearest first.
func (h *maxHeap) sorted() []cand {
	out := make([]cand, len(*h))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = h.pop()
	}
	return out
}

// topK keeps the k nearest of a stream of candidates.
type topK struct {
	k int
	h maxHeap
}

func (t *topK) offer(c cand) {
	if len(t.h) < t.k {
		t.h.push(c)
		return
	}
	if c.dist < t.h[0].dist {
		t.h.pop()
		t.h.push(c)
	}
}
