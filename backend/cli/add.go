package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/library"
	"proofglass/backend/termsafe"
)

func init() {
	register("add", func(g *Globals) *cobra.Command {
		var (
			collection              string
			asJSON, noOCR, imageOCR bool
			workers                 int
		)
		pw := secretFlag{name: "password", env: "PROOFGLASS_PDF_PASSWORD"}
		cmd := &cobra.Command{
			Use:   "add PATH...",
			Short: "Add PDFs, images and videos (files or folders, recursively) to a collection",
			Long: "Add files to the knowledge base. Types are recognised by content, not by name. A file already in the " +
				"collection is reported and not ingested again. Documents left unfinished by an interrupted run are " +
				"resumed first. Encrypted PDFs need a password: --ask-password, --password-stdin or $PROOFGLASS_PDF_PASSWORD " +
				"(or later `proofglass documents retry ID --ask-password`); it is remembered only for the files it opens.",
			Args: cobra.MinimumNArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				password, err := pw.read(cmd)
				if err != nil {
					return err
				}
				return g.WithLibrary(cmd, func(ctx context.Context, lib *library.Library) error {
					in := lib.Ingester(library.IngestOptions{Workers: workers, NoOCR: noOCR, ImageOCR: imageOCR})
					pr := newProgressPrinter(cmd.OutOrStdout(), cmd.ErrOrStderr(), asJSON)
					if _, err := in.Resume(ctx, pr.event); err != nil {
						return err
					}
					res, err := in.AddRequest(ctx, ingest.Request{Collection: collection, Paths: args, Password: password}, pr.event)
					pr.clear()
					if err != nil {
						return err
					}
					return reportResults(cmd.OutOrStdout(), res, asJSON)
				})
			},
		}
		f := cmd.Flags()
		f.StringVar(&collection, "collection", kb.DefaultCollection, "collection to add to (created if missing)")
		addSecretFlags(cmd, &pw, "password for encrypted PDFs in this batch")
		f.BoolVar(&asJSON, "json", false, "print progress events and results as JSON lines")
		f.BoolVar(&noOCR, "no-ocr", false, "skip OCR (scanned pages and images get no text)")
		f.BoolVar(&imageOCR, "image-ocr", false, "also OCR the pictures on pages that have a text layer (charts, screenshots; slower)")
		f.IntVar(&workers, "workers", 0, "parallel workers (default: settings, else the number of CPUs)")
		return cmd
	})
}

// resultLine is one line of `proofglass add --json` (type "result"); progress events have type "progress".
type resultLine struct {
	Type string `json:"type"`
	ingest.Result
}

type progressLine struct {
	Type string `json:"type"`
	ingest.Progress
}

// reportResults prints a line per file and fails when any file failed, so scripts notice.
func reportResults(w io.Writer, res []ingest.Result, asJSON bool) error {
	failed, shown := 0, 0
	for _, r := range res {
		if r.Document.Status == kb.StatusFailed || (r.Document.ID == 0 && !r.Skipped) {
			failed++
		}
		if asJSON {
			if err := writeJSONLine(w, resultLine{Type: "result", Result: r}); err != nil {
				return err
			}
			continue
		}
		if r.Skipped {
			continue
		}
		shown++
		d := r.Document
		state := d.Status
		if r.Existed {
			state = "exists"
		}
		if d.ID == 0 {
			state = kb.StatusFailed
		}
		line := fmt.Sprintf("%-8s %s", state, displayName(r))
		if d.ID != 0 {
			line += fmt.Sprintf(" (document %d, %s)", d.ID, size(d))
		}
		if r.Error != "" {
			line += ": " + r.Error
		}
		fmt.Fprintln(w, termsafe.Line(line)) // a file name (and an error quoting it) may hold terminal controls
	}
	if !asJSON && shown == 0 {
		fmt.Fprintln(w, "nothing added: no document, image or video file Proofglass reads there")
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d files failed", failed, len(res))
	}
	return nil
}

func displayName(r ingest.Result) string {
	if r.Path != "" {
		return r.Path
	}
	return r.Document.Name
}

// size describes a document's extent: pages, an image, or clips and duration.
func size(d kb.Document) string {
	switch d.Kind {
	case "image":
		return "image"
	case "video":
		clips := fmt.Sprintf("%d clips", d.Pages)
		if d.Pages == 1 {
			clips = "1 clip"
		}
		return fmt.Sprintf("%s, %s", clips, (time.Duration(d.DurationMS) * time.Millisecond).Round(time.Second))
	}
	if d.Pages == 0 {
		return "-"
	}
	if d.Pages == 1 {
		return "1 page"
	}
	return fmt.Sprintf("%d pages", d.Pages)
}

// progressPrinter shows ingest progress: JSON lines with --json, a live line on a terminal, nothing otherwise
// (the results are printed at the end).
type progressPrinter struct {
	out, errw io.Writer
	json      bool
	tty       bool
	last      time.Time
	shown     bool
}

func newProgressPrinter(out, errw io.Writer, asJSON bool) *progressPrinter {
	p := &progressPrinter{out: out, errw: errw, json: asJSON}
	if f, ok := errw.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
	}
	return p
}

// event is called one event at a time by the Ingester.
func (p *progressPrinter) event(e ingest.Progress) {
	if p.json {
		_ = writeJSONLine(p.out, progressLine{Type: "progress", Progress: e})
		return
	}
	if !p.tty {
		return
	}
	final := e.Stage == ingest.StageDone || e.Stage == ingest.StageFailed || e.Stage == ingest.StageExists
	if !final && time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	line := fmt.Sprintf("%s: %s %d/%d", termsafe.Line(e.Name), e.Stage, e.Done, e.Total)
	if e.PagesPerSec > 0 {
		line += fmt.Sprintf("  %.1f units/s", e.PagesPerSec)
	}
	if e.ETASeconds > 0 {
		line += fmt.Sprintf("  ETA %s", (time.Duration(e.ETASeconds) * time.Second).Round(time.Second))
	}
	if w, _, err := term.GetSize(int(p.errw.(*os.File).Fd())); err == nil && w > 10 && len(line) > w-1 {
		line = line[:w-1]
	}
	fmt.Fprintf(p.errw, "\r\033[K%s", line)
	p.shown = true
}

func (p *progressPrinter) clear() {
	if p.tty && p.shown {
		fmt.Fprint(p.errw, "\r\033[K")
	}
}
