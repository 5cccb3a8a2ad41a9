package vision

import (
	"image"
	"math"
	"runtime"
	"sync"
)

// The agent scales every page and crop it sends; x/image's generic kernel scaler does that in float64 per pixel and
// channel and dominated a tool step. This is the same Catmull-Rom resampling (support widened by the shrink factor,
// truncated and renormalised at the edges) done separably with 14-bit fixed-point weights on the image's own
// planes: JPEG's YCbCr is scaled as decoded, with its chroma planes at their subsampled size, and never expanded to
// RGBA.

const (
	weightBits = 14
	weightOne  = 1 << weightBits
)

// taps is one axis of a separable resampling: output i reads in[start[i] : start[i]+n] with weights w[i*n : i*n+n].
type taps struct {
	n     int
	start []int
	w     []int32
}

// catmullRom is the cubic convolution kernel with a = -0.5 (PIL's bicubic and x/image's CatmullRom).
func catmullRom(x float64) float64 {
	x = math.Abs(x)
	switch {
	case x < 1:
		return (1.5*x-2.5)*x*x + 1
	case x < 2:
		return ((-0.5*x+2.5)*x-4)*x + 2
	}
	return 0
}

// makeTaps maps out samples onto in samples with in/out = scale; output i is centred on input coordinate
// (i+0.5)·scale − 0.5 + offset (offset places a subsampled chroma plane under its luma).
func makeTaps(out, in int, scale, offset float64) taps {
	fs := math.Max(scale, 1)
	radius := 2 * fs
	n := min(in, int(math.Ceil(2*radius))+1)
	t := taps{n: n, start: make([]int, out), w: make([]int32, out*n)}
	fw := make([]float64, n)
	for i := range out {
		c := (float64(i)+0.5)*scale - 0.5 + offset
		lo := max(0, int(math.Ceil(c-radius)))
		hi := min(in-1, int(math.Floor(c+radius)))
		st := min(max(0, lo), in-n)
		t.start[i] = st
		sum := 0.0
		for j := range fw {
			fw[j] = 0
			if k := st + j; k >= lo && k <= hi {
				fw[j] = catmullRom((float64(k) - c) / fs)
				sum += fw[j]
			}
		}
		w := t.w[i*n : i*n+n]
		if sum == 0 {
			// Every tap at a kernel zero (cannot happen for a centre inside the image): take the nearest sample.
			w[min(max(0, int(math.Round(c))-st), n-1)] = weightOne
			continue
		}
		total, big := int32(0), 0
		for j := range w {
			w[j] = int32(math.Round(fw[j] / sum * weightOne))
			total += w[j]
			if w[j] > w[big] {
				big = j
			}
		}
		w[big] += weightOne - total // exact unit gain: flat areas stay exactly flat
	}
	return t
}

// plane is one 8-bit image channel set: ch interleaved channels per pixel, w×h pixels, rows stride bytes apart.
type plane struct {
	pix    []uint8
	stride int
	w, h   int
	ch     int
}

// resamplePlane scales src into dst (both with the same ch) using the given horizontal and vertical taps.
// Vertical first, one output row at a time: that pass is a stream of multiply-adds along whole rows (fast), and the
// horizontal pass, whose taps gather (slow), then runs only on the output's rows. Rows are split across cores.
func resamplePlane(dst, src plane, tx, ty taps) {
	srcBytes := src.w * src.ch
	parallelRows(dst.h, (src.w*ty.n+dst.w*tx.n)*dst.h*src.ch, func(a, b int) {
		acc := make([]int32, srcBytes)
		mid := make([]uint8, srcBytes)
		for y := a; y < b; y++ {
			clear(acc)
			w := ty.w[y*ty.n : (y+1)*ty.n]
			for k, wk := range w {
				if wk == 0 {
					continue
				}
				r := (ty.start[y] + k) * src.stride
				row := src.pix[r : r+srcBytes]
				acc := acc[:len(row)]
				for i, v := range row {
					acc[i] += wk * int32(v)
				}
			}
			for i, v := range acc {
				mid[i] = clamp8(v)
			}
			d := dst.pix[y*dst.stride : y*dst.stride+dst.w*dst.ch]
			if dst.ch == 4 {
				hrow4(d, mid, tx)
				// Premultiplied alpha: a colour channel may not exceed alpha after the kernel's overshoot.
				for i := 0; i+3 < len(d); i += 4 {
					a := d[i+3]
					d[i] = min(d[i], a)
					d[i+1] = min(d[i+1], a)
					d[i+2] = min(d[i+2], a)
				}
			} else {
				hrow1(d, mid, tx)
			}
		}
	})
}

func clamp8(v int32) uint8 {
	v = (v + weightOne/2) >> weightBits
	if uint32(v) > 255 {
		if v < 0 {
			return 0
		}
		return 255
	}
	return uint8(v)
}

func hrow1(d, s []uint8, t taps) {
	n := t.n
	for x := range d {
		st := t.start[x]
		p := s[st : st+n]
		w := t.w[x*n : x*n+n]
		var acc int32
		for k, v := range p {
			acc += w[k] * int32(v)
		}
		d[x] = clamp8(acc)
	}
}

