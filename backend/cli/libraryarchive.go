package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"proofglass/backend/archive"
	"proofglass/backend/atomicfile"
	"proofglass/backend/library"
	"proofglass/backend/regularfile"
	"proofglass/backend/termsafe"
)

func libraryExportCmd(g *Globals) *cobra.Command {
	var (
		collections []string
		all, asJSON bool
		out         string
	)
	cmd := &cobra.Command{
		Use:   "export (--collection C ...|--all) --out FILE",
		Short: "Write collections as one archive file another library can import",
		Long: `Writes the chosen collections into FILE, one zip archive (a new file; it is written whole or not at all):
their documents with their facets (your edits included), pages with their text and word boxes, vectors as stored
(with the embedder that made them), the conversations and runs asked of them, and the originals and page images they
refer to. proofglass library import reads it into another library. --all takes every collection, and the runs that
belong to none. The archive holds no settings and no API keys.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if all == (len(collections) > 0) {
				return errors.New("name the collections to export (--collection C, repeated) or --all, not both")
			}
			if out == "" {
				return errors.New("--out FILE: where to write the archive")
			}
			if _, err := os.Lstat(out); err == nil {
				return fmt.Errorf("--out %s: it exists already; choose a new file", out)
			}
			return g.WithLibrary(cmd, func(ctx context.Context, lib *library.Library) error {
				var rep *archive.ExportReport
				err := atomicfile.WriteWith(out, 0o600, func(f *os.File) error {
					var err error
					rep, err = lib.Export(ctx, collections, all, f)
					return err
				})
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSONLine(cmd.OutOrStdout(), struct {
						File string `json:"file"`
						*archive.ExportReport
					}{out, rep})
				}
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "exported %d collections (%d documents, %d pages, %d runs, %d files) to %s: %.1f MB in %.1f s\n",
					len(rep.Collections), rep.Counts["documents"], rep.Counts["units"], rep.Counts["runs"], rep.Blobs,
					termsafe.Line(out), float64(rep.Bytes)/(1<<20), rep.Seconds)
				return err
			})
		},
	}
	cmd.Flags().StringArrayVar(&collections, "collection", nil, "a collection to export (repeat for several)")
	cmd.Flags().BoolVar(&all, "all", false, "export every collection")
	cmd.Flags().StringVar(&out, "out", "", "the archive file to write (must not exist)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as one JSON object")
	return cmd
}

func libraryImportCmd(g *Globals) *cobra.Command {
	var (
		into   string
		asJSON bool
		hold   bool
	)
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Read a library archive into this library, merging it with what is here",
		Long: `Reads FILE, an archive written by proofglass library export, into this library: each collection into the
collection of its name (made when absent), or all of them into --into NAME. A document the collection holds already
(the same file, by SHA-256) is kept as it is, not duplicated; ids are renumbered, and the archive's conversations and
runs point at the pages here. Importing the same archive again adds nothing. Everything is written in one
transaction: an import that fails or is stopped leaves the library as it was (files it had stored by then are
unreferenced and harmless). A collection whose embedder differs from the archive's is refused.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, info, err := regularfile.OpenFollow(args[0])
			if err != nil {
				return fmt.Errorf("import %s: %w", args[0], err)
			}
			defer f.Close()
			return g.WithLibrary(cmd, func(ctx context.Context, lib *library.Library) error {
				req := archive.ImportRequest{Into: into}
				if hold {
					// Test support: say that every row is written, then wait uncommitted until stopped.
					req.BeforeCommit = func(ctx context.Context) error {
						if err := writeJSONLine(cmd.OutOrStdout(), map[string]string{"type": "holding"}); err != nil {
							return err
						}
						<-ctx.Done()
						return ctx.Err()
					}
				}
				if asJSON {
					w := cmd.OutOrStdout()
					req.Progress = func(table string, rows int64) {
						_ = writeJSONLine(w, map[string]any{"type": "progress", "table": table, "rows": rows})
					}
				}
				rep, err := lib.Import(ctx, f, info.Size(), req)
				if err != nil {
					return fmt.Errorf("import %s: %w", args[0], err)
				}
				return printImport(cmd.OutOrStdout(), args[0], rep, asJSON)
			})
		},
	}
	cmd.Flags().StringVar(&into, "into", "", "import every collection of the archive into this one")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print progress and the report as JSON lines")
	cmd.Flags().BoolVar(&hold, "test-hold-before-commit", false, "")
	_ = cmd.Flags().MarkHidden("test-hold-before-commit")
	return cmd
}

func printImport(w io.Writer, file string, rep *archive.ImportReport, asJSON bool) error {
	if asJSON {
		return writeJSONLine(w, struct {
			Type string `json:"type"`
			File string `json:"file"`
			*archive.ImportReport
		}{"result", file, rep})
	}
	names := make([]string, len(rep.Collections))
	for i, c := range rep.Collections {
		names[i] = termsafe.Line(c.Name)
	}
	sort.Strings(names)
	_, err := fmt.Fprintf(w, "imported %s (%s): %d documents added, %d already here; %d pages, %d conversations, %d runs added; %d files stored, in %.1f s\n",
		termsafe.Line(file), strings.Join(names, ", "), rep.Added["documents"], rep.Existing["documents"], rep.Added["units"],
		rep.Added["conversations"], rep.Added["runs"], rep.Blobs, rep.Seconds)
	return err
}
