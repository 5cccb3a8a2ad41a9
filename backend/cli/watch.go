package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"proofglass/backend/kb"
	"proofglass/backend/library"
	"proofglass/backend/termsafe"
	"proofglass/backend/watch"
)

func init() {
	register("watch", func(g *Globals) *cobra.Command {
		var asJSON, noOCR bool
		cmd := &cobra.Command{
			Use:   "watch",
			Short: "Keep collections in sync with folders: watch add|list|remove, or watch in the foreground",
			Long: `Watched folders keep a collection equal to a folder (recursively): new and changed PDFs, images and
videos are ingested, deleted files leave the library, renamed files keep their document. A file is ingested once it
has been unmodified for 2 s, so files still being copied are not read half-written. A full rescan every 10 minutes
catches what notifications miss (network drives, a machine that slept).

"proofglass watch" with no subcommand watches every recorded folder until interrupted; the desktop app and
"proofglass serve" do the same while they run. A folder that disappears (an unmounted drive) keeps its documents until it
is back or removed from the watch list.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return g.WithLibrary(cmd, func(ctx context.Context, lib *library.Library) error {
					in := lib.Ingester(library.IngestOptions{NoOCR: noOCR})
					out := cmd.OutOrStdout()
					pr := newProgressPrinter(out, cmd.ErrOrStderr(), asJSON)
					last := map[int64]string{} // the line last printed per folder: a status repeated is not printed again
					m := lib.Watcher(in, watch.Options{Progress: pr.event, Changed: func(s watch.Status) {
						key := fmt.Sprint(s.State, s.Pending, s.LastError)
						if last[s.ID] == key {
							return
						}
						last[s.ID] = key
						printWatchStatus(out, s, asJSON)
					}})
					fs, err := m.Folders(ctx)
					if err != nil {
						return err
					}
					if len(fs) == 0 {
						return fmt.Errorf("no folder is watched: add one with `proofglass watch add DIR --collection C`")
					}
					if _, err := in.Resume(ctx, pr.event); err != nil && ctx.Err() == nil {
						slog.Warn("resume ingest", "err", err)
					}
					fmt.Fprintf(cmd.ErrOrStderr(), "proofglass: watching %d folder(s) of %s; Ctrl-C stops\n", len(fs), termsafe.Line(lib.Config.DataDir))
					return m.Run(ctx)
				})
			},
		}
		cmd.Flags().BoolVar(&asJSON, "json", false, "print status changes and ingest progress as JSON lines")
		cmd.Flags().BoolVar(&noOCR, "no-ocr", false, "skip OCR (scanned pages and images get no text)")
		cmd.AddCommand(watchAddCmd(g), watchListCmd(g), watchRemoveCmd(g))
		return cmd
	})
}

// withWatcher opens the knowledge base and a Manager that records folders (it does not run: that is `proofglass watch`,
// the app or `proofglass serve`).
func withWatcher(cmd *cobra.Command, g *Globals, fn func(context.Context, *watch.Manager) error) error {
	return g.WithLibrary(cmd, func(ctx context.Context, lib *library.Library) error {
		in := lib.Ingester(library.IngestOptions{Workers: 1})
		return fn(ctx, lib.Watcher(in, watch.Options{}))
	})
}

func watchAddCmd(g *Globals) *cobra.Command {
	var collection string
	cmd := &cobra.Command{
		Use:   "add DIR",
		Short: "Watch a folder (recursively) for a collection; its files are ingested by the next watcher to run",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withWatcher(cmd, g, func(ctx context.Context, m *watch.Manager) error {
				f, err := m.Add(ctx, collection, args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "watching %s for collection %s (folder %d); run `proofglass watch` (or the app, or `proofglass serve`) to sync it\n",
					termsafe.Line(f.Path), termsafe.Line(f.Collection), f.ID)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&collection, "collection", kb.DefaultCollection, "collection the folder's files go to (created if missing)")
	return cmd
}

func watchListCmd(g *Globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List watched folders",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withWatcher(cmd, g, func(ctx context.Context, m *watch.Manager) error {
				fs, err := m.Folders(ctx)
				if err != nil {
					return err
				}
				return printRows(cmd.OutOrStdout(), asJSON, fs, "FOLDER\tCOLLECTION\tFILES\tDOCUMENTS\tLAST SCAN\tERROR", func(f watch.Status) string {
					scan := "never"
					if !f.ScannedAt.IsZero() {
						scan = f.ScannedAt.Format(time.DateTime)
					}
					return fmt.Sprintf("%s\t%s\t%d\t%d\t%s\t%s", termsafe.Line(f.Path), termsafe.Line(f.Collection), f.Files, f.Documents,
						scan, termsafe.Line(f.LastError))
				})
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per folder")
	return cmd
}

func watchRemoveCmd(g *Globals) *cobra.Command {
	var collection string
	var keep bool
	cmd := &cobra.Command{
		Use:   "remove DIR",
		Short: "Stop watching a folder; its documents leave the library unless --keep-documents",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withWatcher(cmd, g, func(ctx context.Context, m *watch.Manager) error {
				f, err := m.Find(ctx, collection, args[0])
				if err != nil {
					return err
				}
				n, err := m.Remove(ctx, f.ID, keep)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "no longer watching %s; %d document(s) left collection %s\n", termsafe.Line(f.Path), n,
					termsafe.Line(f.Collection))
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&collection, "collection", kb.DefaultCollection, "collection the folder is watched for")
	cmd.Flags().BoolVar(&keep, "keep-documents", false, "keep the folder's documents in the library")
	return cmd
}

// printWatchStatus prints a folder's status change: a JSON line, or a line of text.
func printWatchStatus(w io.Writer, s watch.Status, asJSON bool) {
	if asJSON {
		_ = writeJSONLine(w, struct {
			Type string `json:"type"`
			watch.Status
		}{"watch", s})
		return
	}
	line := fmt.Sprintf("%s [%s]: %s", s.Path, s.Collection, s.State)
	if s.Pending > 0 {
		line += fmt.Sprintf(", %d pending", s.Pending)
	}
	if s.LastError != "" {
		line += ": " + s.LastError
	}
	fmt.Fprintln(w, termsafe.Line(line))
}
