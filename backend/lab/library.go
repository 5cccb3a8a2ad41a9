package lab

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"proofglass/backend/bench"
)

// libraryCmd is `proofglass-lab bench library`.
func libraryCmd() *cobra.Command {
	var o bench.LibraryOptions
	var asJSON bool
	c := &cobra.Command{
		Use:   "library",
		Short: "Build a library-size collection from distinct copies of PDFs and measure ingest and search: rates per wall and CPU second, latency, peak RSS, concurrency",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return bench.Library(cmd.Context(), o, rowPrinter(cmd.OutOrStdout(), asJSON, true))
		},
	}
	f := c.Flags()
	f.StringSliceVar(&o.Sources, "from", []string{"../shared/testdata/pdf", "../shared/eval/dev/docs"}, "files or folders of PDFs to copy")
	f.IntVar(&o.Docs, "docs", 100, "at least this many documents")
	f.IntVar(&o.Pages, "pages", 10_000, "at least this many pages")
	f.StringVar(&o.Dir, "dir", "", "data directory to build and keep (default: a temp dir, removed afterwards)")
	f.BoolVar(&o.Reuse, "reuse", false, "search the collection already in --dir instead of building it")
	f.StringVar(&o.Exe, "proofglass", "",
		"shipped proofglass binary for the new-process searches, add and delete (default: proofglass, else proofglass-cli, beside proofglass-lab, else proofglass on PATH)")
	f.IntVar(&o.Workers, "workers", 0, "ingest workers (default: number of CPUs)")
	f.BoolVar(&o.OCR, "ocr", false, "OCR pages without a text layer")
	f.IntVar(&o.Searches, "searches", 50, "searches per measurement (per client)")
	f.IntVar(&o.Clients, "clients", 8, "concurrent clients")
	f.StringSliceVar(&o.Queries, "query", nil, "queries (default: a built-in list)")
	f.BoolVar(&asJSON, "json", false, "print one JSON object per figure")
	return c
}

// ocrCmd is `proofglass-lab bench ocr`.
func ocrCmd() *cobra.Command {
	var o bench.OCROptions
	var asJSON bool
	c := &cobra.Command{
		Use:   "ocr",
		Short: "OCR pages per CPU second: Proofglass's per-page language choice beside plain tesseract with all languages and with eng",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return bench.OCR(cmd.Context(), o, rowPrinter(cmd.OutOrStdout(), asJSON, false))
		},
	}
	f := c.Flags()
	f.StringSliceVar(&o.Sources, "from", []string{"../shared/testdata/pdf/scanned", "../shared/testdata/pdf/cjk/zhlipsum.pdf"}, "PDFs whose pages are OCRed")
	f.IntVar(&o.MaxPages, "pages", 16, "pages at most (three per file)")
	f.StringSliceVar(&o.Languages, "lang", nil, "Proofglass's OCR languages (default: eng,chi_sim)")
	f.BoolVar(&asJSON, "json", false, "print one JSON object per figure")
	return c
}

const libraryRowFormat = "%-52s %6s %8s %8s %8s %8s %8s %8s %7s  %s\n"

// rowPrinter prints the table's header now and returns the function that prints each figure's row (one JSON object
// per figure with asJSON); without latency the latency and memory columns show "-".
func rowPrinter(out io.Writer, asJSON, latency bool) func(bench.Row) {
	if !asJSON {
		fmt.Fprintf(out, libraryRowFormat, "what", "n", "wall s", "cpu s", "n/s", "n/cpu s", "p50 ms", "p99 ms", "RSS MB", "note")
	}
	return func(r bench.Row) {
		if asJSON {
			writeJSONLine(out, r)
			return
		}
		p50, p99, rss := f1(r.P50MS), f1(r.P99MS), f1(r.RSSMB)
		if !latency {
			p50, p99, rss = "-", "-", "-"
		}
		fmt.Fprintf(out, libraryRowFormat, r.What, fmt.Sprint(r.N), f2(r.WallS), f2(r.CPUS), f1(r.PerS), f1(r.PerCPUS),
			p50, p99, rss, r.Note)
	}
}

func f1(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", v)
}

func f2(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}
