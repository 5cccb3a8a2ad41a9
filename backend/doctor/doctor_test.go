package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"proofglass/backend/config"
	"proofglass/backend/kb"
	"proofglass/backend/kb/kbtest"
)

func find(t *testing.T, checks []Check, name string) Check {
	t.Helper()
	for _, c := range checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check named %q in %+v", name, checks)
	return Check{}
}

// openStore makes a configuration in a temporary folder and opens its knowledge base with one collection.
func openStore(t *testing.T, collection string) (*config.Config, *kb.KB, kb.Collection) {
	t.Helper()
	cfg, err := config.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	k, err := kb.Open(context.Background(), cfg.DBPath(), cfg.BlobDir())
	if err != nil {
		t.Fatal(err)
	}
	c, err := k.Docs.CreateCollection(context.Background(), kb.Collection{Name: collection})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, k, c
}

func TestStoreFindsAndFixesBlobProblems(t *testing.T) {
	ctx := context.Background()
	cfg, k, c := openStore(t, "c")
	orphan, _ := k.Blobs.Put([]byte("nobody uses me"))
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(k.Blobs.Path(orphan), old, old)
	missing := strings.Repeat("cd", 32)
	k.Docs.AddDocument(ctx, kb.Document{CollectionID: c.ID, SHA256: "x", Name: "gone.pdf", Kind: "pdf", Blob: missing})
	k.Close()

	checks := Store(ctx, cfg, false)
	if find(t, checks, "database").OK != true {
		t.Errorf("database check failed on a healthy db: %+v", checks)
	}
	o := find(t, checks, "blobs orphaned")
	if o.OK || !strings.Contains(o.Fix, "--fix") {
		t.Errorf("orphan not reported with a fix: %+v", o)
	}
	m := find(t, checks, "blobs missing")
	if m.OK || !strings.Contains(m.Detail, missing) {
		t.Errorf("missing blob not named: %+v", m)
	}

	checks = Store(ctx, cfg, true)
	if o := find(t, checks, "blobs orphaned"); !o.OK || !strings.Contains(o.Detail, "removed 1") {
		t.Errorf("--fix did not remove the orphan: %+v", o)
	}
	if _, err := os.Stat(filepath.Join(cfg.BlobDir(), orphan[:2], orphan)); !os.IsNotExist(err) {
		t.Errorf("orphan still on disk: %v", err)
	}
}

func TestStoreReportsCorruptDatabase(t *testing.T) {
	cfg, _ := config.Load(t.TempDir())
	if err := os.WriteFile(cfg.DBPath(), []byte(strings.Repeat("this is not a database ", 500)), 0o600); err != nil {
		t.Fatal(err)
	}
	c := find(t, Store(context.Background(), cfg, false), "database")
	if c.OK || c.Fix == "" || !strings.Contains(c.Detail, "proofglass.db") {
		t.Errorf("corrupt database: %+v", c)
	}
}

func TestToolsReportMissingBinaries(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // nothing on PATH
	for _, c := range Tools(context.Background(), []string{"eng"}) {
		if c.OK || !strings.Contains(c.Fix, "apt-get install") {
			t.Errorf("missing %s: %+v", c.Name, c)
		}
	}
}

func TestToolsFindRealBinaries(t *testing.T) {
	for _, bin := range []string{"ffmpeg", "ffprobe", "tesseract"} {
		if _, err := os.Stat("/usr/bin/" + bin); err != nil {
			t.Skipf("%s not installed (scripts/setup.sh installs it)", bin)
		}
	}
	checks := Tools(context.Background(), []string{"eng", "chi_sim", "xx_nonexistent"})
	for _, name := range []string{"ffmpeg", "ffprobe", "tesseract"} {
		if c := find(t, checks, name); !c.OK {
			t.Errorf("%s: %+v", name, c)
		}
	}
	l := find(t, checks, "tesseract languages")
	if l.OK || !strings.Contains(l.Detail, "xx_nonexistent") || strings.Contains(l.Detail, "missing OCR language(s): eng") {
		t.Errorf("languages: %+v", l)
	}
}

