package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"proofglass/backend/cli"
	"proofglass/backend/fixture"
	"proofglass/backend/kb"
	"proofglass/backend/pdf"
)

// asProofglassEnv makes the test binary be the shipped proofglass CLI for its arguments, so that `proofglass-lab bench
// library --proofglass <test binary>` can start its new `proofglass search`, `add` and `documents delete` processes.
const asProofglassEnv = "PROOFGLASS_TEST_AS_PROOFGLASS"

func init() {
	if os.Getenv(asProofglassEnv) != "1" || (len(os.Args) > 1 && os.Args[1] == pdf.WorkerCommand) {
		return
	}
	os.Exit(cli.Execute(context.Background(), os.Args[1:]))
}

// TestMain lets the test binary serve as the pdf worker, as proofglass-lab does: the pdf client re-executes
// os.Executable() with pdf.WorkerCommand.
func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

// run runs proofglass-lab with args and returns its output.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root, _ := NewRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

// A small library benchmark runs end to end: the collection is built, searched in new processes, in process and
// through the server, and one more document is added and deleted again by new processes, leaving the collection as
// it was.
func TestBenchLibrarySmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a collection and runs new processes")
	}
	from := t.TempDir()
	for _, p := range []string{"pdf/real/hsaur3-Ch_analysis_of_variance.pdf", "pdf/real/hsaur3-Ch_multiple_linear_regression.pdf"} {
		b, err := os.ReadFile(fixture.Path(t, p))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(from, filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(asProofglassEnv, "1")
	dir := filepath.Join(t.TempDir(), "lib")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "bench", "library", "--proofglass", self, "--from", from, "--docs", "3", "--pages", "30", "--dir", dir,
		"--searches", "1", "--clients", "2", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rows := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not a JSON row: %q", line)
		}
		rows[r["what"].(string)] = r
	}
	for _, what := range []string{"add a document, new process (hsaur3-Ch_analysis_of_variance.pdf)",
		"search after the add, new process (hybrid)", "delete that document, new process",
		"search after the delete, new process (hybrid)"} {
		r, ok := rows[what]
		if !ok {
			t.Errorf("no row %q in:\n%s", what, out)
			continue
		}
		if cpu, _ := r["cpu_s"].(float64); cpu <= 0 {
			t.Errorf("%q: no CPU time measured: %v", what, r)
		}
		// The child's own peak, reported by itself (--peak-rss-file): a proofglass process holds tens of MB.
		if rss, _ := r["peak_rss_mb"].(float64); runtime.GOOS == "linux" && (rss < 5 || rss > 2000) {
			t.Errorf("%q: peak RSS %v MB", what, r["peak_rss_mb"])
		}
	}
	k, err := kb.Open(context.Background(), filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	docs, err := k.Docs.Documents(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 3 {
		t.Errorf("%d documents after the add and delete, want the 3 built", len(docs))
	}
}
