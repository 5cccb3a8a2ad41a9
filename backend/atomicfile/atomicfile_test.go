package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	for _, content := range []string{"first", "second, longer than the first", ""} {
		if err := Write(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil || string(b) != content {
			t.Fatalf("read %q, %v; want %q", b, err, content)
		}
	}
	if fi, _ := os.Stat(p); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	assertOnly(t, dir, "f.json")
}

func TestWriteWithFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := Write(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteWith(p, 0o644, func(f *os.File) error {
		f.Write([]byte("half of the new"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("after a failed write: %q, want old", b)
	}
	assertOnly(t, dir, "f")
	// fill may write out of order (a header patched in at the end).
	if err := WriteWith(p, 0o644, func(f *os.File) error {
		if _, err := f.Write([]byte("....body")); err != nil {
			return err
		}
		_, err := f.WriteAt([]byte("head"), 0)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "headbody" {
		t.Errorf("got %q", b)
	}
}

func TestWriteMissingDir(t *testing.T) {
	if err := Write(filepath.Join(t.TempDir(), "no", "f"), nil, 0o600); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

// assertOnly checks that no temp file is left beside the written one.
func assertOnly(t *testing.T, dir, name string) {
	t.Helper()
	es, _ := os.ReadDir(dir)
	if len(es) != 1 || es[0].Name() != name {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("dir holds %v, want only %s", names, name)
	}
}

// A file whose name fits the file system is written however long that name is, in any script: the temp file beside
// it must fit too (issue 41: pages of documents with 240–255-byte names were never written).
func TestWriteLongNames(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{
		strings.Repeat("a", 240) + "_1.jpg",  // 246 bytes
		strings.Repeat("b", 248) + "_12.jpg", // 255 bytes, the longest a name can be
		strings.Repeat("报", 83) + "_3.jpg",   // 83 Chinese characters, 3 bytes each: 255 bytes
		strings.Repeat("é", 100) + "x_4.jpg", // 2-byte characters cut at a boundary
	} {
		p := filepath.Join(dir, name)
		if err := Write(p, []byte(name), 0o600); err != nil {
			t.Errorf("write a %d-byte name: %v", len(name), err)
			continue
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != name {
			t.Errorf("read back a %d-byte name: %v", len(name), err)
		}
		if p := tempPattern(name); len(p)-1+10 > NameMax || !utf8.ValidString(p) {
			t.Errorf("temp pattern of a %d-byte name is %d bytes or not UTF-8", len(name), len(p))
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Errorf("%d files left, want the 4 written and no temp file", len(entries))
	}
}
