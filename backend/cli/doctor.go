package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"proofglass/backend/config"
	"proofglass/backend/doctor"
	"proofglass/backend/termsafe"
)

// doctorEndpoints tests configured model endpoints; the model layer's file sets it, so doctor works without it.
var doctorEndpoints func(ctx context.Context, cfg *config.Config) []doctor.Check

func init() {
	register("doctor", func(g *Globals) *cobra.Command {
		var asJSON, fix, offline bool
		var modelName, prov, mode string
		cmd := &cobra.Command{
			Use:   "doctor",
			Short: "Check the knowledge base, the blob store, external tools and model endpoints",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				cfg, err := g.Config()
				if err != nil {
					return err
				}
				opt := doctor.Options{Fix: fix}
				if !offline {
					opt.Endpoints = doctorEndpoints
				}
				checks := doctor.Run(cmd.Context(), cfg, opt)
				if modelName != "" {
					mc, err := modelChecks(cmd.Context(), cfg, prov, modelName, mode)
					if err != nil {
						return err
					}
					checks = append(checks, mc...)
				}
				w := cmd.OutOrStdout()
				for _, c := range checks {
					if asJSON {
						if err := writeJSONLine(w, c); err != nil {
							return err
						}
						continue
					}
					mark := "ok  "
					switch {
					case !c.OK && c.Optional:
						mark = "warn"
					case !c.OK:
						mark = "FAIL"
					}
					// Details quote file names and servers' answers: one line each, controls escaped.
					fmt.Fprintf(w, "%s %-20s %s\n", mark, termsafe.Line(c.Name), termsafe.Line(c.Detail))
					if !c.OK && c.Fix != "" {
						fmt.Fprintf(w, "     %-20s fix: %s\n", "", termsafe.Line(c.Fix))
					}
				}
				if !doctor.Healthy(checks) {
					return errors.New("doctor found problems (see above)")
				}
				return nil
			},
		}
		cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per check")
		cmd.Flags().BoolVar(&fix, "fix", false, "repair what can be repaired: remove orphan blobs, rebuild full-text indexes")
		cmd.Flags().BoolVar(&offline, "offline", false, "skip model endpoint checks")
		cmd.Flags().StringVar(&modelName, "model", "", "probe this chat model for what the agent needs: vision, images per request, context length, tool calls")
		cmd.Flags().StringVar(&prov, "provider", "", "provider profile of --model (default from settings)")
		cmd.Flags().StringVar(&mode, "mode", "", "agent mode --model is probed for: vrag, vimrag, vanilla or react (default from settings)")
		return cmd
	})
}
