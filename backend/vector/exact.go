package vector

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Storage is how the exact index keeps its vectors.
type Storage uint8

const (
	// F32 keeps vectors as given (4 bytes a dimension).
	F32 Storage = iota + 1
	// F16 halves memory; IEEE half precision loses about 3 decimal digits, far below embedding noise.
	F16
	// I8 quarters memory: each vector is scaled so its largest component is ±127.
	I8
)

func (s Storage) String() string {
	switch s {
	case F32:
		return "f32"
	case F16:
		return "f16"
	case I8:
		return "i8"
	}
	return fmt.Sprintf("storage(%d)", uint8(s))
}

// Exact is a brute-force index: every search compares the query with every vector. It is exact, has no build cost,
// and is the faster choice for small collections and very selective filters. Rows are kept dense (a delete moves
// the last row into the hole), so there are no tombstones.
//
// Rows live in two segments: base, what was loaded (for a mapped file it aliases the file's pages), and tail, what
// was added since. Adding to a loaded index therefore never copies the loaded rows: at library size one append to a
// single slice copied 70 MB of mapped vectors into the heap.
type Exact struct {
	cfg  Config
	dist func(a, b []float32) float32
	gen  atomic.Uint64

	mu    sync.RWMutex
	base  rows
	tail  rows
	posMu sync.Mutex    // guards building pos
	pos   map[int64]int // id → row (base rows first, then tail); nil until first needed for a mapped file (posMap)
	// While pos is nil, a base loaded with its ids in order (Save writes them so) is searched by bisection and the
	// tail's rows are in tailPos: a new process adding a document's vectors to a mapped library-size index never
	// builds a map of all its ids (50 ms and 10 MB at 173k).
	baseSorted bool
	tailPos    map[int64]int
}

// rows is one segment of an exact index's storage, in the index's storage format.
type rows struct {
	ids    []int64
	f32    []float32
	f16    []uint16
	i8     []int8
	scale  []float32 // I8: per-row scale
	sqnorm []float32 // I8 and F16 under L2: squared norm of the stored row
}

// seg returns the segment holding a row and the row's place in it.
func (e *Exact) seg(row int) (*rows, int) {
	if row < len(e.base.ids) {
		return &e.base, row
	}
	return &e.tail, row - len(e.base.ids)
}

// id returns the id of a row.
func (e *Exact) id(row int) int64 {
	r, i := e.seg(row)
	return r.ids[i]
}

// NewExact returns an empty exact index.
func NewExact(c Config) (*Exact, error) {
	c, err := c.withDefaults()
	if err != nil {
		return nil, err
	}
	if c.Storage < F32 || c.Storage > I8 {
		return nil, fmt.Errorf("vector: bad storage %d", c.Storage)
	}
	return &Exact{cfg: c, dist: distFunc(c.Metric), pos: map[int64]int{}}, nil
}

func (e *Exact) Dims() int              { return e.cfg.Dims }
func (e *Exact) Metric() Metric         { return e.cfg.Metric }
func (e *Exact) Generation() uint64     { return e.gen.Load() }
func (e *Exact) SetGeneration(g uint64) { e.gen.Store(g) }

func (e *Exact) Len() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.n()
}

// n is the number of rows; the caller holds mu.
func (e *Exact) n() int { return len(e.base.ids) + len(e.tail.ids) }

func (e *Exact) Add(id int64, vec []float32) error {
	if err := checkDims(e.cfg.Dims, vec); err != nil {
		return fmt.Errorf("vector: add %d: %w", id, err)
	}
	v := prepare(e.cfg.Metric, vec)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.put(id, v)
	return nil
}

