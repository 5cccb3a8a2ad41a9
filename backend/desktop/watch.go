package desktop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"proofglass/backend/watch"
)

// WatchService is the window's face of watched folders: folders chosen in the system dialog are watched for a
// collection while the app runs, and their status is pushed as watch:status events. Paths never come from the page:
// a folder is only ever one the user picked in the dialog.
type WatchService struct {
	c *core

	mu     sync.Mutex
	m      *watch.Manager
	cancel context.CancelFunc
	done   chan struct{}
}

// start watches the recorded folders once the core has opened the library.
func (w *WatchService) start(ctx context.Context) {
	c := w.c
	if c.lib == nil {
		return
	}
	m := c.lib.Watcher(c.ingester, watch.Options{
		Progress: c.emitProgress,
		Changed:  func(s watch.Status) { c.emit(eventWatch, s) },
	})
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	w.mu.Lock()
	w.m, w.cancel, w.done = m, cancel, done
	w.mu.Unlock()
	go func() {
		defer close(done)
		if err := m.Run(rctx); err != nil {
			slog.Error("watched folders", "err", err)
		}
	}()
}

// stop ends watching before the app closes the library.
func (w *WatchService) stop() {
	w.mu.Lock()
	cancel, done := w.cancel, w.done
	w.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

func (w *WatchService) manager() (*watch.Manager, error) {
	if err := w.c.ready(); err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		return nil, errNotStarted
	}
	return w.m, nil
}

// Folders lists the watched folders with their status (watching, scanning, missing; files pending; last error).
func (w *WatchService) Folders() ([]watch.Status, error) {
	m, err := w.manager()
	if err != nil {
		return nil, err
	}
	return m.Folders(w.c.ctx)
}

// Add asks for a folder in the system dialog (title: in the window's language, naming the collection) and watches
// it for the collection. A cancelled dialog returns a folder with id 0.
func (w *WatchService) Add(collection, title string) (watch.Folder, error) {
	m, err := w.manager()
	if err != nil {
		return watch.Folder{}, err
	}
	if err := checkName("collection", collection); err != nil || strings.TrimSpace(collection) == "" {
		return watch.Folder{}, fmt.Errorf("collection %q: not a valid name", clipArg(collection))
	}
	ui := w.c.window()
	if ui == nil {
		return watch.Folder{}, errNoWindow
	}
	dir, err := ui.OpenFolder(dialogTitle(title, "Watch a folder for "+collection))
	if err != nil || dir == "" {
		return watch.Folder{}, err
	}
	return m.Add(w.c.ctx, collection, dir)
}

// Remove stops watching a folder; unless keepDocuments, the documents its files brought leave the library. It
// returns how many left.
func (w *WatchService) Remove(id int64, keepDocuments bool) (int, error) {
	if err := checkID("watched folder", id); err != nil {
		return 0, err
	}
	m, err := w.manager()
	if err != nil {
		return 0, err
	}
	return m.Remove(w.c.ctx, id, keepDocuments)
}

var errNotStarted = errors.New("watched folders are not running (the library did not open)")
