package cli

import (
	"os"
	"testing"

	"loupe/backend/pdf"
)

// TestMain lets the test binary serve as the pdf worker, as the loupe binary does through its hidden pdf-worker
// command: the pdf client re-executes os.Executable() with that command.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == pdf.WorkerCommand {
		if err := pdf.ServeWorker(os.Stdin, os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