func (e *Exact) AddBatch(ids []int64, vecs [][]float32) error {
	if len(ids) != len(vecs) {
		return fmt.Errorf("vector: add batch: %d ids for %d vectors", len(ids), len(vecs))
	}
	prep := make([][]float32, len(vecs))
	for i, v := range vecs {
		if err := checkDims(e.cfg.Dims, v); err != nil {
			return fmt.Errorf("vector: add %d: %w", ids[i], err)
		}
		prep[i] = prepare(e.cfg.Metric, v)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, v := range prep {
		e.put(ids[i], v)
	}
	return nil
}

// put stores a prepared vector; the caller holds mu. New rows go to the tail.
func (e *Exact) put(id int64, v []float32) {
	row, ok := e.lookup(id)
	if !ok {
		row = e.n()
		if e.pos != nil {
			e.pos[id] = row
		} else {
			if e.tailPos == nil {
				e.tailPos = map[int64]int{}
			}
			e.tailPos[id] = row
		}
		t := &e.tail
		t.ids = append(t.ids, id)
		d := e.cfg.Dims
		switch e.cfg.Storage {
		case F32:
			t.f32 = append(t.f32, make([]float32, d)...)
		case F16:
			t.f16 = append(t.f16, make([]uint16, d)...)
			t.sqnorm = append(t.sqnorm, 0)
		case I8:
			t.i8 = append(t.i8, make([]int8, d)...)
			t.scale = append(t.scale, 0)
			t.sqnorm = append(t.sqnorm, 0)
		}
	}
	e.setRow(row, v)
}

func (e *Exact) setRow(row int, v []float32) {
	r, i := e.seg(row)
	d := e.cfg.Dims
	o := i * d
	switch e.cfg.Storage {
	case F32:
		copy(r.f32[o:o+d], v)
	case F16:
		var n float32
		for j, x := range v {
			h := f32to16(x)
			r.f16[o+j] = h
			y := f16to32[h]
			n += y * y
		}
		r.sqnorm[i] = n
	case I8:
		var m float32
		for _, x := range v {
			m = max(m, float32(math.Abs(float64(x))))
		}
		s := m / 127
		var n float32
		for j, x := range v {
			var q int8
			if s > 0 {
				q = int8(math.Round(float64(x / s)))
			}
			r.i8[o+j] = q
			y := float32(q) * s
			n += y * y
		}
		r.scale[i], r.sqnorm[i] = s, n
	}
}

func (e *Exact) Delete(id int64) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	pos := e.posMap()
	row, ok := pos[id]
	if !ok {
		return false
	}
	last := e.n() - 1
	d := e.cfg.Dims
	dst, i := e.seg(row)
	src, j := e.seg(last)
	if row != last {
		dst.ids[i] = src.ids[j]
		pos[dst.ids[i]] = row
		switch e.cfg.Storage {
		case F32:
			copy(dst.f32[i*d:(i+1)*d], src.f32[j*d:(j+1)*d])
		case F16:
			copy(dst.f16[i*d:(i+1)*d], src.f16[j*d:(j+1)*d])
			dst.sqnorm[i] = src.sqnorm[j]
		case I8:
			copy(dst.i8[i*d:(i+1)*d], src.i8[j*d:(j+1)*d])
			dst.scale[i], dst.sqnorm[i] = src.scale[j], src.sqnorm[j]
		}
	}
	delete(pos, id)
	src.ids = src.ids[:j]
	switch e.cfg.Storage {
	case F32:
		src.f32 = src.f32[:j*d]
	case F16:
		src.f16, src.sqnorm = src.f16[:j*d], src.sqnorm[:j]
	case I8:
		src.i8, src.scale, src.sqnorm = src.i8[:j*d], src.scale[:j], src.sqnorm[:j]
	}
	return true
}

// rowDist is the distance from a prepared query to row i of segment r.
func (e *Exact) rowDist(q []float32, qn float32, r *rows, i int) float32 {
	d := e.cfg.Dims
	o := i * d
	if e.cfg.Storage == F32 {
		return e.dist(q, r.f32[o:o+d:o+d])
	}
	var ip float32
	if e.cfg.Storage == F16 {
		ip = dotF16(q, r.f16[o:o+d:o+d])
	} else {
		ip = dotI8(q, r.i8[o:o+d:o+d]) * r.scale[i]
	}
	switch e.cfg.Metric {
	case L2:
		return qn - 2*ip + r.sqnorm[i]
	case Dot:
		return -ip
	default:
		return 1 - ip
	}
}

