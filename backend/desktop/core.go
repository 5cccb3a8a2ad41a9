// Package desktop is the window's backend: the services Wails binds, one per feature, over one small core.
package desktop

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"proofglass/backend/filegate"
	"proofglass/backend/ingest"
	"proofglass/backend/library"
	"proofglass/backend/wire"
)

// Events go to the window under backend/wire's names (their payloads are the JSON of the values emitted; the
// frontend's types for both are generated from Go).
const (
	eventIngest    = wire.EventIngest    // ingest.Progress
	eventAgent     = wire.EventAgent     // agent.Event
	eventPull      = wire.EventPull      // PullEvent
	eventEval      = wire.EventEval      // EvalState
	eventWatch     = wire.EventWatch     // watch.Status
	eventOpenFiles = wire.EventOpenFiles // no payload: files wait in OpenFilesService
	eventCompare   = wire.EventCompare   // CompareState
)

// Emitter sends an event to the window.
type Emitter interface {
	Emit(name string, data any)
}

// FileFilter narrows an open dialog to some files, as "*.pdf;*.png".
type FileFilter struct {
	DisplayName string
	Pattern     string
}

// Dialogs are the native dialogs the services open. Each returns "" (or none) when the user cancels.
type Dialogs interface {
	OpenFiles(title string, filters []FileFilter) ([]string, error)
	OpenFile(title string, filters []FileFilter) (string, error)
	OpenFolder(title string) (string, error)
	SaveFile(title, defaultName string) (string, error)
}

// Window is the window itself: brought forward when files arrive from outside, and the browser a report opens in.
type Window interface {
	Show()
	OpenURL(url string)
}

// UI is everything the services reach of the window: its events, dialogs and the window. Wails' runtime provides it in
// production (the adapter in the root package's app.go); tests record what is emitted and answer the dialogs.
type UI interface {
	Emitter
	Dialogs
	Window
}

// core is the state the services share: the open library, its ingester, the window's context and UI. It is set once
// by Desktop.Startup; until then (or when the library failed to open) ready reports why nothing works.
type core struct {
	dataDir    string
	ingestOpts library.IngestOptions

	mu sync.Mutex // guards ui, which a later launch's hand-off may read while the window starts
	ui UI

	ctx      context.Context
	lib      *library.Library
	ingester *ingest.Ingester
	initErr  error
}

// start opens the library and resumes the ingest work a previous session left.
func (c *core) start(ctx context.Context, ui UI) {
	c.mu.Lock()
	c.ctx, c.ui = ctx, ui
	c.mu.Unlock()
	lib, err := library.Open(ctx, c.dataDir)
	if err != nil {
		c.initErr = err
		slog.Error("open the data directory", "err", err)
		return
	}
	c.lib = lib
	lib.Searcher.UseLexicalIndex() // the window searches all session long: full-text ranking from memory
	c.ingester = lib.Ingester(c.ingestOpts)
	// Documents left half-done by a previous session continue in the background; then collections whose units
	// lack vectors of their pinned embedders (an embedder change, an older knowledge base) are re-embedded.
	go func() {
		if _, err := c.ingester.Resume(ctx, c.emitProgress); err != nil && ctx.Err() == nil {
			slog.Error("resume ingest", "err", err)
		}
		cs, err := lib.KB.Docs.Collections(ctx)
		if err != nil {
			return
		}
		for _, col := range cs {
			if _, err := c.ingester.Reembed(ctx, col.Name, c.emitProgress); err != nil && ctx.Err() == nil {
				slog.Error("re-embed", "collection", col.Name, "err", err)
			}
		}
	}()
}

// stop closes the ingester and the library.
func (c *core) stop() {
	if c.ingester != nil {
		c.ingester.Close()
	}
	if c.lib != nil {
		c.lib.Close()
	}
}

// ready reports why the library cannot be used yet, or nil.
func (c *core) ready() error {
	if c.initErr != nil {
		return fmt.Errorf("Proofglass could not start: %w", c.initErr)
	}
	if c.lib == nil {
		return fmt.Errorf("Proofglass is still starting")
	}
	return nil
}

// window returns the UI, nil before startup.
func (c *core) window() UI {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ui
}

// emit sends an event to the window; before startup there is no window to send it to.
func (c *core) emit(name string, data any) {
	if ui := c.window(); ui != nil {
		ui.Emit(name, data)
	}
}

func (c *core) emitProgress(p ingest.Progress) { c.emit(eventIngest, p) }

// Desktop is the window's services over one core, and their lifecycle: Startup when the window opens, Shutdown when
// it closes. Only the services are bound; Desktop itself is not.
type Desktop struct {
	core *core

	Library  *LibraryService
	Chat     *ChatService
	Settings *SettingsService
	Eval     *EvalService
	Watch    *WatchService
	Opened   *OpenFilesService
	Compare  *CompareService
}

// New prepares the services for the data directory named by --data ("" = PROOFGLASS_DATA or the OS default) and
// the files this launch was asked to open.
func New(dataDir string, paths []string) *Desktop {
	c := &core{dataDir: dataDir}
	return &Desktop{
		core:     c,
		Library:  &LibraryService{c: c, archives: filegate.Gate{Exts: []string{archiveExt}}},
		Chat:     newChatService(c),
		Settings: &SettingsService{c: c},
		Eval:     &EvalService{c: c},
		Watch:    &WatchService{c: c},
		Opened:   newOpenFilesService(c, paths),
		Compare:  &CompareService{c: c},
	}
}

// Services are the values Wails binds: each exported method of each is callable from the window.
func (d *Desktop) Services() []any {
	return []any{d.Library, d.Chat, d.Settings, d.Eval, d.Watch, d.Opened, d.Compare}
}

// Startup opens the library with the window's context and UI, and starts watching the recorded folders.
func (d *Desktop) Startup(ctx context.Context, ui UI) {
	d.core.start(ctx, withE2EDialogs(ui))
	d.Watch.start(ctx)
}

// Shutdown stops watching, cancels running answers and closes the library.
func (d *Desktop) Shutdown() {
	d.Watch.stop()
	d.Chat.stopAll()
	d.Compare.stop()
	d.core.stop()
}

// Open queues files a later launch handed over (see ClaimWindow) and brings the window forward.
func (d *Desktop) Open(paths []string) error { return d.Opened.open(paths) }
