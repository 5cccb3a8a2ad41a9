package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"proofglass/backend/kb"
	"proofglass/backend/termsafe"
)

func init() {
	registerGroup(cobra.Command{Use: "collections", Short: "List, create and delete collections"},
		collectionsListCmd, collectionsCreateCmd, collectionsDeleteCmd, collectionsSetEmbedderCmd, collectionsReembedCmd)
}

func collectionsListCmd(g *Globals) *cobra.Command {
	return listCmd(g, "List collections", "print one JSON object per collection", "NAME\tDOCUMENTS\tUNITS\tTEXT EMBEDDER\tIMAGE EMBEDDER",
		func(ctx context.Context, k *kb.KB) ([]kb.Collection, error) { return k.Docs.Collections(ctx) },
		func(c kb.Collection) string {
			img := c.ImageEmbedder
			if img == "" {
				img = "-"
			}
			return fmt.Sprintf("%s\t%d\t%d\t%s (%d)\t%s", termsafe.Line(c.Name), c.Documents, c.Units, c.TextEmbedder, c.TextDim, img)
		})
}

func collectionsCreateCmd(g *Globals) *cobra.Command {
	var textEmb, imageEmb string
	var textDim, imageDim int
	var asJSON bool
	cmd := &cobra.Command{
		Use: "create NAME", Short: "Create a collection (its embedders are pinned at creation)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.WithKB(cmd, func(ctx context.Context, k *kb.KB) error {
				c, err := k.Docs.CreateCollection(ctx, kb.Collection{Name: args[0], TextEmbedder: textEmb, TextDim: textDim,
					ImageEmbedder: imageEmb, ImageDim: imageDim})
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSONLine(cmd.OutOrStdout(), c)
				}
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "created collection %q (text embedder %s, %d dims)\n", c.Name, c.TextEmbedder, c.TextDim)
				return err
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&textEmb, "text-embedder", "", "text embedder as provider/model (default "+kb.DefaultTextEmbedder+")")
	f.IntVar(&textDim, "text-dim", 0, "dimension of the text embedder")
	f.StringVar(&imageEmb, "image-embedder", "", "multimodal embedder for page images, as provider/model")
	f.IntVar(&imageDim, "image-dim", 0, "dimension of the image embedder")
	f.BoolVar(&asJSON, "json", false, "print the created collection as JSON")
	return cmd
}

func collectionsDeleteCmd(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use: "delete NAME", Short: "Delete a collection with its documents", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.WithKB(cmd, func(ctx context.Context, k *kb.KB) error {
				if err := k.Docs.DeleteCollection(ctx, args[0]); err != nil {
					return err
				}
				_, err := fmt.Fprintf(cmd.OutOrStdout(), "deleted collection %q\n", args[0])
				return err
			})
		},
	}
}
