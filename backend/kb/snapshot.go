package kb

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// Snapshot writes a consistent copy of the database to path, which must not exist: VACUUM INTO reads it in one
// transaction, so ingest and searches carry on and the copy is one committed state, never a torn file copy. The copy
// is written beside path and renamed into place, so path is either whole or absent.
func (k *KB) Snapshot(ctx context.Context, path string) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("snapshot to %s: it exists already", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("snapshot to %s: %w", path, err)
	}
	partial := path + ".partial"
	if err := os.Remove(partial); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("snapshot to %s: %w", path, err)
	}
	if _, err := k.db.ExecContext(ctx, `VACUUM INTO ?`, partial); err != nil {
		os.Remove(partial)
		return fmt.Errorf("snapshot %s to %s: %w", k.path, path, err)
	}
	if err := os.Chmod(partial, 0o600); err != nil {
		os.Remove(partial)
		return fmt.Errorf("snapshot to %s: %w", path, err)
	}
	if err := os.Rename(partial, path); err != nil {
		os.Remove(partial)
		return fmt.Errorf("snapshot to %s: %w", path, err)
	}
	return nil
}
