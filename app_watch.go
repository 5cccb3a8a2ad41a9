package main

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"proofglass/backend/watch"
)

// eventWatch carries a watched folder's status (watch.Status) to the UI whenever it changes.
const eventWatch = "watch:status"

// WatchService is the window's face of watched folders: folders chosen in the system dialog are watched for a
// collection while the app runs, and their status is pushed as watch:status events. Paths never come from the page:
// a folder is only ever one the user picked in the dialog.
type WatchService struct {
	app *App

	mu     sync.Mutex
	m      *watch.Manager
	cancel context.CancelFunc
	done   chan struct{}
}

// NewWatchService returns the service over app's library.
func NewWatchService(app *App) *WatchService { return &WatchService{app: app} }

// start watches the recorded folders once App.startup has opened the library.
func (w *WatchService) start(ctx context.Context) {
	a := w.app
	if a.lib == nil {
		return
	}
	m := a.lib.Watcher(a.ingester, watch.Options{
		Progress: a.emitProgress,
		Changed:  func(s watch.Status) { wruntime.EventsEmit(ctx, eventWatch, s) },
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
	if err := w.app.ready(); err != nil {
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
	return m.Folders(w.app.ctx)
}

// Add asks for a folder in the system dialog and watches it for the collection. A cancelled dialog returns a
// folder with id 0.
func (w *WatchService) Add(collection string) (watch.Folder, error) {
	m, err := w.manager()
	if err != nil {
		return watch.Folder{}, err
	}
	dir, err := wruntime.OpenDirectoryDialog(w.app.ctx, wruntime.OpenDialogOptions{Title: "Watch a folder for " + collection})
	if err != nil || dir == "" {
		return watch.Folder{}, err
	}
	return m.Add(w.app.ctx, collection, dir)
}

// Remove stops watching a folder; unless keepDocuments, the documents its files brought leave the library. It
// returns how many left.
func (w *WatchService) Remove(id int64, keepDocuments bool) (int, error) {
	m, err := w.manager()
	if err != nil {
		return 0, err
	}
	return m.Remove(w.app.ctx, id, keepDocuments)
}

var errNotStarted = errors.New("watched folders are not running (the library did not open)")
