package pdf

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

// TestCompanionWorker builds the worker-only executable as a release build would (a version in its ldflags), and
// checks that it is found beside a binary of the same version (and in ../lib/proofglass, a package's layout), refused
// for another version or an unversioned build, and that pages extracted through it equal the in-process ones.
func TestCompanionWorker(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go toolchain not on PATH: cannot build the companion worker")
	}
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(here), "..", "..")
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	build := exec.Command(goBin, "build", "-ldflags", "-X proofglass/backend/buildinfo.Version=v9.8.7-test",
		"-o", filepath.Join(bin, CompanionName), "./cmd/proofglass-pdf-worker")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/proofglass-pdf-worker: %v\n%s", err, out)
	}
	want := "v9.8.7-test protocol " + ProtocolVersion
	exe := filepath.Join(bin, "proofglass") // the main binary need not exist: only its folder counts
	if got := findCompanion(exe, want); got != filepath.Join(bin, CompanionName) {
		t.Fatalf("findCompanion beside the binary = %q", got)
	}
	for name, v := range map[string]string{
		"another version":  "v9.8.8-test protocol " + ProtocolVersion,
		"another protocol": "v9.8.7-test protocol 0",
		"unversioned":      "dev protocol " + ProtocolVersion,
	} {
		if got := findCompanion(exe, v); got != "" {
			t.Errorf("%s: findCompanion = %q, want none", name, got)
		}
	}
	// A package: /usr/bin/proofglass and /usr/lib/proofglass/proofglass-pdf-worker.
	lib := filepath.Join(dir, "usr", "lib", "proofglass")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(bin, CompanionName), filepath.Join(lib, CompanionName)); err != nil {
		t.Fatal(err)
	}
	found := findCompanion(filepath.Join(dir, "usr", "bin", "proofglass"), want)
	if found != filepath.Join(lib, CompanionName) {
		t.Fatalf("findCompanion in ../lib/proofglass = %q", found)
	}

	pdfPath := testdata(t, "pdf", "real", "hsaur3-Ch_analysis_of_variance.pdf")
	c := NewClient(Options{Command: found})
	defer c.Close()
	ctx := context.Background()
	d, err := c.Open(ctx, pdfPath, "")
	if err != nil {
		t.Fatalf("open through the companion: %v", err)
	}
	e, err := openEngine(pdfPath, "", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	for i := range min(d.Pages(), 3) {
		got, err := d.Page(ctx, i, PageOptions{ThumbSize: 128})
		if err != nil {
			t.Fatalf("page %d through the companion: %v", i+1, err)
		}
		want, err := e.extractPage(i, PageOptions{ThumbSize: 128})
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text || !reflect.DeepEqual(got.Words, want.Words) || len(got.Thumb) != len(want.Thumb) {
			t.Errorf("page %d through the companion differs from in-process extraction", i+1)
		}
	}
}
