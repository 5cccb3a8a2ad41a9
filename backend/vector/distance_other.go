//go:build !amd64

package vector

func dot(a, b []float32) float32  { return dotGo(a, b) }
func l2sq(a, b []float32) float32 { return l2sqGo(a, b) }

func prefetch(v []float32) {}