func (e *Exact) Search(q []float32, k int, f *Filter) ([]Result, error) {
	if err := checkDims(e.cfg.Dims, q); err != nil {
		return nil, fmt.Errorf("vector: search: %w", err)
	}
	if k <= 0 {
		return nil, nil
	}
	qv := prepare(e.cfg.Metric, q)
	qn := dot(qv, qv)
	e.mu.RLock()
	defer e.mu.RUnlock()
	t := topK{k: k}
	segs := [2]*rows{&e.base, &e.tail}
	switch {
	case f == nil || (f.IDs == nil && f.Allow == nil):
		row := 0
		for _, r := range segs {
			for i := range r.ids {
				t.offer(cand{dist: e.rowDist(qv, qn, r, i), slot: uint32(row)})
				row++
			}
		}
	case f.IDs != nil:
		seen := make(map[int]bool, len(f.IDs))
		for _, id := range f.IDs {
			row, ok := e.lookup(id)
			if !ok || seen[row] || (f.Allow != nil && !f.Allow(id)) {
				continue
			}
			seen[row] = true
			r, i := e.seg(row)
			t.offer(cand{dist: e.rowDist(qv, qn, r, i), slot: uint32(row)})
		}
	default:
		row := 0
		for _, r := range segs {
			for i, id := range r.ids {
				if f.Allow(id) {
					t.offer(cand{dist: e.rowDist(qv, qn, r, i), slot: uint32(row)})
				}
				row++
			}
		}
	}
	res := t.h.sorted()
	out := make([]Result, len(res))
	for i, c := range res {
		out[i] = Result{ID: e.id(int(c.slot)), Dist: c.dist}
	}
	return out, nil
}

// Vector returns a copy of the stored vector of id (dequantised).
func (e *Exact) Vector(id int64) ([]float32, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	row, ok := e.lookup(id)
	if !ok {
		return nil, false
	}
	r, i := e.seg(row)
	return e.row(r, i), true
}

// row returns a copy of row i of segment r, dequantised; the caller holds mu.
func (e *Exact) row(r *rows, i int) []float32 {
	d := e.cfg.Dims
	v := make([]float32, d)
	o := i * d
	switch e.cfg.Storage {
	case F32:
		copy(v, r.f32[o:o+d])
	case F16:
		for j := range v {
			v[j] = f16to32[r.f16[o+j]]
		}
	case I8:
		for j := range v {
			v[j] = float32(r.i8[o+j]) * r.scale[i]
		}
	}
	return v
}

// vectors returns copies of every stored vector (dequantised), for building another index from this one.
func (e *Exact) vectors() ([]int64, [][]float32) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var ids []int64
	var vs [][]float32
	for _, r := range [2]*rows{&e.base, &e.tail} {
		for i, id := range r.ids {
			ids, vs = append(ids, id), append(vs, e.row(r, i))
		}
	}
	return ids, vs
}

