package ingest

import (
	"context"
	"time"
)

// indexEvery is how often, while documents keep finishing, the saved dense index catches up with them: often
// enough that a search during a long ingest finds a nearly current file, seldom enough that rewriting the file
// stays a small share of the work.
const indexEvery = time.Minute

// documentIndexed brings the dense index up to date after a document, at most every indexEvery (and never two
// refreshes at once: a document finishing during one just goes on).
func (in *Ingester) documentIndexed(ctx context.Context) {
	if in.o.Index == nil || ctx.Err() != nil {
		return
	}
	in.idxMu.Lock()
	due := time.Since(in.idxLast) >= indexEvery
	in.idxMu.Unlock()
	if due {
		in.refreshIndex(ctx, false)
	}
}

// batchDone runs when an Add, Resume or Reembed finishes: the dense index is brought up to date and saved, so the
// first search after an ingest opens it instead of building it, and SQLite refreshes its planner statistics.
func (in *Ingester) batchDone(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	if err := in.kb.Optimize(ctx); err != nil {
		in.log.Debug("ingest: optimize", "err", err)
	}
	in.refreshIndex(ctx, true)
	if in.o.AfterBatch != nil && ctx.Err() == nil {
		in.o.AfterBatch(ctx)
	}
}

func (in *Ingester) refreshIndex(ctx context.Context, wait bool) {
	if in.o.Index == nil {
		return
	}
	if wait {
		in.idxRun.Lock()
	} else if !in.idxRun.TryLock() {
		return
	}
	defer in.idxRun.Unlock()
	start := time.Now()
	if err := in.o.Index.Refresh(ctx); err != nil && ctx.Err() == nil {
		in.log.Warn("ingest: dense index not updated; the next search will catch up", "err", err)
	}
	in.clock.index.Add(since(start))
	in.idxMu.Lock()
	in.idxLast = time.Now()
	in.idxMu.Unlock()
	in.log.Debug("ingest: dense index refreshed", "took", time.Since(start))
}
