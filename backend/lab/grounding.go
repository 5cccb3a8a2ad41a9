package lab

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"proofglass/backend/groundeval"
)

// evalCmd is `proofglass-lab eval`.
func evalCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "eval",
		Short: "Measure how far Proofglass's checks can be trusted",
	}
	c.AddCommand(groundingCmd())
	return c
}

// groundingCmd is `proofglass-lab eval grounding [FILE...]`.
func groundingCmd() *cobra.Command {
	var seed uint64
	var perDoc int
	var show bool
	c := &cobra.Command{
		Use:   "grounding [FILE...]",
		Short: "Check answers built from generated filings, surveys and Chinese reports, and from the real FILEs' pages, each figure true and altered; print true-green, false-alarm, altered-caught, altered-green and true-value-named rates",
		RunE: func(cmd *cobra.Command, files []string) error {
			ctx := cmd.Context()
			w := cmd.OutOrStdout()
			docs, cases := groundeval.Synthetic(seed)
			res, err := groundeval.Run(ctx, docs, cases)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "## Generated documents (%d documents, seed %d)\n\n", len(docs), seed)
			if err := groundeval.Print(w, res); err != nil {
				return err
			}
			if show {
				printMisses(cmd, res)
			}
			if len(files) == 0 {
				return nil
			}
			real, err := groundeval.Ingest(ctx, files)
			if err != nil {
				return err
			}
			res, err = groundeval.Run(ctx, real, groundeval.FromDocs(real, seed, perDoc))
			if err != nil {
				return err
			}
			names := make([]string, len(files))
			for i, f := range files {
				names[i] = filepath.Base(f)
			}
			fmt.Fprintf(w, "\n## Real documents (%d: %v; at most %d cases of each alteration a document)\n\n", len(real), names, perDoc)
			if err := groundeval.Print(w, res); err != nil {
				return err
			}
			if show {
				printMisses(cmd, res)
			}
			return nil
		},
	}
	f := c.Flags()
	f.Uint64Var(&seed, "seed", 1, "seed of the generated documents and of the cases drawn")
	f.IntVar(&perDoc, "per-doc", 30, "at most this many cases of each form and alteration from each real document")
	f.BoolVar(&show, "show", false, "also list every case the check got wrong")
	return c
}

// printMisses lists the cases the check got wrong: a true figure not green, an altered one not caught, a mismatch
// naming another value.
func printMisses(cmd *cobra.Command, res []groundeval.Result) {
	w := cmd.OutOrStdout()
	fmt.Fprintln(w)
	for _, r := range res {
		miss := r.Alter == groundeval.AlterNone && !r.Green() || r.Alter != groundeval.AlterNone && !r.Caught() ||
			r.Status == "mismatch" && !r.NamedRight()
		if miss {
			alter := r.Alter
			if alter == "" {
				alter = "true"
			}
			fmt.Fprintf(w, "- %s · %s · %s%s: %q (claim %q, page %d) → %s: %s [found %q, truth %q]\n", r.Set, r.Form, alter, contextNote(r.Context),
				r.Answer, r.Claim, r.Page+1, r.Status, r.Note, r.Found, r.Truth)
		}
	}
}

func contextNote(c string) string {
	if c == "" {
		return ""
	}
	return " (answer names " + c + ")"
}
