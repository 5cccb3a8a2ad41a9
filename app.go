package main

import (
	"context"
	"fmt"
	"log/slog"

	"loupe/backend/buildinfo"
	"loupe/backend/config"
	"loupe/backend/kb"
)

// App is the Wails-bound face of Loupe: one thin method per UI action over the backend packages. No logic lives here.
type App struct {
	ctx     context.Context
	dataDir string
	cfg     *config.Config
	kb      *kb.KB
	initErr error
}

// NewApp prepares the app for the data directory named by --data ("" = LOUPE_DATA or the OS default).
func NewApp(dataDir string) *App { return &App{dataDir: dataDir} }

func (a *App) startup(ctx context.Context) {
	a.ctx = ctx
	cfg, err := config.Load(a.dataDir)
	if err != nil {
		a.initErr = err
		slog.Error("load configuration", "err", err)
		return
	}
	k, err := kb.Open(ctx, cfg.DBPath(), cfg.BlobDir())
	if err != nil {
		a.initErr = err
		slog.Error("open knowledge base", "err", err)
		return
	}
	a.cfg, a.kb = cfg, k
}

func (a *App) shutdown(context.Context) {
	if a.kb != nil {
		a.kb.Close()
	}
}

func (a *App) ready() error {
	if a.initErr != nil {
		return fmt.Errorf("Loupe could not start: %w", a.initErr)
	}
	if a.kb == nil {
		return fmt.Errorf("Loupe is still starting")
	}
	return nil
}

// Status is what the shell shows about the running app.
type Status struct {
	Version       string `json:"version"`
	DataDir       string `json:"data_dir"`
	SchemaVersion int    `json:"schema_version"`
	Collections   int    `json:"collections"`
	Documents     int    `json:"documents"`
}

// Status reports version, data directory and knowledge-base counts.
func (a *App) Status() (Status, error) {
	if err := a.ready(); err != nil {
		return Status{}, err
	}
	cs, err := a.kb.Collections(a.ctx)
	if err != nil {
		return Status{}, err
	}
	s := Status{Version: buildinfo.Get().Version, DataDir: a.cfg.DataDir, Collections: len(cs)}
	s.SchemaVersion, _ = a.kb.SchemaVersionOf(a.ctx)
	for _, c := range cs {
		s.Documents += c.Documents
	}
	return s, nil
}
