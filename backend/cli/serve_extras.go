package cli

import (
	"context"
	"log/slog"

	"proofglass/backend/library"
	"proofglass/backend/mcp"
	"proofglass/backend/server"
	"proofglass/backend/watch"
)

// serveExtras adds what `proofglass serve` runs beside the HTTP API: the MCP server under /mcp, and (unless noWatch) the
// watched folders. MCP's ask takes its run slots from the HTTP server, so both faces share one limit. The returned
// function stops them.
func serveExtras(ctx context.Context, lib *library.Library, s *server.Server, noWatch bool) func() {
	s.Handle("/mcp", mcp.New(lib, mcp.Options{Log: slog.Default(), RunSlot: s.AcquireRun}).Handler())
	if noWatch {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	in := lib.Ingester(library.IngestOptions{})
	m := lib.Watcher(in, watch.Options{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := in.Resume(ctx, nil); err != nil && ctx.Err() == nil {
			slog.Warn("resume ingest", "err", err)
		}
		if err := m.Run(ctx); err != nil {
			slog.Error("watched folders", "err", err)
		}
	}()
	return func() {
		cancel()
		<-done
		in.Close()
	}
}
