package pdf

import (
	"os"
	"path/filepath"
	"testing"

	"proofglass/backend/fixture"
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

// testdata returns a path in the shared test data folder (fixture.Dir), or skips the test when the folder is absent.
func testdata(t testing.TB, rel ...string) string {
	t.Helper()
	return filepath.Join(append([]string{fixture.Dir(t)}, rel...)...)
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
