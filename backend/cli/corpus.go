package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"proofglass/backend/library"
	"proofglass/backend/pagecache"
	"proofglass/backend/pagefile"
	"proofglass/backend/termsafe"
)

func init() {
	registerGroup(cobra.Command{Use: "cache", Short: "Manage the page files VRAG clients open (cache/pages)"}, cacheWarmCmd)
}

func cacheWarmCmd(g *Globals) *cobra.Command {
	var collections []string
	var workers int
	cmd := &cobra.Command{
		Use:   "warm",
		Short: "Render every page of a collection at 200 DPI into the page cache ahead of VRAG requests",
		Long: `Renders the pages of the ready documents of --collection (every collection when none is given) into
cache/pages, as proofglass serve hands them to VRAG clients, so a first-epoch rollout does not pay for renders.
Pages render in parallel, one MuPDF worker per core (--workers); pages already in the cache are skipped, so an
interrupted run resumes. Warming stops, and says how large to make the cache, when the collection's pages would no
longer fit in cache.pages_mb: rendering more would only evict what it just rendered.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.WithLibrary(cmd, func(ctx context.Context, lib *library.Library) error {
				for _, c := range collections {
					if _, err := lib.KB.Docs.CollectionByName(ctx, c); err != nil {
						return fmt.Errorf("collection %q: %w", c, err)
					}
				}
				m := pagefile.New(lib.KB, lib.Pages, lib.PDFPassword, workers)
				defer m.Close()
				errw := cmd.ErrOrStderr()
				fmt.Fprintf(errw, "warming %s with %d render workers (cache %s, cap %d MB)\n", scopeName(collections),
					m.Workers(), lib.Pages.Root(), lib.Pages.MaxBytes()>>20)
				rep, err := m.Warm(ctx, collections, func(p pagefile.Progress) { fmt.Fprintln(errw, p) })
				printReport(cmd.OutOrStdout(), "warmed", rep)
				if rep.Full {
					return fmt.Errorf("the page cache is full: %s needs about %d MB of page files, cache.pages_mb is %d; "+
						"raise it (\"cache\": {\"pages_mb\": %d} in settings.json, or Settings in the window) and run again",
						scopeName(collections), rep.NeedBytes>>20, lib.Pages.MaxBytes()>>20, pagecache.SizeMBFor(rep.NeedBytes))
				}
				return errors.Join(err, failed(rep))
			})
		},
	}
	cmd.Flags().StringArrayVar(&collections, "collection", nil, "collection to warm (repeatable; default: all)")
	cmd.Flags().IntVar(&workers, "workers", 0, "MuPDF render workers (0 = one per core)")
	return cmd
}

func exportCorpusCmd(g *Globals) *cobra.Command {
	var collection, out string
	var workers int
	var group bool
	cmd := &cobra.Command{
		Use:   "corpus --collection C --out DIR",
		Short: "Write a collection as VRAG's corpus folder: DIR/img/{stem}_{page}.jpg at 200 DPI",
		Long: `Writes every page of the ready documents of a collection as VRAG's own corpus layout: one flat folder
DIR/img of {stem}_{1-based page}.jpg files at 200 DPI (JPEG quality 75, JFIF density 200, as pdf2image and PIL make
them; the stem is VRAG's, the file name before the first ".pdf"), images and video frames as their stored pixels.
VRAG's ColQwen ingestion then indexes it: give --out search_engine/corpus inside VRAG's checkout. Files already
there for the same content are skipped, so an interrupted export resumes; DIR/` + pagefile.ManifestName + ` records what
each file shows. Two documents whose names give the same file name cannot both be in a flat folder: the first keeps
it and the other's pages are reported. "proofglass serve --corpus-dir DIR" then answers with paths inside DIR.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if collection == "" || out == "" {
				return errors.New("--collection and --out are required")
			}
			return g.WithLibrary(cmd, func(ctx context.Context, lib *library.Library) error {
				c, err := pagefile.OpenCorpus(out, group || lib.Config.Settings.Cache.PagesGroupReadable)
				if err != nil {
					return err
				}
				m := pagefile.New(lib.KB, lib.Pages, lib.PDFPassword, workers)
				defer m.Close()
				errw := cmd.ErrOrStderr()
				rep, err := m.Export(ctx, c, collection, func(p pagefile.Progress) { fmt.Fprintln(errw, p) })
				printReport(cmd.OutOrStdout(), "exported to "+c.Path(""), rep)
				return errors.Join(err, failed(rep))
			})
		},
	}
	cmd.Flags().StringVar(&collection, "collection", "", "collection to export")
	cmd.Flags().StringVar(&out, "out", "", "corpus folder (VRAG's search_engine/corpus); pages go to OUT/img")
	cmd.Flags().IntVar(&workers, "workers", 0, "MuPDF render workers (0 = one per core)")
	cmd.Flags().BoolVar(&group, "group-readable", false, "files 0640 and folders 0750 (default 0600/0700), for a trainer of the same group")
	return cmd
}

func scopeName(collections []string) string {
	if len(collections) == 0 {
		return "every collection"
	}
	return fmt.Sprintf("collection(s) %q", collections)
}

func printReport(w io.Writer, what string, r pagefile.Report) {
	fmt.Fprintf(w, "%s: %d pages rendered (%.1f MB), %d already there, %d failed, of %d, in %s (%.1f pages/s)\n",
		termsafe.Line(what), r.Made, float64(r.Bytes)/(1<<20), r.Skipped, r.Failed, r.Total, r.Elapsed.Round(100*time.Millisecond),
		r.PagesPerSecond())
	for _, err := range r.Errors {
		fmt.Fprintf(w, "  failed: %s\n", termsafe.Line(err.Error())) // names a document
	}
}

func failed(r pagefile.Report) error {
	if r.Failed == 0 {
		return nil
	}
	return fmt.Errorf("%d page(s) failed (listed above)", r.Failed)
}
