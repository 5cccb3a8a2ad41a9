package pdf

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"proofglass/backend/buildinfo"
)

// The desktop binary links GTK and WebKit: re-executed as a MuPDF worker it spent 0.15–0.19 s of CPU loading 169
// libraries before serving a page (the headless CLI 0.03 s). A worker-only executable made by the same build,
// installed beside it, starts in a few milliseconds; the client uses it when it answers with this build's version.

// CompanionName is the worker-only executable: beside Proofglass's binary (build/bin), or in ../lib/proofglass (a package's
// /usr/lib/proofglass for /usr/bin/proofglass).
const CompanionName = "proofglass-pdf-worker"

// ProtocolVersion names the request and response frames; change it whenever they change, so a companion left from
// another build with the same version string is not used.
const ProtocolVersion = "2"

// CompanionVersion is what a companion prints for --version, and what the client expects of one.
func CompanionVersion() string {
	return buildinfo.Get().Version + " protocol " + ProtocolVersion
}

var companion struct {
	once sync.Once
	path string
}

// Companion returns the worker-only executable this process starts its workers with, or "" when it re-executes
// itself (none found, or one from another build). The answer is worked out once per process.
func Companion() string {
	companion.once.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			return
		}
		if resolved, err := filepath.EvalSymlinks(exe); err == nil {
			exe = resolved
		}
		companion.path = findCompanion(exe, CompanionVersion())
	})
	return companion.path
}

// findCompanion looks for a companion of the executable exe that reports version want. Unversioned builds ("dev",
// plain `go build`) never use one: nothing would tell a stale companion apart.
func findCompanion(exe, want string) string {
	if strings.HasPrefix(want, "dev ") || strings.HasPrefix(want, " ") {
		return ""
	}
	dir := filepath.Dir(exe)
	name := CompanionName
	if runtime.GOOS == "windows" {
		name += ".exe" // beside proofglass.exe in the install folder; Windows has no execute bits to check
	}
	for _, p := range []string{filepath.Join(dir, name), filepath.Join(dir, "..", "lib", "proofglass", name)} {
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || (runtime.GOOS != "windows" && fi.Mode()&0o111 == 0) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		out, err := exec.CommandContext(ctx, p, "--version").Output()
		cancel()
		if err == nil && strings.TrimSpace(string(out)) == want {
			return filepath.Clean(p)
		}
	}
	return ""
}
