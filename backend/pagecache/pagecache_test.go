package pagecache

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func key(sha string, page int) Key {
	return Key{Collection: "docs", SHA256: strings.Repeat(sha, 64), Name: "report.pdf", Page: page, DPI: 200}
}

func TestNamesAndLayout(t *testing.T) {
	k := key("a", 3)
	if got := k.File(); got != "report_3.jpg" {
		t.Errorf("file %q", got)
	}
	if got := Stem("../../etc/pass.wd.pdf"); strings.ContainsAny(got, "/\\") {
		t.Errorf("stem %q escapes its folder", got)
	}
	for _, bad := range []string{"", ".", ".."} {
		if SafeName(bad) != "_" {
			t.Errorf("SafeName(%q) = %q", bad, SafeName(bad))
		}
	}
	// Two documents with one stem in one collection keep separate files.
	c := New(t.TempDir(), 0)
	if c.Path(key("a", 1)) == c.Path(key("b", 1)) {
		t.Error("same path for different content")
	}
}

func TestLRUEvictionUnderTheCap(t *testing.T) {
	c := New(t.TempDir(), 1000)
	c.keep = 0
	data := bytes.Repeat([]byte{1}, 300)
	for i := 1; i <= 3; i++ {
		if _, err := c.Put(key("a", i), data); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, ok := c.Get(key("a", 1)); !ok { // page 1 is now the most recently used
		t.Fatal("page 1 missing")
	}
	time.Sleep(5 * time.Millisecond)
	c.Put(key("a", 4), data) // 1,200 bytes > 1,000: evict the least recently used (page 2) until ≤ 900
	if _, ok := c.Get(key("a", 2)); ok {
		t.Error("least recently used page 2 survived")
	}
	if _, ok := c.Get(key("a", 1)); !ok {
		t.Error("recently used page 1 evicted")
	}
	if size, _ := c.Size(); size > 1000 {
		t.Errorf("cache holds %d bytes over its 1,000 cap", size)
	}
	// A fresh process counts what is on disk.
	if size, files := New(c.Root(), 1000).Size(); files != 3 || size != 900 {
		t.Errorf("reloaded: %d files, %d bytes", files, size)
	}
}

func TestPurgeAndScan(t *testing.T) {
	c := New(t.TempDir(), 0)
	pa, _ := c.Put(key("a", 1), []byte("x"))
	pb, _ := c.Put(key("b", 1), []byte("y"))
	os.WriteFile(filepath.Join(c.Root(), "unit-7.jpg"), []byte("old"), 0o600)
	if n := c.PurgeDocument("docs", strings.Repeat("a", 64)); n != 1 {
		t.Errorf("purged %d", n)
	}
	if _, err := os.Stat(pa); !os.IsNotExist(err) {
		t.Error("purged file still there")
	}
	live := Live{}
	stale, err := c.Scan(live.Has) // nothing is live: b's folder and the old file are stale
	if err != nil || len(stale) != 2 {
		t.Fatalf("scan: %v %+v", err, stale)
	}
	live.Add("docs", strings.Repeat("b", 64))
	stale, _ = c.Scan(live.Has)
	if len(stale) != 1 || !strings.HasSuffix(stale[0].Path, "unit-7.jpg") {
		t.Fatalf("scan with b live: %+v", stale)
	}
	c.Remove(stale)
	if _, err := os.Stat(pb); err != nil {
		t.Error("live file removed")
	}
}