// Save payload: count u64, ids (count × u64), then the rows in the storage format (F32: floats; F16: u16 padded to
// 4 bytes; I8: bytes padded to 4, then scales and squared norms as floats; F16 also squared norms). Rows are written
// in id order, so the saved index reads back as one segment whose ids can be bisected (see lookup).
func (e *Exact) Save(path string) error {
	e.mu.RLock()
	defer e.mu.RUnlock()
	n := e.n()
	hd := header{kind: kindExact, metric: e.cfg.Metric, storage: e.cfg.Storage, dims: e.cfg.Dims, count: uint64(n), generation: e.gen.Load()}
	type ref struct {
		r *rows
		i int
	}
	order := make([]ref, 0, n)
	for _, r := range [2]*rows{&e.base, &e.tail} {
		for i := range r.ids {
			order = append(order, ref{r, i})
		}
	}
	slices.SortFunc(order, func(a, b ref) int { return cmp.Compare(a.r.ids[a.i], b.r.ids[b.i]) })
	d := e.cfg.Dims
	return writeFile(path, hd, func(w *bufio.Writer) error {
		writeU64(w, uint64(n))
		for _, o := range order {
			writeU64(w, uint64(o.r.ids[o.i]))
		}
		perRow := func(col func(r *rows) []float32) error {
			for _, o := range order {
				if err := writeF32s(w, col(o.r)[o.i:o.i+1]); err != nil {
					return err
				}
			}
			return nil
		}
		sqnorm := func(r *rows) []float32 { return r.sqnorm }
		switch e.cfg.Storage {
		case F32:
			for _, o := range order {
				if err := writeF32s(w, o.r.f32[o.i*d:(o.i+1)*d]); err != nil {
					return err
				}
			}
			return nil
		case F16:
			for _, o := range order {
				for _, h := range o.r.f16[o.i*d : (o.i+1)*d] {
					w.WriteByte(byte(h))
					w.WriteByte(byte(h >> 8))
				}
			}
			if n*d%2 == 1 {
				w.Write([]byte{0, 0})
			}
			return perRow(sqnorm)
		default:
			for _, o := range order {
				for _, q := range o.r.i8[o.i*d : (o.i+1)*d] {
					w.WriteByte(byte(q))
				}
			}
			w.Write(make([]byte, (4-n*d%4)%4))
			if err := perRow(func(r *rows) []float32 { return r.scale }); err != nil {
				return err
			}
			return perRow(sqnorm)
		}
	})
}

func (e *Exact) Load(path string) error {
	hd, buf, err := readFile(path)
	if err != nil {
		return err
	}
	return e.loadPayload(path, hd, buf, false)
}

// posMap returns the id → row map, building it on first use for an index opened from a mapped file (a search
// without an id filter never needs it, so a new process does not pay for it). Callers hold mu, shared or not.
func (e *Exact) posMap() map[int64]int {
	e.posMu.Lock()
	defer e.posMu.Unlock()
	if e.pos == nil {
		e.pos = make(map[int64]int, e.n())
		row := 0
		for _, r := range [2]*rows{&e.base, &e.tail} {
			for _, id := range r.ids {
				e.pos[id] = row
				row++
			}
		}
	}
	return e.pos
}

// lookup finds the row of id without building the id map where the base's ids are in order; callers hold mu.
func (e *Exact) lookup(id int64) (int, bool) {
	e.posMu.Lock()
	sorted, pos := e.baseSorted, e.pos
	e.posMu.Unlock()
	if pos != nil || !sorted {
		row, ok := e.posMap()[id]
		return row, ok
	}
	if i, ok := slices.BinarySearch(e.base.ids, id); ok {
		return i, true
	}
	row, ok := e.tailPos[id]
	return row, ok
}

