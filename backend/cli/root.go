// Package cli builds Proofglass's command-line interface: one cobra tree shared by the desktop and headless binaries.
package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"
	"sort"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"proofglass/backend/kb"
	"proofglass/backend/peakrss"
)

// Globals holds the flags every subcommand shares.
type Globals struct {
	DataDir string // --data; empty means PROOFGLASS_DATA or the OS user data dir
	Verbose bool
	// CPUProfile, when set, receives a pprof CPU profile of the command (--cpuprofile, hidden: for measuring).
	CPUProfile string
	// PeakRSSFile, when set, receives the command's peak RSS in MB at exit (--peak-rss-file, hidden: a benchmark that
	// runs proofglass as a child reads the child's own peak there, which the parent cannot).
	PeakRSSFile string
}

// commandFactory builds one top-level subcommand. Files in this package register theirs in init, so each command
// lives in its own file and the root never needs editing when one is added.
type commandFactory func(g *Globals) *cobra.Command

var factories = map[string]commandFactory{}

func register(name string, f commandFactory) {
	if _, dup := factories[name]; dup {
		panic("cli: command registered twice: " + name)
	}
	factories[name] = f
}

// registerGroup registers parent, a command that only holds the subcommands subs make.
func registerGroup(parent cobra.Command, subs ...commandFactory) {
	register(parent.Use, func(g *Globals) *cobra.Command {
		cmd := parent // a copy per tree: NewRoot runs more than once in a process
		for _, sub := range subs {
			cmd.AddCommand(sub(g))
		}
		return &cmd
	})
}

// NewBaseRoot returns a root command named use with the flags every Proofglass command tree shares (--verbose and the
// hidden --cpuprofile and --peak-rss-file) bound to the returned Globals. The CLI adds --data and its commands; the
// lab binary (cmd/proofglass-lab) adds its bench commands.
func NewBaseRoot(use, short string) (*cobra.Command, *Globals) {
	g := &Globals{}
	root := &cobra.Command{
		Use:           use,
		Short:         short,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().BoolVarP(&g.Verbose, "verbose", "v", false, "log debug detail to stderr")
	root.PersistentFlags().StringVar(&g.CPUProfile, "cpuprofile", "", "write a CPU profile of the command to this file")
	root.PersistentFlags().MarkHidden("cpuprofile")
	root.PersistentFlags().StringVar(&g.PeakRSSFile, "peak-rss-file", "", "write the command's peak RSS in MB to this file at exit")
	root.PersistentFlags().MarkHidden("peak-rss-file")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if g.Verbose {
			slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})))
		}
		if g.CPUProfile == "" {
			return nil
		}
		f, err := os.Create(g.CPUProfile)
		if err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		return pprof.StartCPUProfile(f)
	}
	return root, g
}

// NewRoot returns the root command with every registered subcommand attached.
func NewRoot() *cobra.Command {
	root, _ := newRoot()
	return root
}

func newRoot() (*cobra.Command, *Globals) {
	root, g := NewBaseRoot("proofglass", "Proofglass: local visual document Q&A")
	root.PersistentFlags().StringVar(&g.DataDir, "data", "", "data directory (default: $PROOFGLASS_DATA or the OS user data dir)")
	names := make([]string, 0, len(factories))
	for n := range factories {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		root.AddCommand(factories[n](g))
	}
	return root, g
}

// Execute runs the CLI with os.Args and returns the process exit code.
func Execute(ctx context.Context, args []string) int {
	root, g := newRoot()
	return Run(ctx, root, g, args)
}

// Run runs root (made by NewBaseRoot with g) with args and returns the process exit code: it stops the CPU profile
// --cpuprofile started, writes --peak-rss-file and prints an error after the command's name.
func Run(ctx context.Context, root *cobra.Command, g *Globals, args []string) int {
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	pprof.StopCPUProfile() // a no-op unless --cpuprofile started one
	if g.PeakRSSFile != "" {
		if werr := os.WriteFile(g.PeakRSSFile, []byte(strconv.FormatFloat(peakrss.MB(), 'f', 1, 64)), 0o600); werr != nil {
			fmt.Fprintf(os.Stderr, "%s: peak RSS: %v\n", root.Name(), werr)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", root.Name(), err)
		return 1
	}
	return 0
}

// IsCommand reports whether args name a CLI subcommand (or ask for help), which is how the desktop binary decides
// between opening its window and running the CLI.
func IsCommand(args []string) bool {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "help" {
			return true
		}
	}
	root := NewRoot()
	cmd, _, err := root.Find(args)
	return err == nil && cmd != root
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode json: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// listCmd is a `list` subcommand over the knowledge base: load fetches the rows, printed by printRows (--json: one
// JSON object per row, described by jsonUsage).
func listCmd[T any](g *Globals, short, jsonUsage, header string, load func(context.Context, *kb.KB) ([]T, error),
	row func(T) string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.WithKB(cmd, func(ctx context.Context, k *kb.KB) error {
				rows, err := load(ctx, k)
				if err != nil {
					return err
				}
				return printRows(cmd.OutOrStdout(), asJSON, rows, header, row)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, jsonUsage)
	return cmd
}

// printRows prints a listing: one JSON line per row, or a table under header with one line per row. row returns a
// row's tab-separated cells without the newline.
func printRows[T any](w io.Writer, asJSON bool, rows []T, header string, row func(T) string) error {
	if asJSON {
		for _, r := range rows {
			if err := writeJSONLine(w, r); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		fmt.Fprintln(tw, row(r))
	}
	return tw.Flush()
}
