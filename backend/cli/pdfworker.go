package cli

import (
	"os"

	"github.com/spf13/cobra"

	"proofglass/backend/pdf"
)

// The hidden pdf-worker command is the child-process side of backend/pdf: Proofglass re-executes itself with it so
// that a MuPDF crash ends the worker, not the app.
func init() {
	register(pdf.WorkerCommand, func(g *Globals) *cobra.Command {
		return &cobra.Command{
			Use:    pdf.WorkerCommand,
			Short:  "internal: serve MuPDF requests on stdin/stdout",
			Hidden: true,
			Args:   cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				return pdf.ServeWorker(os.Stdin, os.Stdout)
			},
		}
	})
}
