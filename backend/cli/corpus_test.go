package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
