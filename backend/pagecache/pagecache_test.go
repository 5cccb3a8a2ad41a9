package pagecache

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func key(sha string, page int) Key {
	return Key{Collection: "docs", SHA256: strings.Repeat(sha, 64), Name: "report.pdf", Page: page, DPI: 200}
}

func TestNamesAndLayout(t *testing.T) {
	k := key("a", 3)
	if got := k.File(); got != "report_3.jpg" {
		t.Errorf("file %q", got)
	}
	if got := Stem("../../etc/pass.wd.pdf", true); strings.ContainsAny(got, "/\\") {
		t.Errorf("stem %q escapes its folder", got)
	}
	for _, bad := range []string{"", ".", ".."} {
		if SafeName(bad) != "_" {
			t.Errorf("SafeName(%q) = %q", bad, SafeName(bad))
		}
	}
	// Two documents with one stem in one collection keep separate files.
	c := New(t.TempDir(), Options{})
	if c.Path(key("a", 1)) == c.Path(key("b", 1)) {
		t.Error("same path for different content")
	}
}

func TestLRUEvictionUnderTheCap(t *testing.T) {
	clk := &clock{t: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)}
	c := New(t.TempDir(), Options{MaxBytes: 1000, Lease: time.Nanosecond, Now: clk.now})
	data := bytes.Repeat([]byte{1}, 300)
	for i := 1; i <= 3; i++ {
		if _, err := c.Put(key("a", i), data); err != nil {
			t.Fatal(err)
		}
		clk.advance(5 * time.Millisecond)
	}
	if _, ok := c.Get(key("a", 1)); !ok { // page 1 is now the most recently used
		t.Fatal("page 1 missing")
	}
	clk.advance(5 * time.Millisecond)
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
	if size, files := New(c.Root(), Options{MaxBytes: 1000}).Size(); files != 3 || size != 900 {
		t.Errorf("reloaded: %d files, %d bytes", files, size)
	}
}

func TestPurgeAndScan(t *testing.T) {
	c := New(t.TempDir(), Options{})
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

// clock is a test's time: it moves only when told.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// TestHandedOutPageOutlivesASlowTurn reproduces issue 31's eviction: a cache far smaller than one turn's pages, a
// page handed out in one turn, a 65 s pause (a slow generation), and the next turn's new pages. The page must still
// be there for the crop VRAG-RL makes of it; after the lease it goes like any other.
func TestHandedOutPageOutlivesASlowTurn(t *testing.T) {
	clk := &clock{t: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)}
	c := New(t.TempDir(), Options{MaxBytes: 500, Now: clk.now})
	data := bytes.Repeat([]byte{7}, 400)
	turn1, err := c.Put(key("a", 1), data) // turn 1 hands out page 1
	if err != nil {
		t.Fatal(err)
	}
	clk.advance(65 * time.Second)
	if _, err := c.Put(key("a", 2), data); err != nil { // turn 2: a new page takes the cache over its cap
		t.Fatal(err)
	}
	if _, err := os.Stat(turn1); err != nil {
		t.Fatalf("page handed out 65 s ago was evicted: %v", err)
	}
	// Another process (a fresh cache over the same folder) honours the lease too: it reads it from the file's time.
	other := New(c.Root(), Options{MaxBytes: 500, Now: clk.now})
	if _, err := other.Put(key("a", 3), data); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(turn1); err != nil {
		t.Fatalf("another process evicted a leased page: %v", err)
	}
	clk.advance(DefaultLease)
	if _, err := c.Put(key("a", 4), data); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(turn1); err == nil {
		t.Error("page kept after its lease ran out: the cap no longer holds")
	}
	if size, _ := c.Size(); size > 500 {
		t.Errorf("after the leases ran out the cache holds %d bytes over its 500 cap", size)
	}
}

func TestAddedPagesAreNotLeased(t *testing.T) {
	clk := &clock{t: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)}
	c := New(t.TempDir(), Options{MaxBytes: 500, Now: clk.now})
	data := bytes.Repeat([]byte{7}, 400)
	warmed, _ := c.Add(key("a", 1), data)
	clk.advance(time.Second)
	c.Put(key("a", 2), data)
	if _, err := os.Stat(warmed); err == nil {
		t.Error("a page rendered ahead (never handed out) was kept over the cap like a leased one")
	}
	if !c.Has(key("a", 2)) || c.Has(key("a", 1)) {
		t.Error("Has disagrees with the folder")
	}
}