func hrow4(d, s []uint8, t taps) {
	n := t.n
	for x := 0; x < len(d)/4; x++ {
		st := t.start[x] * 4
		p := s[st : st+4*n]
		w := t.w[x*n : x*n+n]
		var r, g, b, a int32
		for k, wk := range w {
			q := p[4*k : 4*k+4 : 4*k+4]
			r += wk * int32(q[0])
			g += wk * int32(q[1])
			b += wk * int32(q[2])
			a += wk * int32(q[3])
		}
		o := d[4*x : 4*x+4 : 4*x+4]
		o[0], o[1], o[2], o[3] = clamp8(r), clamp8(g), clamp8(b), clamp8(a)
	}
}

// parallelRows runs fn over [0, rows) in contiguous chunks, one per core, when the work (in multiply-adds) is big
// enough to pay for the goroutines.
func parallelRows(rows, work int, fn func(a, b int)) {
	p := runtime.GOMAXPROCS(0)
	if p < 2 || work < 1<<18 || rows < 2*p {
		fn(0, rows)
		return
	}
	var wg sync.WaitGroup
	chunk := (rows + p - 1) / p
	for a := 0; a < rows; a += chunk {
		b := min(rows, a+chunk)
		wg.Go(func() { fn(a, b) })
	}
	wg.Wait()
}

// resizeRGBA scales an RGBA image (any sub-image) to s.
func resizeRGBA(m *image.RGBA, s Size) *image.RGBA {
	b := m.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, s.W, s.H))
	sx, sy := float64(b.Dx())/float64(s.W), float64(b.Dy())/float64(s.H)
	src := plane{pix: m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], stride: m.Stride, w: b.Dx(), h: b.Dy(), ch: 4}
	resamplePlane(plane{pix: dst.Pix, stride: dst.Stride, w: s.W, h: s.H, ch: 4}, src,
		makeTaps(s.W, b.Dx(), sx, 0), makeTaps(s.H, b.Dy(), sy, 0))
	return dst
}

// resizeGray scales a Gray image (any sub-image) to s.
func resizeGray(m *image.Gray, s Size) *image.Gray {
	b := m.Bounds()
	dst := image.NewGray(image.Rect(0, 0, s.W, s.H))
	sx, sy := float64(b.Dx())/float64(s.W), float64(b.Dy())/float64(s.H)
	src := plane{pix: m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], stride: m.Stride, w: b.Dx(), h: b.Dy(), ch: 1}
	resamplePlane(plane{pix: dst.Pix, stride: dst.Stride, w: s.W, h: s.H, ch: 1}, src,
		makeTaps(s.W, b.Dx(), sx, 0), makeTaps(s.H, b.Dy(), sy, 0))
	return dst
}

// chromaFactors gives the horizontal and vertical chroma subsampling of ratios whose planes this file scales.
func chromaFactors(r image.YCbCrSubsampleRatio) (fx, fy int, ok bool) {
	switch r {
	case image.YCbCrSubsampleRatio444:
		return 1, 1, true
	case image.YCbCrSubsampleRatio422:
		return 2, 1, true
	case image.YCbCrSubsampleRatio420:
		return 2, 2, true
	case image.YCbCrSubsampleRatio440:
		return 1, 2, true
	}
	return 0, 0, false
}

// resizeYCbCr scales a YCbCr image (any sub-image with a non-negative origin) to s, keeping its subsampling: each
// chroma sample is centred under the luma it covers, in the source and in the result.
func resizeYCbCr(m *image.YCbCr, s Size) (*image.YCbCr, bool) {
	fx, fy, ok := chromaFactors(m.SubsampleRatio)
	b := m.Bounds()
	if !ok || b.Min.X < 0 || b.Min.Y < 0 {
		return nil, false
	}
	dst := image.NewYCbCr(image.Rect(0, 0, s.W, s.H), m.SubsampleRatio)
	sx, sy := float64(b.Dx())/float64(s.W), float64(b.Dy())/float64(s.H)
	resamplePlane(plane{pix: dst.Y, stride: dst.YStride, w: s.W, h: s.H, ch: 1},
		plane{pix: m.Y, stride: m.YStride, w: b.Dx(), h: b.Dy(), ch: 1},
		makeTaps(s.W, b.Dx(), sx, 0), makeTaps(s.H, b.Dy(), sy, 0))
	// The source's chroma plane starts at the sample holding its first luma column/row, which may cover a luma
	// pixel to its left/above (an odd crop origin): offset the centres by that fraction.
	cw0, ch0 := b.Min.X/fx, b.Min.Y/fy
	cw := (b.Max.X+fx-1)/fx - cw0
	chh := (b.Max.Y+fy-1)/fy - ch0
	dcw, dch := (s.W+fx-1)/fx, (s.H+fy-1)/fy
	ox := float64(b.Min.X)/float64(fx) - float64(cw0)
	oy := float64(b.Min.Y)/float64(fy) - float64(ch0)
	tx, ty := makeTaps(dcw, cw, sx, ox), makeTaps(dch, chh, sy, oy)
	for _, p := range [][2][]uint8{{dst.Cb, m.Cb}, {dst.Cr, m.Cr}} {
		resamplePlane(plane{pix: p[0], stride: dst.CStride, w: dcw, h: dch, ch: 1},
			plane{pix: p[1], stride: m.CStride, w: cw, h: chh, ch: 1}, tx, ty)
	}
	return dst, true
}
