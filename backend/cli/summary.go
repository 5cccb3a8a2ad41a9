package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"proofglass/backend/library"
	"proofglass/backend/summary"
	"proofglass/backend/termsafe"
)

func docSummaryCmd(g *Globals) *cobra.Command {
	var prov, modelName string
	var refresh, asJSON, asMarkdown, outlineOnly bool
	cmd := &cobra.Command{
		Use:   "summary DOC",
		Short: "A document at a glance: its outline (sections, tables, figures, key figures with pages) and a model's summary whose figures are checked against the pages cited",
		Long: `Prints a document's outline, read offline from its text layer: sections with their pages, tables
(rows × columns), figure captions and key figures. Unless --outline, the chat model (--provider, --model, default
from settings) writes a short summary and key figures, each citing its page, and every figure is checked against
the page it cites: ✓ found there, ✗ the page has another value, ? not found. The summary is stored: asking again
prints it at once, --refresh asks the model again. When the model fails, the outline is printed and the command
fails with the model's error.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && asMarkdown {
				return fmt.Errorf("--json and --markdown: choose one")
			}
			return g.WithLibrary(cmd, func(ctx context.Context, lib *library.Library) error {
				d, err := lib.ResolveDocument(ctx, args[0])
				if err != nil {
					return err
				}
				w := cmd.OutOrStdout()
				if outlineOnly {
					o, err := lib.Outline(ctx, d.ID)
					if err != nil {
						return err
					}
					return printGlance(w, o, asJSON, asMarkdown)
				}
				s, err := lib.Summarize(ctx, d.ID, library.SummaryRequest{Profile: prov, Model: modelName, Refresh: refresh})
				if err != nil {
					if s.Outline.DocumentID != 0 {
						if perr := printGlance(w, s.Outline, asJSON, asMarkdown); perr != nil {
							return perr
						}
					}
					return err
				}
				if asJSON {
					return summary.WriteJSON(w, s)
				}
				text := s.Markdown()
				if !asMarkdown {
					text = termsafe.Text(text)
				}
				_, err = io.WriteString(w, text)
				return err
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&prov, "provider", "", "provider profile or kind: ollama, openai, dashscope, … (default from settings)")
	f.StringVar(&modelName, "model", "", "chat model (default: the profile's chat_model)")
	f.BoolVar(&refresh, "refresh", false, "ask the model again even when a summary is stored")
	f.BoolVar(&outlineOnly, "outline", false, "only the outline, read offline: no model call")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.BoolVar(&asMarkdown, "markdown", false, "print Markdown (as is, for a file)")
	return cmd
}

func printGlance(w io.Writer, o summary.Glance, asJSON, asMarkdown bool) error {
	if asJSON {
		return summary.WriteJSON(w, o)
	}
	text := o.Markdown()
	if !asMarkdown {
		text = termsafe.Text(text)
	}
	_, err := io.WriteString(w, text)
	return err
}
