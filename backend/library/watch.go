package library

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"loupe/backend/ingest"
	"loupe/backend/kb"
	"loupe/backend/watch"
)

// Watcher returns the manager of the library's watched folders, ingesting through in; documents that leave the
// library with their files also leave the render caches.
func (l *Library) Watcher(in *ingest.Ingester, o watch.Options) *watch.Manager {
	next := o.Deleted
	o.Deleted = func(d kb.Document, units []int64) {
		l.PurgeUnits(units)
		if next != nil {
			next(d, units)
		}
	}
	if abs, err := filepath.Abs(l.Config.DataDir); err == nil {
		o.Exclude = append(o.Exclude, abs)
	}
	return watch.New(l.KB, in, o)
}

// PurgeUnits removes the cached page files of units (the whole-page JPEGs the HTTP server hands VRAG clients by
// path), so a deleted document leaves no render behind.
func (l *Library) PurgeUnits(units []int64) {
	for _, id := range units {
		p := filepath.Join(l.Config.CacheDir(), "pages", fmt.Sprintf("unit-%d.jpg", id))
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			slog.Warn("purge page cache", "unit", id, "err", err)
		}
	}
}
