//go:build unix

package kb

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The database and its -wal and -shm are readable by their owner only, whatever the umask; an existing database
// readable by others is narrowed.
func TestDatabaseFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "proofglass.db")
	k, err := Open(context.Background(), path, filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Docs.CreateCollection(context.Background(), Collection{Name: "c"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want 0600", filepath.Base(p), st.Mode().Perm(), err)
		}
	}
	k.Close()
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	k, err = Open(context.Background(), path, filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	k.Close()
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("an existing 0644 database is %v after opening, want 0600", st.Mode().Perm())
	}
}
