package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"proofglass/backend/kb"
	"proofglass/backend/termsafe"
)

func init() {
	registerGroup(cobra.Command{Use: "conversations", Short: "List and show chat conversations (continue one with proofglass ask --conversation ID)"},
		conversationsListCmd, conversationsShowCmd)
}

func conversationsListCmd(g *Globals) *cobra.Command {
	return listCmd(g, "List conversations, most recently active first", "print one JSON object per conversation", "ID\tUPDATED\tTITLE",
		func(ctx context.Context, k *kb.KB) ([]kb.Conversation, error) { return k.History.Conversations(ctx) },
		func(c kb.Conversation) string {
			return fmt.Sprintf("%d\t%s\t%s", c.ID, c.UpdatedAt.Format("2006-01-02 15:04:05"), termsafe.Line(shorten(c.Title, 70)))
		})
}

func conversationsShowCmd(g *Globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Print a conversation's questions and answers, with the run behind each answer",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return fmt.Errorf("conversation id %q: want a positive number", args[0])
			}
			return g.WithKB(cmd, func(ctx context.Context, k *kb.KB) error {
				c, err := k.History.Conversation(ctx, id)
				if errors.Is(err, kb.ErrNotFound) {
					return fmt.Errorf("conversation %d: no such conversation (see proofglass conversations list)", id)
				}
				if err != nil {
					return err
				}
				msgs, err := k.History.Messages(ctx, id)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSONLine(cmd.OutOrStdout(), struct {
						kb.Conversation
						Messages []kb.Message `json:"messages"`
					}{c, msgs})
				}
				printConversation(cmd.OutOrStdout(), c, msgs)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the conversation and its messages as one JSON object")
	return cmd
}

// printConversation prints a conversation as a transcript, each answer naming the run behind it.
func printConversation(w io.Writer, c kb.Conversation, msgs []kb.Message) {
	fmt.Fprintf(w, "conversation %d · %s\n", c.ID, termsafe.Line(c.Title))
	for _, m := range msgs {
		switch m.Role {
		case "user":
			fmt.Fprintf(w, "\nyou: %s\n", termsafe.Text(m.Content))
		default:
			run := ""
			if m.RunID != 0 {
				run = fmt.Sprintf(" (run %d: proofglass runs show %d)", m.RunID, m.RunID)
			}
			fmt.Fprintf(w, "proofglass%s: %s\n", run, termsafe.Text(m.Content))
		}
	}
}

func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
