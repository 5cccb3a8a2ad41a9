package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"proofglass/backend/config"
	"proofglass/backend/instance"
)

// eventOpenFiles tells the UI that files wait in OpenFiles to be added to the current collection.
const eventOpenFiles = "open:files"

// OpenFiles holds the files Proofglass was asked to open (its command line, a file manager's "Open with", a later launch)
// until the UI takes them and adds them to the collection it shows.
type OpenFiles struct {
	mu      sync.Mutex
	ctx     context.Context
	pending []string
}

// NewOpenFiles starts with the files of this launch's command line.
func NewOpenFiles(paths []string) *OpenFiles {
	return &OpenFiles{pending: append([]string(nil), paths...)}
}

func (o *OpenFiles) startup(ctx context.Context) {
	o.mu.Lock()
	o.ctx = ctx
	o.mu.Unlock()
}

// open queues files a later launch handed over and brings the window forward.
func (o *OpenFiles) open(paths []string) error {
	o.mu.Lock()
	o.pending = append(o.pending, paths...)
	ctx := o.ctx
	o.mu.Unlock()
	if ctx == nil {
		return nil // the window is still starting; the UI takes the files once it is up
	}
	wruntime.WindowUnminimise(ctx)
	wruntime.WindowShow(ctx)
	wruntime.EventsEmit(ctx, eventOpenFiles)
	return nil
}

// TakeOpenFiles returns the files waiting to be added, and forgets them, so each is added once.
func (o *OpenFiles) TakeOpenFiles() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	p := o.pending
	o.pending = nil
	if p == nil {
		return []string{}
	}
	return p
}

// claimWindow makes this launch the data directory's window, or hands paths to the Proofglass already running on it
// (handed: this process should exit). Without single-instance handling (an unusable data directory, another OS) it
// carries on as a window of its own.
func claimWindow(dataFlag string, paths []string) (p *instance.Primary, handed bool, err error) {
	dir, err := config.ResolveDataDir(dataFlag)
	if err == nil {
		err = os.MkdirAll(dir, 0o700)
	}
	if err != nil {
		slog.Warn("single instance off", "err", err)
		return nil, false, nil
	}
	p, err = instance.Claim(dir)
	if errors.Is(err, instance.ErrRunning) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := instance.Send(ctx, dir, paths); err != nil {
			return nil, false, err
		}
		fmt.Fprintf(os.Stderr, "proofglass: handed %d file(s) to the Proofglass already running on %s\n", len(paths), dir)
		return nil, true, nil
	}
	if err != nil {
		slog.Warn("single instance off", "err", err)
		return nil, false, nil
	}
	return p, false, nil
}
