// Command proofglass is the Proofglass desktop app; given a subcommand it runs the CLI instead of opening the window.
package main

import (
	"fmt"
	"os"

	"github.com/wailsapp/wails/v2"

	"proofglass/backend/buildinfo"
	"proofglass/backend/cli"
	"proofglass/backend/desktop"
	"proofglass/backend/pdf"
)

func main() {
	pdf.ServeWorkerIfAsked() // a MuPDF worker needs neither the window nor the CLI's command tree (built twice here)
	buildinfo.Desktop = true
	args := os.Args[1:]
	if cli.IsCommand(args) {
		attachConsole()
		os.Exit(cli.Main(args))
	}
	win, err := cli.ParseWindowArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "proofglass:", err)
		os.Exit(2)
	}
	// One window per data directory: a later launch hands its files to the running one and exits.
	primary, handed, err := desktop.ClaimWindow(win.DataDir, win.Paths)
	if err != nil {
		fmt.Fprintln(os.Stderr, "proofglass:", err)
		os.Exit(1)
	}
	if handed {
		return
	}
	d, opts := newApp(win.DataDir, win.Paths)
	if primary != nil {
		primary.Serve(d.Open)
	}
	releaseConsoleFront() // the window runs on its own: proofglass.com need not wait for it
	err = wails.Run(opts)
	if primary != nil {
		primary.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "proofglass:", err)
		os.Exit(1)
	}
}
