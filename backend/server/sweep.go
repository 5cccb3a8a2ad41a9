package server

import (
	"context"
	"time"

	"proofglass/backend/pagecache"
)

// SweepPages removes page files whose document is gone: deleted by another process (the CLI, the window) while
// this server ran or was down. This process's own deletions purge their files at once.
func (s *Server) SweepPages(ctx context.Context) (int, error) {
	live := pagecache.Live{}
	if err := s.lib.KB.Docs.DocumentKeys(ctx, live.Add); err != nil {
		return 0, err
	}
	stale, err := s.lib.Pages.Scan(live.Has)
	if err != nil {
		return 0, err
	}
	return s.lib.Pages.Remove(stale), nil
}

// SweepEvery runs SweepPages now and then every interval until ctx ends.
func (s *Server) SweepEvery(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if n, err := s.SweepPages(ctx); err != nil {
			s.log.Warn("page cache sweep", "err", err)
		} else if n > 0 {
			s.log.Info("page cache sweep: removed files of deleted documents", "files", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
