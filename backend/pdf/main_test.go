package pdf

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// workerEnv makes the test binary act as the pdf worker when the client re-executes it.
const workerEnv = "PROOFGLASS_PDF_TEST_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) == "1" {
		if err := ServeWorker(os.Stdin, os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testdata returns the shared test data folder, or skips the test when it is absent.
func testdata(t testing.TB, rel ...string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "testdata")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared test data not found at %s", dir)
	}
	return filepath.Join(append([]string{dir}, rel...)...)
}

// testClient returns a Client whose worker is this test binary.
func testClient(t testing.TB, o Options) *Client {
	t.Helper()
	o.Command = os.Args[0]
	o.Args = []string{"-test.run=^$"}
	o.Env = append(o.Env, workerEnv+"=1", testHooksEnv+"=1")
	c := NewClient(o)
	t.Cleanup(func() { c.Close() })
	return c
}
