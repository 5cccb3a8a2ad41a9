//go:build !windows

package instance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDeepDataDirectoryUsesTheRuntimeDirectory(t *testing.T) {
	rt := tempDir(t)
	t.Setenv("XDG_RUNTIME_DIR", rt)
	data := filepath.Join(tempDir(t), strings.Repeat("d", 60), strings.Repeat("e", 60))
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	p, c := claim(t, data)
	if filepath.Dir(p.path) != rt {
		t.Fatalf("socket at %s, want it in %s", p.path, rt)
	}
	if err := send(t, data, []string{file(t, tempDir(t), "a.pdf")}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	if len(c.calls()) != 1 {
		t.Fatalf("primary got %q", c.calls())
	}
}
