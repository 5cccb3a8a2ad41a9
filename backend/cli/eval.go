package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"proofglass/backend/eval"
	"proofglass/backend/rerank"
	"proofglass/backend/search"
)

func init() {
	registerGroup(cobra.Command{Use: "eval", Short: "Evaluate retrieval and answers on a dataset"},
		evalRetrievalCmd, evalLibraryCmd, evalAnswersCmd, evalCompareCmd, evalListCmd)
}

func evalRetrievalCmd(g *Globals) *cobra.Command {
	var (
		dataset, collection string
		asJSON, perDoc      bool
		perQuestion         bool
		weights, structure  string
		reranked, handSet   bool
	)
	cmd := &cobra.Command{
		Use:   "retrieval",
		Short: "Page recall@1/5/10, MRR@10 and NDCG@5 of bm25, dense and hybrid search on a dataset",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			w, err := search.ParseWeights(weights)
			if err != nil {
				return err
			}
			sw, err := search.ParseStructure(structure)
			if err != nil {
				return err
			}
			qs, err := eval.ReadQuestions(dataset)
			if err != nil {
				return err
			}
			cfg, kbase, err := g.Open(ctx)
			if err != nil {
				return err
			}
			defer kbase.Close()
			opts := search.Options{Embedders: search.ConfigResolver(cfg), IndexDir: cfg.IndexDir(), RecheckEvery: 1 << 62}
			if reranked {
				rr, r, err := rerank.FromConfig(cfg)
				if err != nil {
					return err
				}
				if rr == nil {
					return fmt.Errorf("--rerank: no reranker configured (proofglass rerank set …)")
				}
				stage := &search.RerankStage{Reranker: rr, Depth: r.Depth()} // page text only: no renderer here
				opts.Rerank = func(context.Context) (*search.RerankStage, error) { return stage, nil }
			}
			s := search.New(kbase, opts)
			var docIDs map[string]int64
			if perDoc {
				if docIDs, err = kbase.Docs.DocumentIDsByName(ctx, collection); err != nil {
					return err
				}
			}
			retrieve := func(ctx context.Context, q eval.Question, mode string) ([]eval.PageRef, error) {
				sq := search.Query{Text: q.Question, K: 10, Mode: search.Mode(mode), Collections: []string{collection},
					Structure: &sw, NoLearned: handSet}
				if weights != "" { // else the searcher's defaults, which depend on the collection's embedder
					sq.Weights = &w
				}
				if perDoc {
					id, ok := docIDs[q.Doc]
					if !ok {
						return nil, fmt.Errorf("document %s is not in collection %q", q.Doc, collection)
					}
					sq.DocumentIDs = []int64{id}
				}
				res, err := s.Search(ctx, sq)
				if err != nil {
					return nil, err
				}
				if err := res.Rerank.Err(); err != nil {
					return nil, fmt.Errorf("question %s: %w", q.ID, err) // a measurement, not a search: no silent fallback
				}
				out := make([]eval.PageRef, len(res.Hits))
				for i, h := range res.Hits {
					out[i] = eval.PageRef{Doc: h.Doc, Page: h.Page}
				}
				return out, nil
			}
			rep, err := eval.EvaluateRetrieval(ctx, qs, []string{"bm25", "dense", "hybrid"}, retrieve)
			if err != nil {
				return err
			}
			if !perQuestion {
				rep.PerQ = nil
			}
			if asJSON {
				return writeJSONLine(cmd.OutOrStdout(), rep)
			}
			return rep.WriteTable(cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&dataset, "dataset", "", "questions file (JSON lines, see shared/eval/README.md)")
	cmd.Flags().StringVar(&collection, "collection", "", "collection holding the dataset's documents")
	cmd.Flags().BoolVar(&perDoc, "per-doc", false, "search only the question's own document (default: the whole collection)")
	cmd.Flags().BoolVar(&perQuestion, "per-question", false, "include each question's scores in --json output")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as one JSON object")
	cmd.Flags().StringVar(&weights, "weights", "", "fusion weights of hybrid mode, e.g. bm25=1,text=0.5 (default: all 1, but text 0.01 with the built-in embedder)")
	cmd.Flags().StringVar(&structure, "structure", "", "structure weights, e.g. doc=1,label=1,page=0.3,name=0.3,figure=0.3,passage=1 (unnamed ones keep their defaults)")
	cmd.Flags().BoolVar(&handSet, "hand-set", false, "rank by the hand-set weights even when the library has a learned ranker (proofglass eval library --train)")
	cmd.Flags().BoolVar(&reranked, "rerank", false, "rerank each mode's top pages with the configured reranker (their text; a failure stops the run)")
	_ = cmd.MarkFlagRequired("dataset")
	_ = cmd.MarkFlagRequired("collection")
	return cmd
}
