package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"proofglass/backend/eval"
	"proofglass/backend/evalrun"
	"proofglass/backend/kb"
	"proofglass/backend/library"
	"proofglass/backend/termsafe"
)

func evalAnswersCmd(g *Globals) *cobra.Command {
	var (
		spec        evalrun.Spec
		modes       string
		temperature float64
		asJSON      bool
		reportPath  string
		perQuestion bool
	)
	cmd := &cobra.Command{
		Use:   "answers",
		Short: "Run the agent on every question of a dataset and score the answers (rules, judge, VRAG-RL reward)",
		Long: `Runs the agent on every question (each run stored and linked to the evaluation), then scores each answer:
rule-based as MMLongBench-Doc scores (accuracy, generalised F1), by the VRAG-RL judge prompt (--judge-model; without
one the judge term is the rule-based verdict), and the VRAG-RL reward 0.7·judge + 0.1·format + 0.2·NDCG of the pages
shown to the model. An interrupted evaluation resumes where it stopped when run again with the same arguments.
--samples N runs N times per question (a GRPO group, temperature 1.0 unless --temperature) for rollouts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if modes != "" {
				spec.Modes = strings.Split(modes, ",")
			}
			switch {
			case cmd.Flags().Changed("temperature"):
				spec.Temperature = &temperature
			case spec.Samples > 1:
				t := 1.0 // VRAG-RL's rollout temperature: a group of greedy runs would not differ
				spec.Temperature = &t
			}
			if !cmd.Flags().Changed("samples") {
				spec.Samples = 1
			}
			lib, err := library.Open(ctx, g.DataDir)
			if err != nil {
				return err
			}
			defer lib.Close()
			if !cmd.Flags().Changed("think") {
				spec.Think = lib.Config.Settings.Agent.Think
			}
			bar := newProgressBar(cmd.ErrOrStderr())
			log := slog.New(slog.NewTextHandler(io.Discard, nil))
			if g.Verbose {
				log = slog.Default()
			}
			id, err := evalrun.Run(ctx, lib, spec, bar.update, log)
			bar.finish()
			if id != 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "evaluation %d\n", id)
			}
			if err != nil {
				if ctx.Err() != nil {
					return fmt.Errorf("evaluation %d interrupted; run the same command again to resume: %w", id, err)
				}
				return err
			}
			rep, err := evalrun.Report(ctx, lib.KB, id)
			if err != nil {
				return err
			}
			if reportPath != "" {
				if err := writeReportFile(reportPath, rep); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "report written to %s\n", reportPath)
			}
			if asJSON {
				if !perQuestion {
					rep.Items = nil
				}
				return writeJSONLine(cmd.OutOrStdout(), rep)
			}
			return rep.WriteTable(cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&spec.Dataset, "dataset", "", "questions file (JSON lines, see shared/eval/README.md)")
	f.StringVar(&spec.Collection, "collection", "", "collection holding the dataset's documents")
	f.StringVar(&modes, "mode", "", "agent mode(s), comma-separated: vrag, vimrag, vanilla, react (default from settings)")
	f.StringVar(&spec.Provider, "provider", "", "provider profile or kind of the agent's model (default from settings)")
	f.StringVar(&spec.Model, "model", "", "the agent's chat model (default: the profile's chat_model)")
	f.StringVar(&spec.JudgeProvider, "judge-provider", "", "provider of the LLM judge (with --judge-model; default: the settings' provider)")
	f.StringVar(&spec.JudgeModel, "judge-model", "", "LLM judge model; without a judge the reward's judge term is the rule-based verdict")
	f.IntVar(&spec.Concurrency, "concurrency", 1, "questions run at once")
	f.IntVar(&spec.Limit, "limit", 0, "only the first N questions")
	f.IntVar(&spec.Samples, "samples", 5, "runs per question and mode, a GRPO group for rollouts (without the flag: 1 run; VRAG-RL's group is 5)")
	f.Float64Var(&temperature, "temperature", 1.0, "sampling temperature of the agent's model (default: the policy's own; 1.0 with --samples > 1)")
	f.BoolVar(&spec.Think, "think", false, "ask the model to think (reasoning models)")
	f.BoolVar(&spec.PerDoc, "per-doc", false, "search only the question's own document (default: the whole collection)")
	f.BoolVar(&spec.OriginalStrip, "original-strip", false, "reproduce VRAG-RL's user-span bug in the reward (it strips nothing; see README)")
	f.BoolVar(&spec.New, "new", false, "start a new evaluation even if an unfinished one with the same arguments exists")
	f.BoolVar(&asJSON, "json", false, "print the report as one JSON object")
	f.BoolVar(&perQuestion, "per-question", false, "include every scored answer in --json output")
	f.StringVar(&reportPath, "report", "", "write a self-contained HTML report to this file")
	_ = cmd.MarkFlagRequired("dataset")
	_ = cmd.MarkFlagRequired("collection")
	return cmd
}

func writeReportFile(path string, rep *eval.AnswersReport) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := rep.WriteHTML(f); err != nil {
		f.Close()
		return fmt.Errorf("report %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	return nil
}

// reportByID loads the report of the answer evaluation a command-line argument names.
func reportByID(ctx context.Context, k *kb.KB, arg string) (*eval.AnswersReport, error) {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("evaluation id %q is not a number", arg)
	}
	return evalrun.Report(ctx, k, id)
}

func evalCompareCmd(g *Globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Print the difference between two answer evaluations (B − A)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.WithKB(cmd, func(ctx context.Context, k *kb.KB) error {
				var reps [2]*eval.AnswersReport
				for i, a := range args {
					var err error
					if reps[i], err = reportByID(ctx, k, a); err != nil {
						return err
					}
				}
				c := eval.Compare(reps[0], reps[1])
				if asJSON {
					return writeJSONLine(cmd.OutOrStdout(), c)
				}
				return c.WriteTable(cmd.OutOrStdout())
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the comparison as one JSON object")
	return cmd
}

func evalListCmd(g *Globals) *cobra.Command {
	var reportPath string
	cmd := &cobra.Command{
		Use:   "list [ID]",
		Short: "List answer evaluations, or show one (and write its HTML report with --report)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.WithKB(cmd, func(ctx context.Context, k *kb.KB) error {
				if len(args) == 1 {
					rep, err := reportByID(ctx, k, args[0])
					if err != nil {
						return err
					}
					if reportPath != "" {
						if err := writeReportFile(reportPath, rep); err != nil {
							return err
						}
					}
					return rep.WriteTable(cmd.OutOrStdout())
				}
				evs, err := k.History.Evaluations(ctx)
				if err != nil {
					return err
				}
				return printRows(cmd.OutOrStdout(), false, evs, "ID\tSTATUS\tSCORED\tCOLLECTION\tUPDATED\tDATASET", func(e kb.Evaluation) string {
					return fmt.Sprintf("%d\t%s\t%d\t%s\t%s\t%s", e.ID, e.Status, e.Items, termsafe.Line(e.Collection),
						e.UpdatedAt.Format("2006-01-02 15:04:05"), termsafe.Line(e.Dataset))
				})
			})
		},
	}
	cmd.Flags().StringVar(&reportPath, "report", "", "write the evaluation's HTML report to this file")
	return cmd
}

// progressBar draws "[####----] 12/66 ETA 3m20s" on a terminal, or a line per item elsewhere.
type progressBar struct {
	w     io.Writer
	tty   bool
	mu    sync.Mutex
	start time.Time
	drawn bool
}

func newProgressBar(w io.Writer) *progressBar {
	return &progressBar{w: w, tty: isTerminal(w), start: time.Now()}
}

func (p *progressBar) update(done, total, resumed int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	eta := "?"
	if n := done - resumed; n > 0 {
		left := time.Duration(float64(time.Since(p.start)) / float64(n) * float64(total-done))
		eta = left.Round(time.Second).String()
	}
	const width = 30
	fill := 0
	if total > 0 {
		fill = done * width / total
	}
	line := fmt.Sprintf("[%s%s] %d/%d ETA %s", strings.Repeat("#", fill), strings.Repeat("-", width-fill), done, total, eta)
	if resumed > 0 {
		line += fmt.Sprintf(" (%d resumed)", resumed)
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
		p.drawn = true
		return
	}
	fmt.Fprintln(p.w, line)
}

func (p *progressBar) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}
