package kb

import (
	"bytes"
	"os"
	"testing"
)

// TestBlobBatch stores blobs without per-file syncs, syncs them together, and rewrites a blob left cut short (as a
// power loss between rename and sync can leave it) instead of trusting its name.
func TestBlobBatch(t *testing.T) {
	s, err := NewBlobStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := s.Batch()
	data := [][]byte{[]byte("first thumbnail"), []byte("second thumbnail"), []byte("first thumbnail")}
	var hs []string
	for _, d := range data {
		h, err := w.Put(d)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	if hs[0] != hs[2] || hs[0] == hs[1] {
		t.Fatalf("hashes %v: identical content must share one blob", hs)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(); err != nil { // nothing new: a no-op
		t.Fatal(err)
	}
	for i, h := range hs {
		got, err := s.Get(h)
		if err != nil || !bytes.Equal(got, data[i]) {
			t.Fatalf("blob %d: %q %v", i, got, err)
		}
	}
	if err := os.Truncate(s.Path(hs[1]), 3); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Put(data[1]); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(hs[1]); !bytes.Equal(got, data[1]) {
		t.Errorf("a cut-short blob was kept: %q", got)
	}
	entries, _ := os.ReadDir(s.Dir() + "/tmp")
	if len(entries) != 0 {
		t.Errorf("%d temp files left behind", len(entries))
	}
}
