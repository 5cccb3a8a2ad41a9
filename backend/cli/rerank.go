package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"proofglass/backend/config"
	"proofglass/backend/rerank"
)

func init() {
	register("rerank", func(g *Globals) *cobra.Command {
		cmd := &cobra.Command{Use: "rerank", Short: "Show, set, test or turn off the reranker that reorders search results"}
		show := func(cmd *cobra.Command, r config.Rerank) {
			w := cmd.OutOrStdout()
			if !r.Enabled() {
				fmt.Fprintln(w, "reranker: off")
				return
			}
			fmt.Fprintf(w, "reranker: %s\nprovider: %s\nmodel: %s\ncandidates: %d\nimages: %v\n", r.Kind, orDefault(r.Provider),
				orDefault(r.Model), r.Depth(), r.Images)
		}
		cmd.AddCommand(&cobra.Command{
			Use: "show", Short: "Print the configured reranker", Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				cfg, err := g.Config()
				if err != nil {
					return err
				}
				show(cmd, cfg.Current().Rerank)
				return nil
			},
		})
		var r config.Rerank
		set := &cobra.Command{
			Use:   "set endpoint|dashscope|chat",
			Short: "Rerank every search with a /rerank endpoint (vLLM), DashScope, or the chat model (one call per search)",
			Long: `Rerank every search's first-stage top pages.

  endpoint   a Jina/Cohere-style /rerank endpoint of an OpenAI-compatible profile (vLLM: vllm serve BAAI/bge-reranker-v2-m3)
  dashscope  DashScope's text-rerank service (gte-rerank-v2) with a DashScope profile's key
  chat       the profile's chat model ranks the candidates' page images (one model call per search)

The reranker uses its profile's URL and stored API key.`,
			Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				cfg, err := g.Config()
				if err != nil {
					return err
				}
				r.Kind = args[0]
				s := cfg.Current()
				s.Rerank = r
				if err := cfg.Update(s); err != nil {
					return err
				}
				show(cmd, cfg.Current().Rerank)
				return nil
			},
		}
		set.Flags().StringVar(&r.Provider, "provider", "", "provider profile serving the reranker (default: the first of its kind; chat: the agent's)")
		set.Flags().StringVar(&r.Model, "model", "", "reranker model (endpoint: required; dashscope: gte-rerank-v2; chat: the profile's chat model)")
		set.Flags().IntVar(&r.Candidates, "candidates", 0, "first-stage pages to rerank (0: 30, chat 8)")
		set.Flags().Float64Var(&r.TimeoutSeconds, "timeout", 0, "seconds a search waits for the reranker before it answers in first-stage order (0: 8, chat 45)")
		set.Flags().BoolVar(&r.Images, "images", false, "endpoint: send page images (multimodal rerankers such as jina-reranker-m0)")
		cmd.AddCommand(set)
		cmd.AddCommand(&cobra.Command{
			Use: "off", Short: "Stop reranking (searches keep the first stage's order)", Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				cfg, err := g.Config()
				if err != nil {
					return err
				}
				s := cfg.Current()
				s.Rerank = config.Rerank{}
				if err := cfg.Update(s); err != nil {
					return err
				}
				show(cmd, s.Rerank)
				return nil
			},
		})
		cmd.AddCommand(&cobra.Command{
			Use: "test", Short: "Rerank two sample texts with the configured reranker", Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				cfg, err := g.Config()
				if err != nil {
					return err
				}
				rr, r, err := rerank.FromConfig(cfg)
				if err != nil {
					return err
				}
				if rr == nil {
					return fmt.Errorf("no reranker configured: proofglass rerank set endpoint|dashscope|chat")
				}
				start := time.Now()
				sensible, err := rerank.Check(cmd.Context(), rr)
				if err != nil {
					return err
				}
				verdict := "ranked the answering sample first"
				if !sensible {
					verdict = "answered, but did NOT rank the answering sample first"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s (%s, %d candidates per search): %s in %d ms\n", rr.Name(), r.Kind, r.Depth(),
					verdict, time.Since(start).Milliseconds())
				return nil
			},
		})
		return cmd
	})
}

func orDefault(s string) string {
	if s == "" {
		return "(default)"
	}
	return s
}