// TestStoreCompactsJSONWordBoxes checks that pages whose word boxes an earlier version stored as JSON are reported,
// rewritten by --fix to the compact form with the same boxes, and then reported as done.
func TestStoreCompactsJSONWordBoxes(t *testing.T) {
	ctx := context.Background()
	cfg, k, c := openStore(t, "c")
	d, _, _ := k.Docs.AddDocument(ctx, kb.Document{CollectionID: c.ID, SHA256: "x", Name: "old.pdf", Kind: "pdf", Status: kb.StatusReady})
	words := []kb.Word{{Text: "alpha", X0: 72, Y0: 700.5, X1: 101.25, Y1: 712}, {Text: "beta", X0: 104, Y0: 700.5, X1: 130, Y1: 712}}
	const pages = 300 // more than one batch
	for i := 1; i <= pages; i++ {
		if _, err := k.Content.PutUnit(ctx, kb.Unit{DocumentID: d.ID, Ordinal: i, Kind: kb.UnitPage, Text: "alpha beta", Words: words}); err != nil {
			t.Fatal(err)
		}
	}
	// As an earlier version stored them, and one page whose boxes no longer decode (reading it fails).
	js := `[{"t":"alpha","x0":72,"y0":700.5,"x1":101.25,"y1":712},{"t":"beta","x0":104,"y0":700.5,"x1":130,"y1":712}]`
	refs, rerr := k.Content.UnitRefs(ctx, d.ID)
	if rerr != nil {
		t.Fatal(rerr)
	}
	for _, u := range refs {
		kbtest.SetRawWords(t, k, u.ID, js)
		if u.Ordinal == 7 {
			kbtest.SetRawWords(t, k, u.ID, `[{"t":`)
		}
	}
	k.Close()

	w := find(t, Store(ctx, cfg, false), "word boxes")
	if w.OK || !w.Optional || !strings.Contains(w.Detail, "300 page(s)") || !strings.Contains(w.Fix, "--fix") {
		t.Errorf("JSON word boxes not reported with a fix: %+v", w)
	}
	w = find(t, Store(ctx, cfg, true), "word boxes")
	if !w.OK || !strings.Contains(w.Detail, "rewrote 300 page(s)") || !strings.Contains(w.Detail, "1 of them had unreadable boxes") {
		t.Errorf("--fix: %+v", w)
	}
	if w = find(t, Store(ctx, cfg, false), "word boxes"); !w.OK {
		t.Errorf("after --fix: %+v", w)
	}
	k, err := kb.Open(ctx, cfg.DBPath(), cfg.BlobDir())
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	us, err := k.Content.UnitRefs(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range us {
		full, err := k.Content.Unit(ctx, u.ID)
		if err != nil {
			t.Fatalf("page %d after --fix: %v", u.Ordinal, err)
		}
		if u.Ordinal == 7 {
			if len(full.Words) != 0 {
				t.Errorf("page 7's unreadable boxes became %+v, want none", full.Words)
			}
			continue
		}
		if len(full.Words) != 2 || full.Words[0] != words[0] || full.Words[1] != words[1] {
			t.Fatalf("page %d after --fix: %+v, want %+v", u.Ordinal, full.Words, words)
		}
	}
}

// TestStoreGivesFreePagesBack checks that a database file made mostly of free pages (a large document deleted) is
// reported, and that --fix rewrites it smaller with its remaining pages intact.
func TestStoreGivesFreePagesBack(t *testing.T) {
	ctx := context.Background()
	cfg, k, c := openStore(t, "c")
	keep, _, _ := k.Docs.AddDocument(ctx, kb.Document{CollectionID: c.ID, SHA256: "a", Name: "keep.pdf", Kind: "pdf", Status: kb.StatusReady})
	big, _, _ := k.Docs.AddDocument(ctx, kb.Document{CollectionID: c.ID, SHA256: "b", Name: "big.pdf", Kind: "pdf", Status: kb.StatusReady})
	k.Content.PutUnit(ctx, kb.Unit{DocumentID: keep.ID, Ordinal: 1, Kind: kb.UnitPage, Text: "kept page"})
	text := strings.Repeat("filler words for a long page ", 400)
	for i := 1; i <= 300; i++ {
		if _, err := k.Content.PutUnit(ctx, kb.Unit{DocumentID: big.ID, Ordinal: i, Kind: kb.UnitPage, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.Docs.DeleteDocument(ctx, big.ID); err != nil {
		t.Fatal(err)
	}
	k.Close()

	s := find(t, Store(ctx, cfg, false), "database size")
	if s.OK || !s.Optional || !strings.Contains(s.Fix, "--fix") {
		t.Errorf("free pages not reported: %+v", s)
	}
	before, _ := os.Stat(cfg.DBPath())
	if s = find(t, Store(ctx, cfg, true), "database size"); !s.OK || !strings.Contains(s.Detail, "rewritten") {
		t.Errorf("--fix: %+v", s)
	}
	after, _ := os.Stat(cfg.DBPath())
	if after.Size()*2 > before.Size() {
		t.Errorf("database file %d bytes after --fix, %d before: want less than half", after.Size(), before.Size())
	}
	if s = find(t, Store(ctx, cfg, false), "database size"); !s.OK {
		t.Errorf("after --fix: %+v", s)
	}
	k, err := kb.Open(ctx, cfg.DBPath(), cfg.BlobDir())
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if us, err := k.Content.Units(ctx, keep.ID); err != nil || len(us) != 1 || us[0].Text != "kept page" {
		t.Errorf("kept document after --fix: %+v, %v", us, err)
	}
}

// A deletion journalled and not done (a watcher killed while emptying a folder) is reported, and --fix finishes it:
// the document and its blob go, whatever the blob's age.
func TestStoreFinishesPendingDeletions(t *testing.T) {
	ctx := context.Background()
	cfg, k, c := openStore(t, "c")
	blob, err := k.Blobs.Put([]byte("a deleted file's original"))
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := k.Docs.AddDocument(ctx, kb.Document{CollectionID: c.ID, SHA256: blob, Name: "gone.png", Kind: "image", Blob: blob})
	if err != nil {
		t.Fatal(err)
	}
	kbtest.MarkDeletionPending(t, k, d.ID)
	k.Close()

	p := find(t, Store(ctx, cfg, false), "deletions pending")
	if p.OK || !strings.Contains(p.Detail, "1 document(s)") || !strings.Contains(p.Fix, "--fix") {
		t.Errorf("pending deletion not reported with a fix: %+v", p)
	}
	if p := find(t, Store(ctx, cfg, true), "deletions pending"); !p.OK || !strings.Contains(p.Detail, "1 document(s) deleted") {
		t.Errorf("--fix did not finish the deletion: %+v", p)
	}
	if _, err := os.Stat(filepath.Join(cfg.BlobDir(), blob[:2], blob)); !os.IsNotExist(err) {
		t.Errorf("the deleted document's blob is still on disk: %v", err)
	}
	if p := find(t, Store(ctx, cfg, false), "deletions pending"); !p.OK {
		t.Errorf("after --fix: %+v", p)
	}
}

// doctor names a profile whose stored key was saved for another server than the one it points at now (issue 41).
func TestStoredKeysNamesAKeyForAnotherServer(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Secrets = &config.FileStore{Path: filepath.Join(dir, "secrets.json")}
	cfg.SetProvider(config.Provider{Name: "cloud", Kind: config.KindOpenAI, BaseURL: "https://api.example.com/v1"})
	if err := cfg.Save(); err != nil {
		t.Fatal(err)
	}
	if err := cfg.SetAPIKey("cloud", "sk-cloud"); err != nil {
		t.Fatal(err)
	}
	if cs := StoredKeys(cfg); len(cs) != 0 {
		t.Fatalf("a key at its own server: %+v", cs)
	}
	cfg.SetProvider(config.Provider{Name: "cloud", Kind: config.KindOpenAI, BaseURL: "http://127.0.0.1:9999/v1"})
	if err := cfg.Save(); err != nil {
		t.Fatal(err)
	}
	cs := StoredKeys(cfg)
	if len(cs) != 1 || cs[0].OK || !strings.Contains(cs[0].Detail, "https://api.example.com/v1") || !strings.Contains(cs[0].Detail, "127.0.0.1:9999") {
		t.Errorf("doctor on a key saved for another server: %+v", cs)
	}
	if strings.Contains(cs[0].Detail+cs[0].Fix, "sk-cloud") {
		t.Error("doctor printed the key")
	}
}
