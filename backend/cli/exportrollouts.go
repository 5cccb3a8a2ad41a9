package cli

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"proofglass/backend/eval"
	"proofglass/backend/evalrun"
	"proofglass/backend/kb"
)

func init() {
	registerGroup(cobra.Command{Use: "export", Short: "Export stored data for other tools"}, exportRolloutsCmd, exportCorpusCmd)
}

func exportRolloutsCmd(g *Globals) *cobra.Command {
	var format, out string
	var ro eval.RolloutOptions
	cmd := &cobra.Command{
		Use:   "rollouts EVAL",
		Short: "Write an answer evaluation's trajectories for training: verl (Parquet), sharegpt (LLaMA-Factory SFT) or jsonl",
		Long: `Writes every scored run of evaluation EVAL as a trajectory in Qwen chat format with its images as files
(OUT/images), the observation mask (loss_mask 0 on prompt and environment turns), reward and GRPO advantage.
verl writes OUT/rollouts.parquet, jsonl OUT/rollouts.jsonl, sharegpt OUT/sharegpt.json with the successful
trajectories only. A vimrag run gives one trajectory per model call (node), with the answer's ancestor path marked. Each
trajectory records its tool calls; --tool-weight W with --tool-budget N rewards fewer of them:
reward = (1−W)·(0.7·judge + 0.1·format + 0.2·ndcg) + W·judge·max(0, 1 − calls/N), W = 0 being VRAG-RL's reward.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil {
				return fmt.Errorf("evaluation id %q is not a number", args[0])
			}
			if err := ro.Check(); err != nil {
				return fmt.Errorf("--tool-weight/--tool-budget: %w", err)
			}
			if out == "" {
				out = fmt.Sprintf("rollouts-%d-%s", id, format)
			}
			return g.WithKB(cmd, func(ctx context.Context, k *kb.KB) error {
				_, st, items, err := evalrun.Load(ctx, k, id)
				if err != nil {
					return err
				}
				if len(items) == 0 {
					return fmt.Errorf("evaluation %d: %w", id, eval.ErrNoItems)
				}
				rep := eval.Summarize(id, st.Questions, items, st.Modes, st.Judge)
				path, n, err := eval.WriteRollouts(out, format, eval.RolloutsWith(rep, st.Questions, ro), k.Blobs.Get)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%d trajectories written to %s\n", n, path)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&format, "format", "jsonl", "verl (Parquet), sharegpt (LLaMA-Factory) or jsonl")
	cmd.Flags().StringVar(&out, "out", "", "output folder (default rollouts-EVAL-FORMAT)")
	cmd.Flags().Float64Var(&ro.ToolWeight, "tool-weight", 0, "weight W of the tool-efficiency term, 0 to 1 (0: VRAG-RL's reward)")
	cmd.Flags().IntVar(&ro.ToolBudget, "tool-budget", 0, "tool calls N at which the efficiency term reaches 0 (needed with --tool-weight)")
	return cmd
}
