package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"proofglass/backend/library"
	"proofglass/backend/mcp"
)

func init() {
	register("mcp", func(g *Globals) *cobra.Command {
		return &cobra.Command{
			Use:   "mcp",
			Short: "Serve the library to an MCP client (desktop assistants, IDE agents) on stdin/stdout",
			Long: `Serve the library over the Model Context Protocol on stdin/stdout, for an MCP client that starts
"proofglass mcp" itself. The same server is at /mcp under "proofglass serve" (streamable HTTP, behind the bearer token).

Tools: search (pages with snippets, scores and page images; optional collection, document_ids and k), get_page
(a page or a region of it at a requested width), ask (Proofglass's visual agent, with progress notifications; returns
the answer with citations), list_documents. Resources: proofglass://documents/ID (a document's text as Markdown) and
proofglass://units/ID/image (a page image).

Logs go to stderr; stdout carries only the protocol.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return g.WithLibrary(cmd, func(ctx context.Context, lib *library.Library) error {
					lib.Searcher.UseLexicalIndex() // a long-lived process: full-text search from memory
					log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
					if err := mcp.New(lib, mcp.Options{Log: log}).ServeStdio(ctx); err != nil && ctx.Err() == nil {
						return fmt.Errorf("mcp: %w", err)
					}
					return nil
				})
			},
		}
	})
}
