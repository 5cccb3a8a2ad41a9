package desktop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"proofglass/backend/config"
	"proofglass/backend/instance"
)

// OpenFilesService holds the files Proofglass was asked to open (its command line, a file manager's "Open with", a
// later launch) until the window takes them and adds them to the collection it shows; an open:files event says that
// some wait.
type OpenFilesService struct {
	c *core

	mu      sync.Mutex
	pending []string
}

// newOpenFilesService starts with the files of this launch's command line.
func newOpenFilesService(c *core, paths []string) *OpenFilesService {
	return &OpenFilesService{c: c, pending: append([]string(nil), paths...)}
}

// open queues files a later launch handed over and brings the window forward.
func (o *OpenFilesService) open(paths []string) error {
	o.mu.Lock()
	o.pending = append(o.pending, paths...)
	o.mu.Unlock()
	ui := o.c.window()
	if ui == nil {
		return nil // the window is still starting; it takes the files once it is up
	}
	ui.Show()
	ui.Emit(eventOpenFiles, nil)
	return nil
}

// TakeOpenFiles returns the files waiting to be added, and forgets them, so each is added once.
func (o *OpenFilesService) TakeOpenFiles() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	p := o.pending
	o.pending = nil
	if p == nil {
		return []string{}
	}
	return p
}

// ClaimWindow makes this launch the data directory's window, or hands paths to the Proofglass already running on it
// (handed: this process should exit). Without single-instance handling (an unusable data directory, another OS) it
// carries on as a window of its own.
func ClaimWindow(dataFlag string, paths []string) (p *instance.Primary, handed bool, err error) {
	dir, err := config.ResolveDataDir(dataFlag)
	if err == nil {
		err = config.PrepareDataDir(dir)
	}
	var unsafe *config.UnsafeDataDirError
	if errors.As(err, &unsafe) {
		return nil, false, err // another user could hand this window files, or take the socket: refused
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
