package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"proofglass/backend/kb"
	"proofglass/backend/kbagent"
	"proofglass/backend/termsafe"
)

func init() {
	registerGroup(cobra.Command{Use: "runs", Short: "List and replay stored agent runs"}, runsListCmd, runsShowCmd)
}

func runsListCmd(g *Globals) *cobra.Command {
	var limit int
	cmd := listCmd(g, "List stored runs, newest first", "print one JSON object per run", "ID\tSTATUS\tMODE\tMODEL\tSTARTED\tQUESTION",
		func(ctx context.Context, k *kb.KB) ([]kb.Run, error) { return k.History.Runs(ctx, limit) },
		func(r kb.Run) string {
			return fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t%s", r.ID, r.Status, r.Mode, strings.Trim(r.Provider+"/"+r.Model, "/"),
				r.StartedAt.Format("2006-01-02 15:04:05"), termsafe.Line(shorten(r.Question, 60)))
		})
	cmd.Flags().IntVar(&limit, "limit", 50, "show at most this many runs (0: all)")
	return cmd
}

func runsShowCmd(g *Globals) *cobra.Command {
	var asJSON bool
	var crops string
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Replay a stored run as its live transcript (or its events as JSON lines)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			id, err := kbagent.ParseID(args[0])
			if err != nil {
				return err
			}
			cfg, k, err := g.Open(ctx)
			if err != nil {
				return err
			}
			defer k.Close()
			sink, printErr := askOutput(cmd.OutOrStdout(), cfg, k, asJSON, crops)
			if err := replayRun(ctx, k, id, sink); err != nil {
				return err
			}
			return printErr()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the stored events as JSON lines")
	cmd.Flags().StringVar(&crops, "crops", "", "folder for crop images (default: DATA/runs)")
	return cmd
}
