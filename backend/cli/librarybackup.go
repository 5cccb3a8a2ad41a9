package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"proofglass/backend/library"
)

func init() {
	registerGroup(cobra.Command{Use: "library", Short: "Back the whole library up, and move collections out and back"},
		libraryBackupCmd, libraryExportCmd, libraryImportCmd)
}

func libraryBackupCmd(g *Globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "backup DIR",
		Short: "Write a consistent full backup of the library into a new folder, while Proofglass runs",
		Long: `Writes a full backup of the data directory into DIR, a new folder: a snapshot of the database (one committed
state, taken while ingest and searches go on), every file it refers to (each checked against its hash) and the
settings. The copy is checked before it is put in place, so DIR is a whole backup or absent. DIR is a data directory
of its own: open it with --data DIR, or copy it back. API keys are not in it (they stay in the OS keyring);
the vector index and caches are built again from the database.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.WithLibrary(cmd, func(ctx context.Context, lib *library.Library) error {
				rep, err := lib.Backup(ctx, args[0])
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSONLine(cmd.OutOrStdout(), rep)
				}
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "backed up %d documents and %d files (%.1f MB) to %s in %.1f s\n",
					rep.Documents, rep.Blobs, float64(rep.Bytes)/(1<<20), rep.Dir, rep.Seconds)
				return err
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as one JSON object")
	return cmd
}
