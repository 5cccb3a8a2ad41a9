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
	register("runs", func(g *Globals) *cobra.Command {
		cmd := &cobra.Command{Use: "runs", Short: "List and replay stored agent runs"}
		var listJSON bool
		var limit int
		list := &cobra.Command{
			Use:   "list",
			Short: "List stored runs, newest first",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return g.WithKB(cmd, func(ctx context.Context, k *kb.KB) error {
					runs, err := k.History.Runs(ctx, limit)
					if err != nil {
						return err
					}
					return printRows(cmd.OutOrStdout(), listJSON, runs, "ID\tSTATUS\tMODE\tMODEL\tSTARTED\tQUESTION", func(r kb.Run) string {
						return fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t%s", r.ID, r.Status, r.Mode, strings.Trim(r.Provider+"/"+r.Model, "/"),
							r.StartedAt.Format("2006-01-02 15:04:05"), termsafe.Line(shorten(r.Question, 60)))
					})
				})
			},
		}
		list.Flags().BoolVar(&listJSON, "json", false, "print one JSON object per run")
		list.Flags().IntVar(&limit, "limit", 50, "show at most this many runs (0: all)")

		var showJSON bool
		var crops string
		show := &cobra.Command{
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
				sink, printErr := askOutput(cmd.OutOrStdout(), cfg, k, showJSON, crops)
				if err := replayRun(ctx, k, id, sink); err != nil {
					return err
				}
				return printErr()
			},
		}
		show.Flags().BoolVar(&showJSON, "json", false, "print the stored events as JSON lines")
		show.Flags().StringVar(&crops, "crops", "", "folder for crop images (default: DATA/runs)")
		cmd.AddCommand(list, show)
		return cmd
	})
}
