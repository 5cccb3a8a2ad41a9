package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"proofglass/backend/config"
)

func init() {
	register("secrets", func(g *Globals) *cobra.Command {
		cmd := &cobra.Command{
			Use:   "secrets",
			Short: "The API keys and server token Proofglass keeps in the OS keyring",
		}
		cmd.AddCommand(&cobra.Command{
			Use:   "clear",
			Short: "Forget every API key and server token Proofglass stored for this user",
			Long: `Deletes every secret Proofglass stored for this user: its entries in the OS keyring (Credential Manager on
Windows, the Secret Service on Linux; every data directory shares them) and the data directory's fallback file
secrets.json. Settings keep naming the providers; their keys must be given again. The Windows uninstaller runs it
when asked to delete the library.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				dir, err := config.ResolveDataDir(g.DataDir)
				if err != nil {
					return err
				}
				keyringErr, err := config.ForgetSecrets(dir)
				if err != nil {
					return err
				}
				if keyringErr != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "note: %v (nothing of Proofglass's can be stored where no keyring answers)\n", keyringErr)
				} else {
					fmt.Fprintln(cmd.OutOrStdout(), "forgot Proofglass's entries in the OS keyring")
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: gone\n", filepath.Join(dir, "secrets.json"))
				return nil
			},
		})
		return cmd
	})
}
