package lexical

import (
	"container/heap"
	"slices"
)

// topK keeps the k best hits seen (a min-heap on the worst kept).
type topK struct {
	k int
	h hitHeap
}

func newTopK(k int) *topK { return &topK{k: k} }

func (t *topK) push(x hit) {
	if len(t.h) < t.k {
		heap.Push(&t.h, x)
		return
	}
	if better(x, t.h[0]) < 0 {
		t.h[0] = x
		heap.Fix(&t.h, 0)
	}
}

// sorted returns the kept hits best first.
func (t *topK) sorted() []hit {
	out := slices.Clone([]hit(t.h))
	slices.SortFunc(out, better)
	return out
}

// hitHeap is a min-heap: the root is the worst kept hit.
type hitHeap []hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return better(h[i], h[j]) > 0 }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
