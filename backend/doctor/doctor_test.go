package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"loupe/backend/config"
	"loupe/backend/kb"
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

func TestStoreFindsAndFixesBlobProblems(t *testing.T) {
	ctx := context.Background()
	cfg, err := config.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	k, err := kb.Open(ctx, cfg.DBPath(), cfg.BlobDir())
	if err != nil {
		t.Fatal(err)
	}
	c, _ := k.CreateCollection(ctx, kb.Collection{Name: "c"})
	orphan, _ := k.Blobs.Put([]byte("nobody uses me"))
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(k.Blobs.Path(orphan), old, old)
	missing := strings.Repeat("cd", 32)
	k.AddDocument(ctx, kb.Document{CollectionID: c.ID, SHA256: "x", Name: "gone.pdf", Kind: "pdf", Blob: missing})
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
	if c.OK || c.Fix == "" || !strings.Contains(c.Detail, "loupe.db") {
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