// loadPayload replaces the index's contents with a verified header's payload; F32 rows alias buf. With lazy (a
// mapped file) the ids alias buf too where the host allows, and the id map waits for its first use.
func (e *Exact) loadPayload(path string, hd header, buf []byte, lazy bool) error {
	if err := checkHeader(path, hd, kindExact, e.cfg.Metric, e.cfg.Dims); err != nil {
		return err
	}
	if hd.storage != e.cfg.Storage {
		return fmt.Errorf("vector: load %s: storage %v, index uses %v: %w", path, hd.storage, e.cfg.Storage, ErrKind)
	}
	cur := &cursor{b: buf}
	n := cur.u64()
	if cur.err != nil || n != hd.count || n > uint64(len(buf))/8 {
		return fmt.Errorf("vector: load %s: count %d: %w", path, n, ErrCorrupt)
	}
	cnt, d := int(n), e.cfg.Dims
	var ids []int64
	var pos map[int64]int
	if raw := cur.take(8 * cnt); lazy && littleEndian && cnt > 0 && raw != nil && uintptr(unsafe.Pointer(&raw[0]))%8 == 0 {
		ids = unsafe.Slice((*int64)(unsafe.Pointer(&raw[0])), cnt)
	} else if cur.err == nil {
		ids = make([]int64, cnt)
		pos = make(map[int64]int, cnt)
		for i := range ids {
			ids[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
			if _, dup := pos[ids[i]]; dup {
				return fmt.Errorf("vector: load %s: id %d twice: %w", path, ids[i], ErrCorrupt)
			}
			pos[ids[i]] = i
		}
		if lazy {
			pos = nil
		}
	}
	var f32 []float32
	var f16 []uint16
	var i8 []int8
	var scale, sqnorm []float32
	if uint64(cnt)*uint64(d) > uint64(len(buf)) {
		return fmt.Errorf("vector: load %s: %d rows do not fit: %w", path, cnt, ErrCorrupt)
	}
	switch e.cfg.Storage {
	case F32:
		f32 = cur.f32s(cnt * d)
	case F16:
		raw := cur.take(2 * cnt * d)
		cur.take((4 - (2*cnt*d)%4) % 4)
		if cur.err == nil {
			f16 = make([]uint16, cnt*d)
			for i := range f16 {
				f16[i] = uint16(raw[2*i]) | uint16(raw[2*i+1])<<8
			}
		}
		sqnorm = append([]float32(nil), cur.f32s(cnt)...)
	case I8:
		raw := cur.take(cnt * d)
		cur.take((4 - (cnt*d)%4) % 4)
		if cur.err == nil {
			i8 = make([]int8, cnt*d)
			for i := range i8 {
				i8[i] = int8(raw[i])
			}
		}
		scale = append([]float32(nil), cur.f32s(cnt)...)
		sqnorm = append([]float32(nil), cur.f32s(cnt)...)
	}
	if cur.err != nil {
		return fmt.Errorf("vector: load %s: %w", path, cur.err)
	}
	if cur.off != len(buf) {
		return fmt.Errorf("vector: load %s: %d trailing bytes: %w", path, len(buf)-cur.off, ErrCorrupt)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.posMu.Lock()
	e.base = rows{ids: ids[:len(ids):len(ids)], f32: f32[:len(f32):len(f32)], f16: f16, i8: i8, scale: scale, sqnorm: sqnorm}
	e.tail = rows{}
	e.pos, e.tailPos = pos, nil
	e.baseSorted = pos == nil && slices.IsSorted(ids)
	e.posMu.Unlock()
	e.gen.Store(hd.generation)
	return nil
}

func dotI8(a []float32, b []int8) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * float32(b[i])
		s1 += a[i+1] * float32(b[i+1])
		s2 += a[i+2] * float32(b[i+2])
		s3 += a[i+3] * float32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += a[i] * float32(b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

func dotF16(a []float32, b []uint16) float32 {
	b = b[:len(a)]
	t := &f16to32
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * t[b[i]]
		s1 += a[i+1] * t[b[i+1]]
		s2 += a[i+2] * t[b[i+2]]
		s3 += a[i+3] * t[b[i+3]]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * t[b[i]]
	}
	return (s0 + s1) + (s2 + s3)
}

// f16to32 decodes every half-precision value once; a table lookup beats bit twiddling in the scan loop.
var f16to32 = func() (t [1 << 16]float32) {
	for h := range t {
		t[h] = half(uint16(h))
	}
	return t
}()

func half(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0 && man == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		return float32(math.Ldexp(float64(man), -24)) * (1 - 2*float32(h>>15))
	case exp == 31:
		return math.Float32frombits(sign | 0xff<<23 | man<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

// f32to16 rounds to the nearest half-precision value (ties away from zero), saturating to ±Inf.
func f32to16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	man := b & 0x7fffff
	switch {
	case exp >= 31:
		if b&0x7fffffff > 0x7f800000 { // NaN
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint32(14 - exp)
		h := man >> shift
		if man>>(shift-1)&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | man>>13
	if man&0x1000 != 0 {
		h++ // may carry into the exponent, which is the correct rounding
	}
	if h >= 0x7c00 {
		return sign | 0x7c00
	}
	return sign | uint16(h)
}
