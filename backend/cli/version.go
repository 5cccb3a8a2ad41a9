package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"proofglass/backend/buildinfo"
)

func init() {
	register("version", func(g *Globals) *cobra.Command {
		var asJSON bool
		cmd := &cobra.Command{
			Use:   "version",
			Short: "Print the version of Proofglass",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				i := buildinfo.Get()
				if asJSON {
					return writeJSONLine(cmd.OutOrStdout(), i)
				}
				kind := "headless"
				if i.Desktop {
					kind = "desktop"
				}
				_, err := fmt.Fprintf(cmd.OutOrStdout(), "proofglass %s (%s, %s %s/%s)\n", i.Version, kind, i.GoVersion, i.OS, i.Arch)
				return err
			},
		}
		cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
		return cmd
	})
}
