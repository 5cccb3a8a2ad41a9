package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"proofglass/backend/ingest"
	"proofglass/backend/library"
)

// collectionsSetEmbedderCmd is `proofglass collections set-embedder`.
func collectionsSetEmbedderCmd(g *Globals) *cobra.Command {
	var asJSON bool
	var textEmb, imageEmb string
	var textDim, imageDim int
	setEmb := &cobra.Command{
		Use:   "set-embedder NAME",
		Short: "Change a collection's embedders and re-embed its units (search keeps working, never mixing embedders)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return reembed(cmd, g, asJSON, func(in *ingest.Ingester, progress func(ingest.Progress)) (ingest.ReembedResult, error) {
				return in.SetEmbedders(cmd.Context(), args[0], textEmb, textDim, imageEmb, imageDim, progress)
			})
		},
	}
	f := setEmb.Flags()
	f.StringVar(&textEmb, "text-embedder", "", "text embedder as provider/model (e.g. builtin/glove-100d)")
	f.IntVar(&textDim, "text-dim", 0, "dimension of the text embedder")
	f.StringVar(&imageEmb, "image-embedder", "", "multimodal embedder for page images, as provider/model (empty: none)")
	f.IntVar(&imageDim, "image-dim", 0, "dimension of the image embedder")
	f.BoolVar(&asJSON, "json", false, "print progress events and the result as JSON lines")
	_ = setEmb.MarkFlagRequired("text-embedder")
	_ = setEmb.MarkFlagRequired("text-dim")
	return setEmb
}

// collectionsReembedCmd is `proofglass collections reembed`.
func collectionsReembedCmd(g *Globals) *cobra.Command {
	var asJSON bool
	re := &cobra.Command{
		Use:   "reembed NAME",
		Short: "Embed the collection's units that lack vectors of its embedders (resumes an interrupted change; adds passages to older knowledge bases)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return reembed(cmd, g, asJSON, func(in *ingest.Ingester, progress func(ingest.Progress)) (ingest.ReembedResult, error) {
				return in.Reembed(cmd.Context(), args[0], progress)
			})
		},
	}
	re.Flags().BoolVar(&asJSON, "json", false, "print progress events and the result as JSON lines")
	return re
}

func reembed(cmd *cobra.Command, g *Globals, asJSON bool,
	do func(*ingest.Ingester, func(ingest.Progress)) (ingest.ReembedResult, error)) error {
	return g.WithLibrary(cmd, func(ctx context.Context, lib *library.Library) error {
		in := lib.Ingester(library.IngestOptions{NoOCR: true})
		out := cmd.OutOrStdout()
		progress := func(p ingest.Progress) {
			switch {
			case asJSON:
				writeJSONLine(out, progressLine{"progress", p})
			case p.Stage == ingest.StageDone:
				fmt.Fprintf(out, "re-embedded %s (%d units)\n", p.Name, p.Total)
			}
		}
		res, err := do(in, progress)
		if err != nil {
			return err
		}
		if asJSON {
			return writeJSONLine(out, struct {
				Type string `json:"type"`
				ingest.ReembedResult
			}{"result", res})
		}
		_, err = fmt.Fprintf(out, "collection %q: %d units of %d documents embedded, %d old vectors removed\n",
			res.Collection, res.Units, res.Documents, res.Dropped)
		return err
	})
}
