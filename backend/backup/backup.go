// Package backup writes a consistent full backup of a data directory while Proofglass runs: a snapshot of the
// database, the blobs it refers to and the settings, checked before it is put in place.
package backup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"proofglass/backend/kb"
)

// Source is what a backup copies: the live knowledge base and the data directory's settings file.
type Source struct {
	KB       *kb.KB
	Settings string // settings.json ("" or missing: none)
}

// Report is what a backup wrote.
type Report struct {
	Dir       string  `json:"dir"`
	Documents int     `json:"documents"`
	Blobs     int     `json:"blobs"`
	Bytes     int64   `json:"bytes"`
	Seconds   float64 `json:"seconds"`
}

// The data directory's layout, as config names it (config.DBPath, BlobDir, SettingsPath).
const (
	dbName       = "proofglass.db"
	blobDirName  = "blobs"
	settingsName = "settings.json"
)

// Write backs the source up into dir, a new directory that becomes a data directory of its own (open it with
// `--data dir`). The database is snapshotted first (one committed state), then every blob that snapshot refers to is
// copied and its hash checked, then the settings; the copy is checked (SQLite's integrity and foreign-key checks)
// and only then renamed to dir, so dir is a whole backup or absent. API keys are not in it: they live in the OS
// keyring (or its 0600 fallback file), never in backups. Derived files (the vector index, caches) are left out;
// Proofglass builds them again from the database.
func Write(ctx context.Context, src Source, dir string) (*Report, error) {
	start := time.Now()
	dir = filepath.Clean(dir)
	if _, err := os.Lstat(dir); err == nil {
		return nil, fmt.Errorf("backup to %s: it exists already; choose a new folder", dir)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("backup to %s: %w", dir, err)
	}
	partial := dir + ".partial"
	if err := os.RemoveAll(partial); err != nil {
		return nil, fmt.Errorf("backup to %s: remove an unfinished one: %w", dir, err)
	}
	if err := os.MkdirAll(partial, 0o700); err != nil {
		return nil, fmt.Errorf("backup to %s: %w", dir, err)
	}
	rep, err := write(ctx, src, partial)
	if err != nil {
		os.RemoveAll(partial)
		return nil, err
	}
	if err := os.Rename(partial, dir); err != nil {
		os.RemoveAll(partial)
		return nil, fmt.Errorf("backup to %s: %w", dir, err)
	}
	rep.Dir, rep.Seconds = dir, time.Since(start).Seconds()
	return rep, nil
}

func write(ctx context.Context, src Source, dir string) (*Report, error) {
	dbPath := filepath.Join(dir, dbName)
	if err := src.KB.Snapshot(ctx, dbPath); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	copyKB, err := kb.Open(ctx, dbPath, filepath.Join(dir, blobDirName))
	if err != nil {
		return nil, fmt.Errorf("backup: open the snapshot: %w", err)
	}
	defer copyKB.Close()
	refs, err := copyKB.ReferencedBlobs(ctx)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	rep := &Report{}
	for h := range refs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("backup: %w", err)
		}
		n, err := copyBlob(src.KB.Blobs.Path(h), copyKB.Blobs.Path(h), h)
		if err != nil {
			return nil, fmt.Errorf("backup: %w", err)
		}
		rep.Blobs++
		rep.Bytes += n
	}
	if src.Settings != "" {
		if n, err := copyFile(src.Settings, filepath.Join(dir, settingsName)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("backup: settings: %w", err)
		} else {
			rep.Bytes += n
		}
	}
	problems, err := copyKB.Integrity(ctx)
	if err != nil {
		return nil, fmt.Errorf("backup: check the copy: %w", err)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("backup: the copy fails its checks: %v", problems)
	}
	cs, err := copyKB.Docs.Collections(ctx)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	for _, c := range cs {
		ds, err := copyKB.Docs.Documents(ctx, c.ID)
		if err != nil {
			return nil, fmt.Errorf("backup: %w", err)
		}
		rep.Documents += len(ds)
	}
	if fi, err := os.Stat(dbPath); err == nil {
		rep.Bytes += fi.Size()
	}
	return rep, nil
}

// copyBlob copies one content-addressed blob and checks that what was written has its hash (a blob damaged on
// disk is named, not copied into the backup as if it were whole).
func copyBlob(from, to, hash string) (int64, error) {
	in, err := os.Open(from)
	if err != nil {
		return 0, fmt.Errorf("blob %s: %w", hash, err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return 0, fmt.Errorf("blob %s: %w", hash, err)
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, fmt.Errorf("blob %s: %w", hash, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, fmt.Errorf("blob %s: %w", hash, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != hash {
		return n, fmt.Errorf("blob %s is damaged on disk (its content hashes to %s): run proofglass doctor", hash, got)
	}
	return n, nil
}

// copyFile copies a small file whole.
func copyFile(from, to string) (int64, error) {
	b, err := os.ReadFile(from)
	if err != nil {
		return 0, err
	}
	return int64(len(b)), os.WriteFile(to, b, 0o600)
}
