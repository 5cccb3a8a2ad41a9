package config

// The app was called Loupe until the rename to Proofglass. What a Loupe release left behind — its data directory, its
// database file name, its keyring service, its LOUPE_* environment variables — is adopted here, so an upgrade loses
// nothing. The environment names keep working for one release, with a warning.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"proofglass/backend/instance"
)

const (
	// EnvPrefix starts every environment variable the app reads.
	EnvPrefix       = "PROOFGLASS_"
	legacyEnvPrefix = "LOUPE_"
	dbName          = "proofglass.db"
	legacyDBName    = "loupe.db"
	legacyLockName  = "loupe.lock"
	legacySockName  = "loupe.sock"
	legacyKeyring   = "loupe"
)

// legacyWarned keeps the old-name warning to once per variable and process.
var legacyWarned sync.Map

// Getenv returns PROOFGLASS_<name>, else the value of the old LOUPE_<name> with a one-time warning that names the
// new variable.
func Getenv(name string) string {
	if v, ok := os.LookupEnv(EnvPrefix + name); ok {
		return v
	}
	v, ok := os.LookupEnv(legacyEnvPrefix + name)
	if !ok {
		return ""
	}
	if _, done := legacyWarned.LoadOrStore(name, true); !done {
		slog.Warn(fmt.Sprintf("%s%s is read for one more release: Loupe is now Proofglass, rename it to %s%s",
			legacyEnvPrefix, name, EnvPrefix, name))
	}
	return v
}

// legacyDataDir is the old default data directory next to the new one (lower case on Linux, as the old release
// wrote it).
func legacyDataDir(newDir string) string {
	base := filepath.Base(newDir)
	old := "loupe"
	if base == "Proofglass" {
		old = "Loupe"
	}
	return filepath.Join(filepath.Dir(newDir), old)
}

// isSQLite tells whether path starts with SQLite's file header: a folder named loupe may be GNOME's image viewer's,
// so only one holding this app's database is adopted.
func isSQLite(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16)
	if _, err := io.ReadFull(f, head); err != nil {
		return false
	}
	return bytes.Equal(head, []byte("SQLite format 3\x00"))
}

// adoptLegacyDataDir moves the old release's default data directory to newDir when newDir holds no database yet and
// the old one holds this app's. It returns the notice to show once (zero when nothing was done). When the move is
// impossible, newDir is left alone and the error says why and what to do.
func adoptLegacyDataDir(newDir string) (Notice, error) {
	if _, err := os.Stat(filepath.Join(newDir, dbName)); err == nil {
		return Notice{}, nil
	}
	old := legacyDataDir(newDir)
	if !isSQLite(filepath.Join(old, legacyDBName)) {
		return Notice{}, nil
	}
	if instance.LockHeld(filepath.Join(old, legacyLockName)) {
		return Notice{}, fmt.Errorf("a Loupe window still has %s open: close it, then start Proofglass again to move your library to %s", old, newDir)
	}
	// An empty new directory (a first start that found nothing) may be replaced; one with files is not touched.
	if entries, err := os.ReadDir(newDir); err == nil {
		if len(entries) > 0 {
			return Notice{}, fmt.Errorf("both %s (Loupe's library) and %s exist and the second is not empty: move one aside, or open the old one with --data %s", old, newDir, old)
		}
		if err := os.Remove(newDir); err != nil {
			return Notice{}, fmt.Errorf("adopt Loupe's library: remove the empty %s: %w", newDir, err)
		}
	}
	if err := os.Rename(old, newDir); err != nil {
		return Notice{}, fmt.Errorf("adopt Loupe's library: move %s to %s: %w (move it by hand, or open it with --data %s)", old, newDir, err, old)
	}
	if _, err := adoptLegacyDB(newDir); err != nil {
		return Notice{}, err
	}
	return Notice{Code: NoticeLibraryMoved, Params: map[string]string{"from": old, "to": newDir},
		Message: fmt.Sprintf("Loupe is now Proofglass: your library moved from %s to %s", old, newDir)}, nil
}

// adoptLegacyDB renames an old release's loupe.db (with its journal files) to proofglass.db inside dir, for a data
// directory named explicitly (--data, PROOFGLASS_DATA). It reports whether it renamed.
func adoptLegacyDB(dir string) (bool, error) {
	oldDB := filepath.Join(dir, legacyDBName)
	if _, err := os.Stat(filepath.Join(dir, dbName)); err == nil || !isSQLite(oldDB) {
		return false, nil
	}
	if instance.LockHeld(filepath.Join(dir, legacyLockName)) {
		return false, fmt.Errorf("a Loupe window still has %s open: close it, then start Proofglass again", dir)
	}
	// The journal files first: a database renamed without its WAL would lose the last commits.
	for _, suffix := range []string{"-wal", "-shm", "-journal", ""} {
		err := os.Rename(oldDB+suffix, filepath.Join(dir, dbName+suffix))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("adopt Loupe's database in %s: %w", dir, err)
		}
	}
	for _, stale := range []string{legacyLockName, legacySockName} {
		_ = os.Remove(filepath.Join(dir, stale))
	}
	return true, nil
}

// Notice is a one-time message of this start for the window: a code with its parameters, which the window's
// catalogues translate (backend.notice.<code>), and the same in English.
type Notice struct {
	Code    string            `json:"code"`
	Params  map[string]string `json:"params,omitempty"`
	Message string            `json:"message"`
}

// Notice codes; a code's meaning never changes.
const (
	NoticeLibraryMoved   = "library_moved"   // Loupe's default data directory became Proofglass's: from, to
	NoticeLibraryRenamed = "library_renamed" // loupe.db became proofglass.db in a directory named explicitly: dir
)

// noticeOnce keeps the adoption message to one per data directory and process.
var noticeOnce sync.Map

func tellOnce(dir string, n Notice) {
	if n.Message == "" {
		return
	}
	if _, done := noticeOnce.LoadOrStore(dir, true); !done {
		slog.Warn(n.Message)
		noticeMu.Lock()
		notices = append(notices, n)
		noticeMu.Unlock()
	}
}

var (
	noticeMu sync.Mutex
	notices  []Notice
)

// TakeNotices returns the one-time notices about adopted Loupe data since the last call, for a window to show.
func TakeNotices() []Notice {
	noticeMu.Lock()
	defer noticeMu.Unlock()
	n := notices
	notices = nil
	return n
}
