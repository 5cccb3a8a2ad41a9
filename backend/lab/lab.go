// Package lab is the command tree of proofglass-lab (cmd/proofglass-lab): Proofglass's benchmarks and evaluations, kept out of the
// shipped binaries.
package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"proofglass/backend/cli"
)

// NewRoot returns proofglass-lab's root command, with the flags every Proofglass command tree shares, and its bench
// commands.
func NewRoot() (*cobra.Command, *cli.Globals) {
	root, g := cli.NewBaseRoot("proofglass-lab", "Proofglass's lab: benchmarks of its components on this machine (not shipped)")
	bench := &cobra.Command{
		Use:   "bench",
		Short: "Measure Proofglass's components on this machine",
	}
	bench.AddCommand(vectorCmd(), ingestCmd(), libraryCmd(), ocrCmd(), warmCmd(), formatsCmd())
	root.AddCommand(bench, evalCmd())
	return root, g
}

// Execute runs proofglass-lab with args and returns the process exit code.
func Execute(ctx context.Context, args []string) int {
	root, g := NewRoot()
	return cli.Run(ctx, root, g, args)
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode json: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
