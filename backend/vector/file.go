package vector

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"unsafe"

	"proofglass/backend/atomicfile"
)

// File layout: a 64-byte little-endian header, then the payload of the index kind. The header carries its own CRC
// (so a garbled count is caught before anything is allocated) and the payload's CRC.
//
//	0  magic "LOUPEVEC"   8  version u32   12 kind u8   13 metric u8   14 storage u8   15 reserved u8
//	16 dims u32           20 reserved u32  24 count u64 32 generation u64 40 payload length u64
//	48 payload CRC-32C    52 header CRC-32C of bytes 0..51                56 reserved to 64
const (
	fileMagic   = "LOUPEVEC"
	fileVersion = 1
	headerSize  = 64

	kindExact uint8 = 1
	kindHNSW  uint8 = 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type header struct {
	kind       uint8
	metric     Metric
	storage    Storage
	dims       int
	count      uint64
	generation uint64
	payloadLen uint64
	payloadCRC uint32
}

func (h header) encode() []byte {
	b := make([]byte, headerSize)
	copy(b, fileMagic)
	le := binary.LittleEndian
	le.PutUint32(b[8:], fileVersion)
	b[12], b[13], b[14] = h.kind, byte(h.metric), byte(h.storage)
	le.PutUint32(b[16:], uint32(h.dims))
	le.PutUint64(b[24:], h.count)
	le.PutUint64(b[32:], h.generation)
	le.PutUint64(b[40:], h.payloadLen)
	le.PutUint32(b[48:], h.payloadCRC)
	le.PutUint32(b[52:], crc32.Checksum(b[:52], castagnoli))
	return b
}

func decodeHeader(b []byte) (header, error) {
	le := binary.LittleEndian
	if len(b) < headerSize || string(b[:8]) != fileMagic {
		return header{}, fmt.Errorf("bad magic: %w", ErrCorrupt)
	}
	if crc32.Checksum(b[:52], castagnoli) != le.Uint32(b[52:]) {
		return header{}, fmt.Errorf("header checksum mismatch: %w", ErrCorrupt)
	}
	if v := le.Uint32(b[8:]); v != fileVersion {
		return header{}, fmt.Errorf("file version %d, want %d: %w", v, fileVersion, ErrCorrupt)
	}
	return header{
		kind:       b[12],
		metric:     Metric(b[13]),
		storage:    Storage(b[14]),
		dims:       int(le.Uint32(b[16:])),
		count:      le.Uint64(b[24:]),
		generation: le.Uint64(b[32:]),
		payloadLen: le.Uint64(b[40:]),
		payloadCRC: le.Uint32(b[48:]),
	}, nil
}

// crcWriter checksums what passes through it.
type crcWriter struct {
	w   io.Writer
	crc uint32
	n   uint64
}

func (c *crcWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.crc = crc32.Update(c.crc, castagnoli, p[:n])
	c.n += uint64(n)
	return n, err
}

// writeFile writes header h and the payload written by body to path whole or not at all (atomicfile), so a crash
// leaves either the old file or the new one.
func writeFile(path string, h header, body func(w *bufio.Writer) error) error {
	err := atomicfile.WriteWith(path, 0o600, func(f *os.File) error {
		if _, err := f.Write(make([]byte, headerSize)); err != nil {
			return err
		}
		cw := &crcWriter{w: f}
		bw := bufio.NewWriterSize(cw, 1<<20)
		if err := body(bw); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		h.payloadLen, h.payloadCRC = cw.n, cw.crc
		_, err := f.WriteAt(h.encode(), 0)
		return err
	})
	if err != nil {
		return fmt.Errorf("vector: save: %w", err)
	}
	return nil
}

// readFile reads and verifies a whole index file. The payload is returned as one buffer that float32 sections may
// alias, so loading costs a read and a checksum, not a decode.
func readFile(path string) (header, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return header{}, nil, fmt.Errorf("vector: load %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return header{}, nil, fmt.Errorf("vector: load %s: %w", path, err)
	}
	hb := make([]byte, headerSize)
	if _, err := io.ReadFull(f, hb); err != nil {
		return header{}, nil, fmt.Errorf("vector: load %s: header: %w (%v)", path, ErrCorrupt, err)
	}
	h, err := decodeHeader(hb)
	if err != nil {
		return header{}, nil, fmt.Errorf("vector: load %s: %w", path, err)
	}
	if h.payloadLen != uint64(st.Size())-headerSize {
		return header{}, nil, fmt.Errorf("vector: load %s: payload is %d bytes, header says %d (torn write?): %w",
			path, st.Size()-headerSize, h.payloadLen, ErrCorrupt)
	}
	// Allocate as float32s so the buffer is 4-byte aligned for aliasing.
	words := make([]float32, (h.payloadLen+3)/4)
	buf := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*4)[:h.payloadLen]
	if _, err := io.ReadFull(f, buf); err != nil {
		return header{}, nil, fmt.Errorf("vector: load %s: %w (%v)", path, ErrCorrupt, err)
	}
	if crc32.Checksum(buf, castagnoli) != h.payloadCRC {
		return header{}, nil, fmt.Errorf("vector: load %s: payload checksum mismatch: %w", path, ErrCorrupt)
	}
	return h, buf, nil
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// cursor reads a payload with bounds checks; the first short read sticks as err.
type cursor struct {
	b   []byte
	off int
	err error
}

func (c *cursor) take(n int) []byte {
	if c.err != nil {
		return nil
	}
	if n < 0 || n > len(c.b)-c.off {
		c.err = fmt.Errorf("payload ends early at byte %d: %w", c.off, ErrCorrupt)
		return nil
	}
	p := c.b[c.off : c.off+n]
	c.off += n
	return p
}

func (c *cursor) u8() uint8 {
	if p := c.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (c *cursor) u32() uint32 {
	if p := c.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (c *cursor) u64() uint64 {
	if p := c.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

// align skips to a multiple of 4 so a following float32 section can be aliased.
func (c *cursor) align() { c.take((4 - c.off%4) % 4) }

// f32s returns n float32s, aliasing the buffer on little-endian hosts.
func (c *cursor) f32s(n int) []float32 {
	if n > math.MaxInt32*2 {
		c.err = fmt.Errorf("section of %d floats: %w", n, ErrCorrupt)
		return nil
	}
	p := c.take(4 * n)
	if p == nil || n == 0 {
		return nil
	}
	if littleEndian {
		return unsafe.Slice((*float32)(unsafe.Pointer(&p[0])), n)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
	}
	return out
}

func writeU32(w *bufio.Writer, v uint32) error {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	_, err := w.Write(b[:])
	return err
}

func writeU64(w *bufio.Writer, v uint64) error {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	_, err := w.Write(b[:])
	return err
}

// writeF32s writes floats little-endian, straight from memory where the host is little-endian.
func writeF32s(w *bufio.Writer, v []float32) error {
	if len(v) == 0 {
		return nil
	}
	if littleEndian {
		_, err := w.Write(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v)))
		return err
	}
	for _, x := range v {
		if err := writeU32(w, math.Float32bits(x)); err != nil {
			return err
		}
	}
	return nil
}

// checkHeader compares a file's header with the index that loads it.
func checkHeader(path string, h header, kind uint8, m Metric, dims int) error {
	if h.kind != kind {
		return fmt.Errorf("vector: load %s: kind %d, want %d: %w", path, h.kind, kind, ErrKind)
	}
	if h.metric != m {
		return fmt.Errorf("vector: load %s: metric %v, index uses %v: %w", path, h.metric, m, ErrKind)
	}
	if h.dims != dims {
		return fmt.Errorf("vector: load %s: file has %d dims, index has %d: %w", path, h.dims, dims, ErrDims)
	}
	return nil
}
