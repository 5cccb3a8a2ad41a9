package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"proofglass/backend/agent"
	"proofglass/backend/config"
	"proofglass/backend/facets"
	"proofglass/backend/kb"
	"proofglass/backend/kbagent"
	"proofglass/backend/library"
	"proofglass/backend/transcript"
)

func init() {
	register("ask", func(g *Globals) *cobra.Command {
		var (
			mode, collection, prov, modelName, crops string
			asJSON                                   bool
			conversation                             int64
			docs                                     []string
			where                                    string
			rf                                       runFlags
		)
		cmd := &cobra.Command{
			Use:   "ask QUESTION",
			Short: "Answer a question with the visual RAG agent (vrag, vimrag, vanilla or react) and store the run",
			Args:  cobra.MinimumNArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				lib, err := library.Open(ctx, g.DataDir)
				if err != nil {
					return err
				}
				defer lib.Close()
				cfg, k := lib.Config, lib.KB
				if mode != "" && !slices.Contains(agent.Modes, agent.Mode(mode)) {
					return fmt.Errorf("unknown --mode %q (want vrag, vimrag, vanilla or react)", mode)
				}
				ro := library.RunOptions{Mode: mode, Provider: prov, Model: modelName, Collection: collection}
				rf.apply(cmd.Flags(), &ro)
				// The scope and options are checked before anything is stored or any model called.
				question := strings.Join(args, " ")
				q, err := lib.Prepare(ctx, library.AskRequest{Question: question, ConversationID: conversation,
					Scope: library.Scope{DocumentNames: docs, Where: where}, Options: ro})
				if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				sink, printErr := askOutput(out, cfg, k, asJSON, crops)
				t, err := q.Ask(ctx, sink)
				if errors.Is(err, kb.ErrNotFound) && t.RunID == 0 && conversation != 0 {
					return fmt.Errorf("--conversation %d: no such conversation (see proofglass conversations list)", conversation)
				}
				convID := t.ConversationID
				if err == nil {
					err = printErr()
				}
				if t.Result.Status == agent.StatusCancelled {
					fmt.Fprintf(cmd.ErrOrStderr(), "run %d cancelled and stored; see it with: proofglass runs show %d\n", t.RunID, t.RunID)
				}
				if t.RunID != 0 && !asJSON {
					fmt.Fprintf(cmd.ErrOrStderr(), "conversation %d · ask a follow-up with: proofglass ask --conversation %d QUESTION\n", convID, convID)
				}
				return err
			},
		}
		f := cmd.Flags()
		f.StringVar(&mode, "mode", "", "agent: vrag, vimrag, vanilla or react (default from settings)")
		f.StringVar(&collection, "collection", "", "search only this collection")
		f.StringArrayVar(&docs, "doc", nil, "answer from this document only, by id or file name (repeat for several)")
		f.StringVar(&where, "where", "", "answer only from documents whose facets match: "+facets.WhereSyntax)
		f.StringVar(&prov, "provider", "", "provider profile or kind: ollama, openai, dashscope, … (default from settings)")
		f.StringVar(&modelName, "model", "", "chat model (default: the profile's chat_model)")
		rf.register(f)
		f.BoolVar(&asJSON, "json", false, "print the events as JSON lines instead of a transcript")
		f.StringVar(&crops, "crops", "", "folder for crop images (default: DATA/runs)")
		f.Int64Var(&conversation, "conversation", 0, "continue this conversation (a follow-up is understood from its earlier turns)")
		return cmd
	})
}

// askOutput is the sink that prints a run, live or replayed: a transcript, or one JSON event per line. The
// returned function reports the first write error.
func askOutput(w io.Writer, cfg *config.Config, k *kb.KB, asJSON bool, crops string) (agent.Sink, func() error) {
	if asJSON {
		var werr error
		return func(ev agent.Event) {
			if werr == nil {
				werr = writeJSONLine(w, ev)
			}
		}, func() error { return werr }
	}
	if crops == "" {
		crops = filepath.Join(cfg.DataDir, "runs")
	}
	p := transcript.New(w)
	p.Dim = isTerminal(w)
	p.CropDir = crops
	p.Blob = k.Blobs.Get
	return p.Sink, p.Err
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// errRunNotFound is returned for an unknown run id.
var errRunNotFound = errors.New("no such run")

// replayRun prints stored run id through sink after checking its events form a whole run.
func replayRun(ctx context.Context, k *kb.KB, id int64, sink agent.Sink) error {
	if _, err := k.History.Run(ctx, id); err != nil {
		if errors.Is(err, kb.ErrNotFound) {
			return fmt.Errorf("run %d: %w", id, errRunNotFound)
		}
		return err
	}
	evs, err := kbagent.Events(ctx, k, id)
	if err != nil {
		return err
	}
	if _, err := agent.Replay(evs); err != nil {
		return err
	}
	for _, ev := range evs {
		sink(ev)
	}
	return nil
}
