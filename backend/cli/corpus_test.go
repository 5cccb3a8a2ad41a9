package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"proofglass/backend/fixture"
)

// TestCacheWarmAndExportCorpus runs the two commands on a real 13-page PDF: warm renders every page once and a second
// run resumes with nothing to do; export writes VRAG's flat img/{stem}_{page}.jpg; bad input names what is wrong.
func TestCacheWarmAndExportCorpus(t *testing.T) {
	pdfPath := fixture.Path(t, "pdf/real/hsaur3-Ch_analysis_of_variance.pdf")
	data := t.TempDir()
	if out, err := run(t, data, "add", "--no-ocr", "--collection", "stats", pdfPath); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	out, err := run(t, data, "cache", "warm", "--collection", "stats")
	if err != nil || !strings.Contains(out, "13 pages rendered") {
		t.Fatalf("warm: %v\n%s", err, out)
	}
	out, err = run(t, data, "cache", "warm")
	if err != nil || !strings.Contains(out, "0 pages rendered") || !strings.Contains(out, "13 already there") {
		t.Fatalf("second warm: %v\n%s", err, out)
	}
	if _, err := run(t, data, "cache", "warm", "--collection", "nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown collection: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "search_engine", "corpus")
	out, err = run(t, data, "export", "corpus", "--collection", "stats", "--out", dir)
	if err != nil || !strings.Contains(out, "13 pages rendered") {
		t.Fatalf("export: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "img", "hsaur3-Ch_analysis_of_variance_*.jpg"))
	if len(files) != 13 {
		t.Errorf("%d page files in %s/img", len(files), dir)
	}
	if info, err := os.Stat(files[0]); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("page file mode: %v %v", info.Mode(), err)
	}
	if _, err := run(t, data, "export", "corpus", "--out", dir); err == nil || !strings.Contains(err.Error(), "--collection") {
		t.Errorf("missing --collection: %v", err)
	}
}

// TestServePrerenderCollection: `serve --prerender-collection` renders the named collection's pages into the page
// cache in the background, and no other's; a collection that does not exist stops serve before it listens.
func TestServePrerenderCollection(t *testing.T) {
	pdfPath := fixture.Path(t, "pdf/real/hsaur3-Ch_analysis_of_variance.pdf")
	other := fixture.Path(t, "pdf/real/blood_loss_report.pdf")
	data := t.TempDir()
	if out, err := run(t, data, "add", "--no-ocr", "--collection", "stats", pdfPath); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	if out, err := run(t, data, "add", "--no-ocr", "--collection", "other", other); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	if _, err := run(t, data, "serve", "--addr", "127.0.0.1:0", "--no-watch", "--prerender-collection", "nope"); err == nil ||
		!strings.Contains(err.Error(), `--prerender-collection "nope"`) {
		t.Fatalf("unknown collection: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	root := NewRoot()
	out := &syncBuffer{}
	root.SetOut(out)
	root.SetErr(out)
	root.SetArgs([]string{"--data", data, "serve", "--addr", "127.0.0.1:0", "--no-watch", "--token", "tok-prerender-test-7c41",
		"--prerender-collection", "stats"})
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	pages := filepath.Join(data, "cache", "pages")
	fixture.WaitFor(t, 120*time.Second, func() bool {
		files, _ := filepath.Glob(filepath.Join(pages, "stats", "*", "hsaur3-Ch_analysis_of_variance_*.jpg"))
		return len(files) == 13
	}, "the 13 pages to be prerendered")
	if files, _ := filepath.Glob(filepath.Join(pages, "other", "*", "*.jpg")); len(files) != 0 {
		t.Errorf("%d page files of a collection not named", len(files))
	}
}
