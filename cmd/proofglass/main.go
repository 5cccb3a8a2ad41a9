// Command proofglass is the headless build of Proofglass's CLI: no Wails, no GTK, for servers and CI.
package main

import (
	"os"

	"proofglass/backend/cli"
	"proofglass/backend/pdf"
)

func main() {
	pdf.ServeWorkerIfAsked() // a MuPDF worker (started once per ingest) needs no command tree
	os.Exit(cli.Main(os.Args[1:]))
}
