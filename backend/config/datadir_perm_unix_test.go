//go:build unix

package config

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestDataDirSafety(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)

	fresh := filepath.Join(t.TempDir(), "new", "proofglass")
	c, err := Load(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(c.DataDir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("a data directory made under umask 0 has mode %v (%v), want 0700", st.Mode().Perm(), err)
	}

	tests := []struct {
		name  string
		mode  os.FileMode
		owner int // -1: ours
		group int // -1: ours
		want  string
	}{
		{"world-writable", 0o777, -1, -1, "every user may write to it"},
		{"world-writable and sticky (like /tmp)", 0o1777 | os.ModeSticky, -1, -1, "every user may write to it (mode 1777)"},
		{"writable by another group", 0o770, -1, 65534, "its group, which is not yours, may write to it"},
		{"writable by the user's own group", 0o770, -1, -1, ""},
		{"another user's", 0o700, 65534, -1, "belongs to another user"},
		{"private", 0o700, -1, -1, ""},
		{"readable by others", 0o755, -1, -1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tt.mode); err != nil {
				t.Fatal(err)
			}
			if tt.owner >= 0 || tt.group >= 0 {
				if os.Getuid() != 0 {
					t.Skip("only root can give a directory to another user or group")
				}
				if err := os.Chown(dir, tt.owner, tt.group); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(dir)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var unsafe *UnsafeDataDirError
			if !errors.As(err, &unsafe) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), dir) {
				t.Fatalf("Load = %v, want a refusal naming %s and saying %q", err, dir, tt.want)
			}
			if tt.owner < 0 && !strings.Contains(unsafe.Fix, "chmod 700 "+dir) {
				t.Errorf("fix %q does not name the command", unsafe.Fix)
			}
			if _, err := os.Stat(filepath.Join(dir, dbName)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a database was created in the refused directory: %v", err)
			}
		})
	}
}

// A data directory its own group may write to is accepted, with a warning that names its mode (issue 41, row 7).
func TestGroupWritableDataDirIsSaid(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o770); err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	defer slog.SetDefault(prev)
	if _, err := Load(dir); err != nil {
		t.Fatal(err)
	}
	if out := logged.String(); !strings.Contains(out, "writable by its group") || !strings.Contains(out, "mode=0770") {
		t.Errorf("no warning for a group-writable data directory: %q", out)
	}
}
