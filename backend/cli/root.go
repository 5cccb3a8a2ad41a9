// Package cli builds Loupe's command-line interface: one cobra tree shared by the desktop and headless binaries.
package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/spf13/cobra"
)

// Globals holds the flags every subcommand shares.
type Globals struct {
	DataDir string // --data; empty means LOUPE_DATA or the OS user data dir
	Verbose bool
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
		Use:           "loupe",
		Short:         "Loupe: local visual document Q&A",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&g.DataDir, "data", "", "data directory (default: $LOUPE_DATA or the OS user data dir)")
	root.PersistentFlags().BoolVarP(&g.Verbose, "verbose", "v", false, "log debug detail to stderr")
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

// Execute runs the CLI with os.Args and returns the process exit code.
func Execute(ctx context.Context, args []string) int {
	root := NewRoot()
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "loupe:", err)
		return 1
	}
	return 0
}

// IsCommand reports whether args name a CLI subcommand (or a help/version flag), which is how the desktop binary
// decides between opening its window and running the CLI.
func IsCommand(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "-h", "--help", "help", "--version", "completion":
		return true
	}
	for _, a := range args {
		if len(a) > 0 && a[0] != '-' {
			_, ok := factories[a]
			return ok
		}
		if a == "--data" { // value follows; keep scanning past it
			continue
		}
	}
	return false
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
