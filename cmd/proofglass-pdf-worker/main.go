// Command proofglass-pdf-worker is Proofglass's MuPDF worker on its own: Proofglass starts it (when it is installed beside Proofglass
// and made by the same build) instead of re-executing its own, much larger binary.
package main

import (
	"fmt"
	"os"

	"proofglass/backend/pdf"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Println(pdf.CompanionVersion())
		return
	}
	pdf.ServeWorkerIfAsked() // serves and exits when started as Proofglass starts it
	fmt.Fprintf(os.Stderr, "%s: Proofglass's MuPDF worker; Proofglass starts it itself (--version prints its build)\n", pdf.CompanionName)
	os.Exit(2)
}
