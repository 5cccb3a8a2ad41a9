package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"proofglass/backend/config"
	"proofglass/backend/model/provider"
	"proofglass/backend/termsafe"
)

func init() {
	register("models", func(g *Globals) *cobra.Command {
		var name string
		var asJSON bool
		cmd := &cobra.Command{
			Use:   "models",
			Short: "List the models of each configured provider, with capabilities",
			Long: "Lists the models every configured provider profile serves (or only --provider P), with their\n" +
				"capabilities. An unreachable endpoint is reported, not fatal.",
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				cfg, err := config.Load(g.DataDir)
				if err != nil {
					return err
				}
				profiles := cfg.Settings.Providers
				if name != "" {
					p, err := cfg.Provider(name)
					if err != nil {
						return err
					}
					profiles = []config.Provider{p}
				}
				sub := &config.Config{DataDir: cfg.DataDir, Settings: cfg.Settings, Secrets: cfg.Secrets}
				sub.Settings.Providers = profiles
				results := provider.TestAll(cmd.Context(), sub, 30*time.Second)
				w := cmd.OutOrStdout()
				if asJSON {
					for _, r := range results {
						if err := writeJSONLine(w, modelsLine{Result: r, ModelList: r.Infos}); err != nil {
							return err
						}
					}
					return nil
				}
				for i, r := range results {
					if i > 0 {
						fmt.Fprintln(w)
					}
					status := "reachable"
					if !r.Reachable {
						status = "UNREACHABLE"
					}
					fmt.Fprintf(w, "%s (%s %s): %s", termsafe.Line(r.Name), r.Kind, termsafe.Line(r.BaseURL), status)
					if r.Version != "" {
						fmt.Fprintf(w, ", version %s", termsafe.Line(r.Version)) // what a model server says is its input
					}
					fmt.Fprintf(w, ", %d models, %d ms\n", r.Models, r.LatencyMS)
					if r.Error != "" {
						fmt.Fprintf(w, "  error: %s\n", termsafe.Line(r.Error))
					}
					if r.Note != "" {
						fmt.Fprintf(w, "  note: %s\n", termsafe.Line(r.Note))
					}
					if r.ChatModelFound != nil && !*r.ChatModelFound {
						fmt.Fprintf(w, "  configured chat model %q is not served here\n", r.ChatModel)
					}
					if r.EmbedFound != nil && !*r.EmbedFound {
						fmt.Fprintf(w, "  configured embedding model %q is not served here\n", r.EmbedModel)
					}
					if len(r.Infos) == 0 {
						continue
					}
					tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "  MODEL\tCAPABILITIES\tSIZE")
					for _, m := range r.Infos {
						size := ""
						if m.SizeBytes > 0 {
							size = fmt.Sprintf("%.1f MB", float64(m.SizeBytes)/1e6)
						}
						fmt.Fprintf(tw, "  %s\t%s\t%s\n", termsafe.Line(m.Name), caps(m.Chat, m.Vision, m.Embedding, m.Tools, m.Thinking), size)
					}
					tw.Flush()
				}
				return nil
			},
		}
		cmd.Flags().StringVar(&name, "provider", "", "only this provider profile (name or kind)")
		cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object per provider")
		cmd.AddCommand(pullCommand(g))
		return cmd
	})
}

// modelsLine is one --json line: the connection result and its models.
type modelsLine struct {
	provider.Result
	ModelList any `json:"model_list"`
}

func caps(chat, vision, embed, tools, thinking bool) string {
	var c []string
	for _, x := range []struct {
		on   bool
		name string
	}{{chat, "chat"}, {vision, "vision"}, {embed, "embedding"}, {tools, "tools"}, {thinking, "thinking"}} {
		if x.on {
			c = append(c, x.name)
		}
	}
	return strings.Join(c, ",")
}
