package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"proofglass/backend/facets"
	"proofglass/backend/library"
	"proofglass/backend/search"
	"proofglass/backend/termsafe"
)

// searchLine is one line of `proofglass search --json`; evaluations read these fields, so keep them stable.
type searchLine struct {
	Doc        string        `json:"doc"`
	DocumentID int64         `json:"document_id"`
	UnitID     int64         `json:"unit_id"`
	Page       int           `json:"page"`
	TStart     *float64      `json:"t_start,omitempty"` // seconds, video clips only
	TEnd       *float64      `json:"t_end,omitempty"`
	Score      float64       `json:"score"`
	Scores     search.Scores `json:"scores"`
	Boxes      []search.Box  `json:"boxes"`
	// Rerank and FirstRank are set when a reranker scored the hit: its relevance and the first stage's rank.
	Rerank    *float64 `json:"rerank,omitempty"`
	FirstRank int      `json:"first_rank,omitempty"`
}

func init() {
	register("search", func(g *Globals) *cobra.Command {
		var (
			k          int
			collection string
			mode       string
			asJSON     bool
			weights    string
			structure  string
			docs       []string
			noRerank   bool
			where      string
		)
		cmd := &cobra.Command{
			Use:   "search QUERY",
			Short: "Search the knowledge base (BM25 + dense, fused) and print the best pages",
			Args:  cobra.MinimumNArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				ctx := cmd.Context()
				m, err := search.ParseMode(mode)
				if err != nil {
					return err
				}
				wts, err := search.ParseWeights(weights)
				if err != nil {
					return err
				}
				sw, err := search.ParseStructure(structure)
				if err != nil {
					return err
				}
				lib, err := library.Open(ctx, g.DataDir)
				if err != nil {
					return err
				}
				defer lib.Close()
				req := library.SearchRequest{Text: strings.Join(args, " "), K: k, Mode: m, Structure: &sw,
					NoRerank: noRerank, Scope: library.Scope{Collection: collection, DocumentNames: docs, Where: where}}
				if weights != "" { // else the searcher's defaults, which depend on the collection's embedder
					req.Weights = &wts
				}
				res, err := lib.Search(ctx, req)
				if err != nil {
					return err
				}
				for _, n := range res.Notes {
					fmt.Fprintln(cmd.ErrOrStderr(), "note:", termsafe.Line(n))
				}
				if r := res.Rerank; r != nil && !r.Reranked {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: the reranker failed, so these results are in first-stage order: %s\n", termsafe.Line(r.Error))
				} else if r != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "note: reranked the first %d pages with %s (%d ms)\n", r.Candidates, r.Reranker, r.MS)
				}
				w := cmd.OutOrStdout()
				if asJSON {
					for _, h := range res.Hits {
						l := searchLine{Doc: h.Doc, DocumentID: h.DocumentID, UnitID: h.UnitID, Page: h.Page, Score: h.Score,
							Scores: h.Scores, Boxes: h.Boxes, Rerank: h.Rerank, FirstRank: h.FirstRank}
						if h.UnitKind == "clip" {
							ts, te := float64(h.TStartMS)/1000, float64(h.TEndMS)/1000
							l.TStart, l.TEnd = &ts, &te
						}
						if err := writeJSONLine(w, l); err != nil {
							return err
						}
					}
					return nil
				}
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				reranked := res.Rerank != nil && res.Rerank.Reranked
				head := "#\tSCORE\tBM25\tTEXT\tVISUAL\t"
				if reranked {
					head += "RERANK\tWAS\t"
				}
				fmt.Fprintln(tw, head+"DOCUMENT\tPAGE\tSNIPPET")
				for i, h := range res.Hits {
					fmt.Fprintf(tw, "%d\t%.4f\t%s\t%s\t%s\t", i+1, h.Score, num(h.Scores.BM25), num(h.Scores.Text), num(h.Scores.Visual))
					if reranked {
						fmt.Fprintf(tw, "%s\t%s\t", num(h.Rerank), rank(h.FirstRank))
					}
					fmt.Fprintf(tw, "%s\t%d\t%s\n", termsafe.Line(h.Doc), h.Page, termsafe.Line(h.Snippet))
				}
				return tw.Flush()
			},
		}
		cmd.Flags().IntVar(&k, "k", 10, "number of results")
		cmd.Flags().StringVar(&collection, "collection", "", "search only this collection (default: all)")
		cmd.Flags().StringArrayVar(&docs, "doc", nil, "search only this document, by id or file name (repeat for several)")
		cmd.Flags().StringVar(&where, "where", "", "search only documents whose facets match: "+facets.WhereSyntax)
		cmd.Flags().StringVar(&mode, "mode", "hybrid", "hybrid, bm25 or dense")
		cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per result")
		cmd.Flags().StringVar(&weights, "weights", "", "fusion weights, e.g. bm25=1,text=0.5,visual=1 (default: all 1, but text 0.01 with the built-in embedder)")
		cmd.Flags().BoolVar(&noRerank, "no-rerank", false, "skip the configured reranker (first stage only)")
		cmd.Flags().StringVar(&structure, "structure", "", "structure weights, e.g. doc=1,label=1,page=0.3,name=0.3,figure=0.3,passage=1 (unnamed ones keep their defaults)")
		return cmd
	})
}

// rank prints a first-stage rank ("-" when none).
func rank(r int) string {
	if r <= 0 {
		return "-"
	}
	return fmt.Sprintf("%d", r)
}

func num(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *p)
}
