package cli

import (
	"os"
	"testing"

	"proofglass/backend/pdf"
)

// asProofglassEnv makes the test binary be the proofglass CLI for its arguments, so a test can start new `proofglass`
// processes.
const asProofglassEnv = "PROOFGLASS_TEST_AS_PROOFGLASS"

func init() {
	if os.Getenv(asProofglassEnv) != "1" || (len(os.Args) > 1 && os.Args[1] == pdf.WorkerCommand) {
		return
	}
	os.Exit(Main(os.Args[1:]))
}

// TestMain lets the test binary serve as the pdf worker, as the proofglass binary does through its hidden pdf-worker
// command: the pdf client re-executes os.Executable() with that command.
func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}
