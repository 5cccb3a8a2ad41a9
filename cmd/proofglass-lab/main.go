// Command proofglass-lab runs Proofglass's benchmarks (bench vector|ingest|library|ocr|warm) and evaluations (eval grounding), which no shipped binary links.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"proofglass/backend/lab"
	"proofglass/backend/pdf"
)

func main() {
	pdf.ServeWorkerIfAsked() // its ingests start MuPDF workers: proofglass-pdf-worker beside it, else itself
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := lab.Execute(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
