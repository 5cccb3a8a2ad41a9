package ingest

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// countingReaderAt counts the bytes read from a virtual file of zeros with one marked byte.
type countingReaderAt struct {
	size, mark int64
	read       atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= c.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), c.size-off))
	clear(p[:n])
	if c.mark >= off && c.mark < off+int64(n) {
		p[c.mark-off] = 1
	}
	c.read.Add(int64(n))
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// A refused file is identified without reading it whole: a 20 GB one costs its two ends, not 91 s (issue 41, row 6).
func TestRejectedFingerprintReadsTheEndsOnly(t *testing.T) {
	small := bytes.Repeat([]byte("x"), 1000)
	full, _, _ := hashReader(bytes.NewReader(small))
	if got, err := rejectedFingerprint(bytes.NewReader(small), int64(len(small))); err != nil || got != full {
		t.Errorf("a small file: %s, %v; want its SHA-256 %s", got, err, full)
	}
	const size = 20 << 30
	big := &countingReaderAt{size: size, mark: -1}
	a, err := rejectedFingerprint(big, size)
	if err != nil {
		t.Fatal(err)
	}
	if n := big.read.Load(); n > 2*rejectSpan {
		t.Errorf("read %d bytes of a 20 GB file, want at most %d", n, 2*rejectSpan)
	}
	tail := &countingReaderAt{size: size, mark: size - 10}
	if b, _ := rejectedFingerprint(tail, size); b == a {
		t.Error("files that differ at the end have one fingerprint")
	}
	other := &countingReaderAt{size: size + 1, mark: -1}
	if b, _ := rejectedFingerprint(other, size+1); b == a {
		t.Error("files of different sizes have one fingerprint")
	}
}

// A large file named .pdf that holds no PDF fails with the reason, beside a good file in the same batch.
func TestLargeNonPDFIsRefusedWithItsReason(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.pdf")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(200 << 20); err != nil { // sparse: 200 MB of zeros, no disk
		t.Fatal(err)
	}
	f.Close()
	k := openKB(t, t.TempDir())
	in := New(k, nil, Options{PDF: workerOptions(), Workers: 1, NoOCR: true})
	defer in.Close()
	res, err := in.Add(context.Background(), "c", []string{big}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || !strings.Contains(res[0].Error, "big.pdf") || !strings.Contains(res[0].Error, "not a PDF") || res[0].Document.Blob != "" {
		t.Errorf("a 200 MB file of zeros named .pdf: %+v", res)
	}
}
