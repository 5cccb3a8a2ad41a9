package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// stopGrace is how long a command has, after SIGINT or SIGTERM cancelled its context, to return on its own before
// the process ends anyway. Every command's work is interruptible through its context and its stored state survives
// a kill (an ingest resumes, a deletion is journalled), so a command stuck in something that ignores the context
// must not keep the person waiting.
const stopGrace = time.Second

// Main runs the CLI as the process's command line and returns its exit code. SIGINT or SIGTERM cancels the command's
// context; a command still running a second later, or at a second signal, is ended with exit status 130.
func Main(args []string) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
			return
		case s := <-sig:
			cancel()
			select {
			case <-done:
				return
			case <-sig:
			case <-time.After(stopGrace):
			}
			fmt.Fprintf(os.Stderr, "proofglass: stopped by %v before the command finished (interrupted work resumes at the next start)\n", s)
			os.Exit(130)
		}
	}()
	return Execute(ctx, args)
}
