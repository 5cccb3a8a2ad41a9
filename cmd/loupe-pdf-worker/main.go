// Command loupe-pdf-worker is Loupe's MuPDF worker on its own: Loupe starts it (when it is installed beside Loupe
// and made by the same build) instead of re-executing its own, much larger binary.
package main

import (
	"fmt"
	"os"

	"loupe/backend/pdf"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Println(pdf.CompanionVersion())
		return
	}
	pdf.ServeWorkerIfAsked() // serves and exits when started as Loupe starts it
	fmt.Fprintf(os.Stderr, "%s: Loupe's MuPDF worker; Loupe starts it itself (--version prints its build)\n", pdf.CompanionName)
	os.Exit(2)
}
