package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The shipped binaries (the desktop app at the repository root, this headless CLI and the MuPDF worker) link none of
// the benchmarks: they are proofglass-lab's (cmd/proofglass-lab), as is coder/hnsw, which only the vector benchmark
// compares against.
func TestShippedBinariesLinkNoBenchmark(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go tool to list the binaries' dependencies")
		}
	}
	forbidden := []string{"proofglass/backend/bench", "proofglass/backend/vector/vecbench", "proofglass/backend/lab",
		"proofglass/cmd/proofglass-lab", "github.com/coder/hnsw"}
	for _, pkg := range []string{"proofglass", "proofglass/cmd/proofglass", "proofglass/cmd/proofglass-pdf-worker"} {
		// -e: the desktop package embeds frontend/dist, which a checkout without a frontend build lacks.
		cmd := exec.Command(goTool, "list", "-e", "-deps", "-tags", "webkit2_41", pkg)
		cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, "proofglass/backend/pdf") {
			t.Fatalf("go list -deps %s does not list proofglass/backend/pdf, which every shipped binary links:\n%s", pkg, out)
		}
		for _, d := range deps {
			for _, f := range forbidden {
				if d == f || strings.HasPrefix(d, f+"/") {
					t.Errorf("%s links %s: benchmarks belong in proofglass-lab only", pkg, d)
				}
			}
		}
	}
}
