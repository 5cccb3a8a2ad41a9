package cli

import (
	"os"
	"testing"

	"proofglass/backend/pdf"
)

// TestMain lets the test binary serve as the pdf worker, as the proofglass binary does through its hidden pdf-worker
// command: the pdf client re-executes os.Executable() with that command.
func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}
