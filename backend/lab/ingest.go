package lab

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"proofglass/backend/bench"
)

// ingestCmd is `proofglass-lab bench ingest PDF...`.
func ingestCmd() *cobra.Command {
	var o bench.IngestOptions
	var asJSON bool
	c := &cobra.Command{
		Use:   "ingest PDF...",
		Short: "Ingest PDFs into a throw-away store, kind by kind (folder): CPU per page beside MuPDF's text and thumbnail raster and pdftoppm -r 200 on the same pages, peak RSS, render latency",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Paths = args
			rows, err := bench.Ingest(cmd.Context(), o)
			out := cmd.OutOrStdout()
			if asJSON {
				for _, r := range rows {
					writeJSONLine(out, r)
				}
				return err
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "kind\twhat\tpages\tseconds\tpages/s\tCPU ms/page\tits CPU ÷ proofglass's\tpeak RSS MB\trender p50/p99 ms\tnote")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%.1f\t%.2f\t%.2f\t%.0f\t%.1f/%.1f\t%s\n", r.Kind, r.Name, r.Pages, r.Seconds, r.PagesPS, r.CPUms, r.Ratio,
					float64(r.PeakRSS)/(1<<20), r.RenderMS[0], r.RenderMS[1], r.Note)
			}
			tw.Flush()
			return err
		},
	}
	f := c.Flags()
	f.IntVar(&o.Workers, "workers", 0, "parallel workers (default: number of CPUs)")
	f.BoolVar(&o.OCR, "ocr", false, "include OCR of pages without a text layer")
	f.IntVar(&o.BaselinePages, "baseline-pages", 100, "pages per file (first N): Proofglass and the baselines all work on copies of these pages")
	f.IntVar(&o.Rounds, "rounds", 3, "interleaved rounds of ingest and baselines (medians are reported)")
	f.IntVar(&o.Renders, "renders", 200, "on-demand renders to time")
	f.BoolVar(&asJSON, "json", false, "print one JSON object per row")
	return c
}
