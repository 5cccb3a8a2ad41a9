package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"proofglass/backend/bench"
)

// formatsCmd is `proofglass-lab bench formats`.
func formatsCmd() *cobra.Command {
	var o bench.FormatsOptions
	var from []string
	var asJSON bool
	c := &cobra.Command{
		Use:   "formats",
		Short: "Add one document of each format, each alone in a new process and data directory: pages, pages per second and peak RSS per format",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, p := range from {
				st, err := os.Stat(p)
				if err != nil {
					return err
				}
				if !st.IsDir() {
					o.Files = append(o.Files, p)
					continue
				}
				ents, err := os.ReadDir(p)
				if err != nil {
					return err
				}
				for _, e := range ents {
					n := e.Name()
					// The damaged files and the generator are not documents to measure.
					if e.IsDir() || strings.HasPrefix(n, "bad-") || strings.HasSuffix(n, ".py") || strings.HasSuffix(n, "README.md") {
						continue
					}
					o.Files = append(o.Files, filepath.Join(p, n))
				}
			}
			if len(o.Files) == 0 {
				return fmt.Errorf("no files to add in %v", from)
			}
			if o.Exe == "" {
				exe, err := bench.FindProofglass()
				if err != nil {
					return err
				}
				o.Exe = exe
			}
			return bench.Formats(cmd.Context(), o, rowPrinter(cmd.OutOrStdout(), asJSON, true))
		},
	}
	f := c.Flags()
	f.StringSliceVar(&from, "from", []string{"backend/ingest/testdata/formats", "../shared/testdata/pdf/real/blood_loss_report.pdf"},
		"files, or folders of them, to add one by one")
	f.StringVar(&o.Exe, "proofglass", "", "shipped proofglass binary (default: beside proofglass-lab, else on PATH)")
	f.IntVar(&o.Rounds, "rounds", 3, "adds per file; the median is printed")
	f.BoolVar(&asJSON, "json", false, "print one JSON object per file")
	return c
}
