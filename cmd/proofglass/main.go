// Command proofglass is the headless build of Proofglass's CLI: no Wails, no GTK, for servers and CI.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"proofglass/backend/cli"
	"proofglass/backend/pdf"
)

func main() {
	pdf.ServeWorkerIfAsked() // a MuPDF worker (started once per ingest) needs no command tree
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Execute(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