func TestGroupReadable(t *testing.T) {
	for _, group := range []bool{false, true} {
		c := New(t.TempDir(), Options{GroupReadable: group})
		p, err := c.Put(key("a", 1), []byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		info, _ := os.Stat(p)
		dir, _ := os.Stat(filepath.Dir(p))
		if info.Mode().Perm() != FileMode(group) || dir.Mode().Perm() != DirMode(group) {
			t.Errorf("group %v: file %v, folder %v", group, info.Mode().Perm(), dir.Mode().Perm())
		}
	}
}

// stemCases is issue 31's table: names VRAG-RL's reward turns into golden page names with file_name.split('.pdf')[0].
var stemCases = []struct {
	name  string
	isPDF bool
	want  string // "" = compare with VRAG's rule only
}{
	{"report.pdf", true, "report"},
	{"report.PDF", true, "report.PDF"}, // split is case-sensitive
	{"a.pdf.backup.pdf", true, "a"},
	{"v1.2.final.pdf", true, "v1.2.final"},
	{"notes.pdfx.pdf", true, "notes"},
	{".pdf", true, ""},
	{"no extension", true, "no extension"},
	{"年度报告 2024.pdf", true, "年度报告 2024"},
	{"with space & (parens).pdf", true, "with space & (parens)"},
	{strings.Repeat("long", 70) + ".pdf", true, strings.Repeat("long", 70)},
	{strings.Repeat("长", 100) + ".pdf", true, strings.Repeat("长", 100)},
	{"photo.png", false, "photo"},
	{"scan.pdf.png", false, "scan.pdf"},
	{"clip.final.mp4", false, "clip.final"},
}

func TestStemsFollowVRAG(t *testing.T) {
	for _, tc := range stemCases {
		if got := Stem(tc.name, tc.isPDF); got != tc.want {
			t.Errorf("Stem(%q) = %q, want %q", tc.name, got, tc.want)
		}
		for _, page := range []int{1, 12, 2415} {
			f := FileName(tc.name, tc.isPDF, page)
			suffix := "_" + itoa(page) + ".jpg"
			if len(f) > NameMax || !strings.HasSuffix(f, suffix) || !utf8.ValidString(f) {
				t.Errorf("FileName(%q, %d) = %q (%d bytes): over the limit, or lost its page suffix", tc.name, page, f, len(f))
			}
			if len(tc.want)+len(suffix) <= NameMax && f != tc.want+suffix {
				t.Errorf("FileName(%q, %d) = %q, cut though it fits", tc.name, page, f)
			}
		}
	}
	// A name over the limit is cut at a character boundary and the page still told apart.
	long := strings.Repeat("长", 100) + ".pdf"
	if a, b := FileName(long, true, 1), FileName(long, true, 2); a == b || len(a) > NameMax {
		t.Errorf("cut names %q, %q", a, b)
	}
	// The file can be made on this file system.
	dir := t.TempDir()
	for _, tc := range stemCases {
		if err := os.WriteFile(filepath.Join(dir, FileName(tc.name, tc.isPDF, 2415)), nil, 0o600); err != nil {
			t.Errorf("%q: %v", tc.name, err)
		}
	}

	// VRAG's own rule, run by Python, agrees on every PDF name.
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not on PATH: the comparison with VRAG's file_name.split('.pdf')[0] is skipped")
	}
	var names []string
	for _, tc := range stemCases {
		if tc.isPDF {
			names = append(names, tc.name)
		}
	}
	in, _ := json.Marshal(names)
	cmd := exec.Command(py, "-c", `import json,sys
print(json.dumps([n.split('.pdf')[0] for n in json.load(sys.stdin)]))`)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil || len(want) != len(names) {
		t.Fatalf("python3 said %s: %v", out, err)
	}
	for i, n := range names {
		if got := Stem(n, true); got != want[i] {
			t.Errorf("Stem(%q) = %q, VRAG's rule gives %q", n, got, want[i])
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// A page of a document whose name is as long as a file name may be (or longer), in Latin or Chinese, is written and
// read back: none drops out of what serve hands VRAG (issue 41, row 2).
func TestPagesOfLongNamesAreWritten(t *testing.T) {
	c := New(t.TempDir(), Options{})
	for _, name := range []string{strings.Repeat("r", 245) + ".pdf", strings.Repeat("年度报告", 21) + ".pdf", strings.Repeat("x", 400) + ".pdf"} {
		for _, page := range []int{1, 106} {
			k := Key{Collection: "c", SHA256: strings.Repeat("ab", 32), Name: name, DPI: 200, Page: page}
			path, err := c.Put(k, []byte("jpeg"))
			if err != nil {
				t.Fatalf("page %d of a %d-byte name: %v", page, len(name), err)
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != "jpeg" || len(filepath.Base(path)) > NameMax {
				t.Errorf("page %d of a %d-byte name: %q (%d bytes), %v", page, len(name), filepath.Base(path), len(filepath.Base(path)), err)
			}
		}
	}
}

// A page file's name fits a whole-path bound as Windows programs have one (MAX_PATH): the stem is cut so that the
// folder, a separator and the name are at most 259 UTF-16 characters, a CJK name counted in characters, the page
// suffix kept; with no bound (MaxPath 0, every platform but Windows) only the name's 255 bytes bound it.
func TestFileNamesFitAWholePathBound(t *testing.T) {
	dir := `C:\Users\someone\AppData\Roaming\Proofglass\cache\pages\default\` + strings.Repeat("ab", 32) + "-200dpi"
	for _, name := range []string{strings.Repeat("r", 245) + ".pdf", strings.Repeat("年度报告", 21) + ".pdf", "short.pdf"} {
		for _, page := range []int{1, 106} {
			got := fileName(name, true, page, dir, 259)
			if n := utf16Len(dir) + 1 + utf16Len(got); n > 259 || !strings.HasSuffix(got, "_"+itoa(page)+".jpg") {
				t.Errorf("%d-byte name, page %d: %q makes a %d-character path", len(name), page, got, n)
			}
			if !strings.HasPrefix(Stem(name, true), strings.TrimSuffix(got, "_"+itoa(page)+".jpg")) {
				t.Errorf("%q is not a cut of the stem", got)
			}
			if name == "short.pdf" && got != "short_"+itoa(page)+".jpg" {
				t.Errorf("a short name was cut: %q", got)
			}
			if unbound := fileName(name, true, page, dir, 0); unbound != FileName(name, true, page) {
				t.Errorf("no bound: %q, FileName %q", unbound, FileName(name, true, page))
			}
		}
	}
	// A folder already past the bound still gets a name with its page.
	if got := fileName("report.pdf", true, 3, strings.Repeat("d", 300), 259); got != "_3.jpg" {
		t.Errorf("a folder past the bound: %q", got)
	}
}
