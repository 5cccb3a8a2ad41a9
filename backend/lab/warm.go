package lab

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"proofglass/backend/bench"
)

// warmCmd is `proofglass-lab bench warm PDF`.
func warmCmd() *cobra.Command {
	var o bench.WarmOptions
	var asJSON bool
	c := &cobra.Command{
		Use:   "warm PDF",
		Short: "Render a PDF's pages at 200 DPI as `proofglass cache warm` does, beside pdftoppm -r 200 -jpeg (VRAG's pdf2images) on the same pages; then VRAG-RL's 100-query request cold, first after warming and warm, and 8 clients at once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Path = args[0]
			res, err := bench.Warm(cmd.Context(), o)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				return writeJSONLine(out, res)
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "what\tpages\tseconds\tpages/s\tCPU ms/page\tKB/page")
			for _, r := range res.Rows {
				fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%.0f\n", r.Name, r.Pages, r.Seconds, r.PagesPS, r.CPUms, r.KBPerPage)
			}
			tw.Flush()
			if len(res.Rows) == 4 {
				fmt.Fprintf(out, "CPU per page, pdftoppm ÷ proofglass: %.2f (1 process each), %.2f (parallel); pages/s, proofglass ÷ pdftoppm: %.2f (1), %.2f (parallel)\n",
					res.Rows[0].CPUms/res.Rows[1].CPUms, res.Rows[2].CPUms/res.Rows[3].CPUms,
					res.Rows[1].PagesPS/res.Rows[0].PagesPS, res.Rows[3].PagesPS/res.Rows[2].PagesPS)
			}
			fmt.Fprintf(out, "VRAG-RL request (%d page slots): cold %.0f ms, first after warming %.0f ms, warm %.0f ms: first ÷ warm %.2f (cold ÷ warm %.1f)\n",
				res.Pages, res.ColdMS, res.FirstMS, res.WarmMS, res.FirstRatio, res.ColdMS/res.WarmMS)
			fmt.Fprintf(out, "8 clients × 5 requests: p50 %.0f ms, p99 %.0f ms, p99 ÷ p50 %.2f\n", res.P50MS, res.P99MS, res.P99OverP50)
			return nil
		},
	}
	f := c.Flags()
	f.IntVar(&o.Pages, "pages", 0, "the PDF's first N pages only (0 = all; copied with mutool)")
	f.IntVar(&o.Workers, "workers", 0, "render workers and pdftoppm processes (default: number of CPUs)")
	f.IntVar(&o.Queries, "queries", 100, "queries per request")
	f.IntVar(&o.TopK, "top-k", 10, "pages per query")
	f.BoolVar(&asJSON, "json", false, "print the result as one JSON object")
	return c
}
