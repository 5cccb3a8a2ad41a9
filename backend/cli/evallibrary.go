package cli

import (
	"context"
	"github.com/spf13/cobra"

	"proofglass/backend/learnrank"
	"proofglass/backend/library"
)

func evalLibraryCmd(g *Globals) *cobra.Command {
	var (
		o                      learnrank.Options
		asJSON, forget, vision bool
		provider, visionModel  string
	)
	cmd := &cobra.Command{
		Use:   "library",
		Short: "How well search finds pages of this library: questions written from its own pages, hit@1/5/10 and MRR on the documents held out; --train teaches it a ranker",
		Long: `Writes questions from the library's own pages (table cells with their row and column, captions, headings,
sentences), each answered by the page it came from. The questions of about 30 % of the documents are held out and
never trained on: hit@1/5/10 and MRR on them are reported for the hand-set ranker and, when there is one, the learned
ranker, over the whole library, within each question's document, and by document, question kind and document kind.
With --train, a ranker is trained on the other documents' questions and saved with the library: every search uses
it from then on (proofglass search, the agent, serve, MCP). --forget goes back to the hand-set weights.

With --vision, a vision model (--provider, --model) is also shown a few page images of each document and writes
questions about them. Those that name nothing on the page, ask about the picture or copy its words are set aside;
of the training documents' questions only those today's ranking does not put first are kept to train on, and the
held-out documents' are measured as the kind "vision".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.WithLibrary(cmd, func(ctx context.Context, lib *library.Library) error {
				if forget {
					return lib.ForgetRanker(ctx)
				}
				if vision {
					v, err := lib.VisualQuestioner(provider, visionModel)
					if err != nil {
						return err
					}
					o.Visual = v
				}
				rep, err := lib.TeachRanker(ctx, o)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSONLine(cmd.OutOrStdout(), rep)
				}
				return rep.WriteTable(cmd.OutOrStdout())
			})
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.Collections, "collection", nil, "collections to learn from and search (default: all)")
	f.IntVar(&o.Questions, "questions", 600, "about how many questions to write (at least two a document)")
	f.Float64Var(&o.Held, "held", 0.3, "share of documents held out to measure")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the questions and the split")
	f.BoolVar(&o.Train, "train", false, "train a ranker on the other documents' questions and save it with the library")
	f.BoolVar(&forget, "forget", false, "delete the library's learned ranker (searches use the hand-set weights)")
	f.BoolVar(&vision, "vision", false, "also have a vision model write questions from page images")
	f.StringVar(&provider, "provider", "", "with --vision: provider profile or kind of the vision model (default from settings)")
	f.StringVar(&visionModel, "model", "", "with --vision: the vision model (default: the profile's chat_model)")
	f.IntVar(&o.VisualPages, "vision-pages", 2, "with --vision: pages of each document shown to the model")
	f.BoolVar(&asJSON, "json", false, "print the report as one JSON object")
	return cmd
}
