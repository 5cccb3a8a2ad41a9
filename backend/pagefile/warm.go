package pagefile

import (
	"context"
	"fmt"
	"sync"
	"time"

	"proofglass/backend/kb"
)

// Progress is where a warm or export run stands.
type Progress struct {
	Total   int // units in scope
	Done    int // units handled so far: rendered, already there, or failed
	Made    int // rendered (or copied) by this run
	Skipped int // already there: a run resumes where the last one stopped
	Failed  int
	Bytes   int64 // bytes of the files made by this run
	Elapsed time.Duration
}

// PagesPerSecond is the rate of files made by this run.
func (p Progress) PagesPerSecond() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Made) / p.Elapsed.Seconds()
}

func (p Progress) String() string {
	return fmt.Sprintf("%d/%d pages (%d rendered, %d already there, %d failed), %.1f pages/s",
		p.Done, p.Total, p.Made, p.Skipped, p.Failed, p.PagesPerSecond())
}

// Report is the end of a warm or export run.
type Report struct {
	Progress
	Errors []error // the failures (the first 20), each naming its document and page
	// Full is set when warming stopped because the collection's pages would no longer fit in the cache: rendering
	// more would only evict the pages just rendered.
	Full bool
	// NeedBytes estimates what the cache needs to hold every page in scope (from the bytes per page measured).
	NeedBytes int64
}

// maxErrors bounds the failures a report keeps.
const maxErrors = 20

// progressEvery is how often progress is reported.
const progressEvery = 2 * time.Second

// Warm renders the pages of the ready documents of the named collections (all when none) into the page cache ahead
// of requests, in parallel on the render pool; pages already there are skipped, so an interrupted run resumes. The
// files are stored, not handed out: the cache may evict them like any other. It stops with Report.Full when the
// pages in scope would outgrow the cache. progress (may be nil) is called every couple of seconds and at the end.
func (m *Maker) Warm(ctx context.Context, collections []string, progress func(Progress)) (Report, error) {
	its, err := m.kb.Search.ReadyPageItems(ctx, collections, -1)
	if err != nil {
		return Report{}, fmt.Errorf("warm: %w", err)
	}
	start := time.Now()
	var (
		mu      sync.Mutex
		rep     Report
		inCache int64 // bytes of the scope's files in the cache: those found and those made
		last    = start
	)
	rep.Total = len(its)
	budget := m.pages.Holds()
	var todo []kb.PageItem
	for _, it := range its {
		if n := m.pages.FileSize(Key(it)); n > 0 {
			rep.Skipped++
			rep.Done++
			inCache += n
			continue
		}
		todo = append(todo, it)
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	report := func(force bool) { // called with mu held
		rep.Elapsed = time.Since(start)
		if progress != nil && (force || time.Since(last) >= progressEvery) {
			last = time.Now()
			progress(rep.Progress)
		}
	}
	each(ctx, todo, m.Workers(), func(it kb.PageItem) {
		data, err := m.Data(ctx, it)
		if err == nil {
			_, err = m.pages.Add(Key(it), data)
		}
		mu.Lock()
		defer mu.Unlock()
		rep.Done++
		switch {
		case err != nil && ctx.Err() != nil:
			rep.Done--
			return
		case err != nil:
			rep.Failed++
			if len(rep.Errors) < maxErrors {
				rep.Errors = append(rep.Errors, err)
			}
		default:
			rep.Made++
			rep.Bytes += int64(len(data))
			inCache += int64(len(data))
			if inCache > budget && !rep.Full {
				rep.Full = true
				stop()
			}
		}
		report(false)
	})
	mu.Lock()
	defer mu.Unlock()
	report(true)
	if have := rep.Skipped + rep.Made; have > 0 {
		rep.NeedBytes = inCache * int64(rep.Total) / int64(have)
	}
	if err := context.Cause(ctx); err != nil && !rep.Full {
		return rep, fmt.Errorf("warm: %w", err)
	}
	return rep, nil
}
