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

	"github.com/spf13/cobra"

	"proofglass/backend/bench"
)

// Globals holds the flags every subcommand shares.
type Globals struct {
	DataDir string // --data; empty means PROOFGLASS_DATA or the OS user data dir
	Verbose bool
	// CPUProfile, when set, receives a pprof CPU profile of the command (--cpuprofile, hidden: for measuring).
	CPUProfile string
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

// NewRoot returns the root command with every registered subcommand attached.
func NewRoot() *cobra.Command {
	g := &Globals{}
	root := &cobra.Command{
		Use:           "proofglass",
		Short:         "Proofglass: local visual document Q&A",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&g.DataDir, "data", "", "data directory (default: $PROOFGLASS_DATA or the OS user data dir)")
	root.PersistentFlags().BoolVarP(&g.Verbose, "verbose", "v", false, "log debug detail to stderr")
	root.PersistentFlags().StringVar(&g.CPUProfile, "cpuprofile", "", "write a CPU profile of the command to this file")
	root.PersistentFlags().MarkHidden("cpuprofile")
	// For benchmarks that run proofglass as a child: its own peak memory, which the parent cannot read (bench.PeakRSSMB).
	root.PersistentFlags().StringVar(&peakRSSFile, "peak-rss-file", "", "write the command's peak RSS in MB to this file at exit")
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
	names := make([]string, 0, len(factories))
	for n := range factories {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		root.AddCommand(factories[n](g))
	}
	return root
}

// peakRSSFile is where --peak-rss-file asks Execute to write the peak RSS.
var peakRSSFile string

// Execute runs the CLI with os.Args and returns the process exit code.
func Execute(ctx context.Context, args []string) int {
	root := NewRoot()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	pprof.StopCPUProfile() // a no-op unless --cpuprofile started one
	if peakRSSFile != "" {
		if werr := os.WriteFile(peakRSSFile, []byte(strconv.FormatFloat(bench.PeakRSSMB(), 'f', 1, 64)), 0o600); werr != nil {
			fmt.Fprintln(os.Stderr, "proofglass: peak RSS:", werr)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "proofglass:", err)
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
