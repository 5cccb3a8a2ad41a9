package vector

import "golang.org/x/sys/cpu"

// useAVX2: the assembly kernels need AVX2 and FMA (every x86-64 CPU since 2013–2015).
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dotAVX2(a, b *float32, n int) float32

//go:noescape
func l2AVX2(a, b *float32, n int) float32

func dot(a, b []float32) float32 {
	b = b[:len(a)]
	n := len(a) &^ 7
	if !useAVX2 || n == 0 {
		return dotGo(a, b)
	}
	s := dotAVX2(&a[0], &b[0], n)
	for i := n; i < len(a); i++ {
		s += a[i] * b[i]
	}
	return s
}

func l2sq(a, b []float32) float32 {
	b = b[:len(a)]
	n := len(a) &^ 7
	if !useAVX2 || n == 0 {
		return l2sqGo(a, b)
	}
	s := l2AVX2(&a[0], &b[0], n)
	for i := n; i < len(a); i++ {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}

//go:noescape
func prefetchLines(p *float32, lines int)

// prefetch starts loading v into cache.
func prefetch(v []float32) {
	if len(v) > 0 {
		prefetchLines(&v[0], (len(v)*4+63)/64)
	}
}
