package vector

import "math"

// dotGo is the portable inner product, unrolled with four accumulators so the loop is not bound by one add's latency.
func dotGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		aa := a[i : i+8 : i+8]
		bb := b[i : i+8 : i+8]
		s0 += aa[0]*bb[0] + aa[4]*bb[4]
		s1 += aa[1]*bb[1] + aa[5]*bb[5]
		s2 += aa[2]*bb[2] + aa[6]*bb[6]
		s3 += aa[3]*bb[3] + aa[7]*bb[7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// l2sqGo is the portable squared Euclidean distance.
func l2sqGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		aa := a[i : i+8 : i+8]
		bb := b[i : i+8 : i+8]
		d0, d1, d2, d3 := aa[0]-bb[0], aa[1]-bb[1], aa[2]-bb[2], aa[3]-bb[3]
		d4, d5, d6, d7 := aa[4]-bb[4], aa[5]-bb[5], aa[6]-bb[6], aa[7]-bb[7]
		s0 += d0*d0 + d4*d4
		s1 += d1*d1 + d5*d5
		s2 += d2*d2 + d6*d6
		s3 += d3*d3 + d7*d7
	}
	for ; i < len(a); i++ {
		d := a[i] - b[i]
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}

// distFunc returns the distance for m over vectors already prepared by prepare (normalised for cosine).
func distFunc(m Metric) func(a, b []float32) float32 {
	switch m {
	case L2:
		return l2sq
	case Dot:
		return func(a, b []float32) float32 { return -dot(a, b) }
	default:
		return func(a, b []float32) float32 { return 1 - dot(a, b) }
	}
}

// prepare copies v, normalising it for cosine so that distance is one dot product. A zero vector stays zero.
func prepare(m Metric, v []float32) []float32 {
	out := make([]float32, len(v))
	copy(out, v)
	if m == Cosine {
		normalize(out)
	}
	return out
}

func normalize(v []float32) {
	n := dot(v, v)
	if n == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(float64(n)))
	for i := range v {
		v[i] *= inv
	}
}
