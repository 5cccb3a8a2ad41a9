//go:build unix

package cli

import (
	"strings"
	"testing"
)

// TestLibraryImportKilled: a `proofglass library import` process killed with SIGKILL after writing every row, before
// its transaction commits, leaves the target library exactly as it was, and the same archive imports afterwards.
func TestLibraryImportKilled(t *testing.T) {
	src := t.TempDir()
	archiveLibrary(t, src, "papers", archivePDFs...)
	askOnce(t, src, "papers", "variance")
	file := exportArchive(t, src, "--all")

	dst := t.TempDir()
	archiveLibrary(t, dst, "papers", archivePDFs[1])
	before := importTarget(t, dst)

	p := startProofglass(t, "--data", dst, "library", "import", file, "--json", "--test-hold-before-commit")
	p.waitFor("every row written", func(l string) bool { return strings.Contains(l, `"type":"holding"`) })
	p.mu.Lock()
	sawUnits := false
	for _, l := range p.lines {
		sawUnits = sawUnits || strings.Contains(l, `"table":"units"`)
	}
	p.mu.Unlock()
	if !sawUnits {
		t.Fatalf("the import held before reading the units:\n%s", p.stderr())
	}
	p.kill9()

	if after := importTarget(t, dst); after != before {
		t.Fatalf("a killed import changed the library:\n--- before\n%s\n--- after\n%s", before, after)
	}
	if rep := importArchive(t, dst, file); added(rep, "documents") != 1 || added(rep, "runs") != 1 {
		t.Fatalf("import after the kill: %v", rep)
	}
}
