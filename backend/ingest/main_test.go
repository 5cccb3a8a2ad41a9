package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"proofglass/backend/fixture"
	"proofglass/backend/kb"
	"proofglass/backend/pdf"
)

// workerEnv makes the test binary serve MuPDF requests when an Ingester's pdf client re-executes it.
const workerEnv = "PROOFGLASS_INGEST_TEST_PDF_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) == "1" {
		if err := pdf.ServeWorker(os.Stdin, os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(crashChildEnv) != "" {
		os.Exit(crashChild())
	}
	os.Exit(m.Run())
}

// testdata returns a path in the shared test data folder (fixture.Dir), or skips the test when the folder is absent.
func testdata(t testing.TB, rel ...string) string {
	t.Helper()
	return filepath.Join(append([]string{fixture.Dir(t)}, rel...)...)
}

// workerOptions makes pdf clients run this test binary as their worker.
func workerOptions() pdf.Options {
	return pdf.Options{Command: os.Args[0], Args: []string{"-test.run=^$"}, Env: []string{workerEnv + "=1"},
		Timeout: 20 * time.Second}
}

// openKB opens a fresh knowledge base in dir.
func openKB(t testing.TB, dir string) *kb.KB {
	t.Helper()
	k, err := kb.Open(context.Background(), filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// newIngester returns an Ingester over a fresh knowledge base with the test binary as its pdf worker.
func newIngester(t testing.TB, o Options) (*Ingester, *kb.KB) {
	t.Helper()
	k := openKB(t, t.TempDir())
	o.PDF = workerOptions()
	if o.Workers == 0 {
		o.Workers = 2
	}
	in := New(k, nil, o)
	t.Cleanup(func() { in.Close() })
	return in, k
}
