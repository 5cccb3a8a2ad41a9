package lab

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The formats benchmark adds each file in a new process and reports its real page count, CPU and the child's own
// peak RSS; a damaged file fails it with the file's name.
func TestBenchFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("runs new processes")
	}
	t.Setenv(asProofglassEnv, "1")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	formats := filepath.Join("..", "ingest", "testdata", "formats")
	out, err := run(t, "bench", "formats", "--proofglass", self, "--rounds", "1", "--json",
		"--from", filepath.Join(formats, "workbook.xlsx"), "--from", filepath.Join(formats, "book.epub"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	pages := map[string]float64{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not a JSON row: %q", line)
		}
		what, _ := r["what"].(string)
		pages[what], _ = r["n"].(float64)
		if cpu, _ := r["cpu_s"].(float64); cpu <= 0 {
			t.Errorf("%s: no CPU time: %v", what, r)
		}
		if rss, _ := r["peak_rss_mb"].(float64); runtime.GOOS == "linux" && (rss < 5 || rss > 2000) {
			t.Errorf("%s: peak RSS %v MB", what, r["peak_rss_mb"])
		}
	}
	if pages["add workbook.xlsx"] != 4 || pages["add book.epub"] != 2 {
		t.Errorf("pages %v, want the workbook's 4 and the e-book's 2", pages)
	}
	_, err = run(t, "bench", "formats", "--proofglass", self, "--rounds", "1", "--from", filepath.Join(formats, "bad-garbage.epub"))
	if err == nil || !strings.Contains(err.Error(), "bad-garbage.epub") {
		t.Errorf("a damaged file: %v, want an error naming it", err)
	}
}
