package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"proofglass/backend/fixture"
)

// startWith starts the harness's Manager with options and hooks of a test's own.
func (h *harness) startWith(o Options, hook func(*Manager)) {
	if o.Debounce == 0 {
		o.Debounce = 100 * time.Millisecond
	}
	if o.Settle == 0 {
		o.Settle = 100 * time.Millisecond
	}
	if o.Rescan == 0 {
		o.Rescan = -1
	}
	if o.Progress == nil {
		o.Progress = h.rec.progress
	}
	h.m = New(StoreOf(h.k), h.in, o)
	h.listen(h.m)
	if hook != nil {
		hook(h.m)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	go func() { h.done <- h.m.Run(ctx) }()
}

// blobCount counts the blobs stored.
func (h *harness) blobCount() int {
	n := 0
	_ = h.k.Blobs.Walk(func(string, int64, time.Time) error { n++; return nil })
	return n
}

// TestCrashBetweenJournalAndDelete: a folder emptied, and the pass stopped (as a crash would) after the deletions
// were journalled and before they were done. The restarted Manager finishes them: no document and no blob is left.
func TestCrashBetweenJournalAndDelete(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	dir := t.TempDir()
	for i := range 30 {
		writeSettled(t, filepath.Join(dir, fmt.Sprintf("f%02d.png", i)), pngBytes(t, uint64(700+i), 24))
	}
	var crashed sync.Once
	var crash atomic.Bool
	h.startWith(Options{}, func(m *Manager) {
		m.beforeDelete = func(ids []int64) bool {
			stop := false
			if len(ids) == 30 {
				crashed.Do(func() { stop = true; crash.Store(true) })
			}
			return stop
		}
	})
	if _, err := h.m.Add(ctx, "c", dir); err != nil {
		t.Fatal(err)
	}
	h.waitEqual("c", dir)
	for i := range 30 {
		if err := os.Remove(filepath.Join(dir, fmt.Sprintf("f%02d.png", i))); err != nil {
			t.Fatal(err)
		}
	}
	fixture.WaitFor(t, 60*time.Second, func() bool { return h.crashedIdle(&crash) }, "the pass to reach the deletions and stop")
	h.stop()
	if n := len(h.libraryDocs("c")); n != 30 {
		t.Fatalf("%d documents after the crash, want the 30 journalled ones still there", n)
	}
	if ids, _ := h.k.Docs.PendingDeletions(ctx); len(ids) != 30 {
		t.Fatalf("%d deletions journalled, want 30", len(ids))
	}
	h.startWith(Options{}, nil) // the restart
	h.waitEqual("c", dir)
	if ids, _ := h.k.Docs.PendingDeletions(ctx); len(ids) != 0 {
		t.Errorf("%d deletions still journalled", len(ids))
	}
	if n := h.blobCount(); n != 0 {
		t.Errorf("%d blobs left (orphans)", n)
	}
}

func (h *harness) crashedIdle(crash *atomic.Bool) bool {
	h.m.mu.Lock()
	defer h.m.mu.Unlock()
	return crash.Load() && !h.m.passing
}

// TestInterruptedFirstPassKeepsOwnership: documents created by a first pass that was interrupted are the folder's
// (recorded in the transaction that created each), so removing the folder takes every one of them along.
func TestInterruptedFirstPassKeepsOwnership(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	dir := t.TempDir()
	for i := range 40 {
		writeSettled(t, filepath.Join(dir, fmt.Sprintf("f%02d.png", i)), pngBytes(t, uint64(800+i), 32))
	}
	h.startWith(Options{}, nil)
	f, err := h.m.Add(ctx, "c", dir)
	if err != nil {
		t.Fatal(err)
	}
	fixture.WaitFor(t, 60*time.Second, func() bool { return len(h.libraryDocs("c")) >= 5 }, "5 documents to be created")
	h.stop() // mid-pass
	docs := h.libraryDocs("c")
	if len(docs) == 40 {
		t.Log("the pass finished before it was stopped; ownership is still checked")
	}
	rows, err := h.k.Watch.WatchedFiles(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	owned := map[int64]bool{}
	for _, r := range rows {
		if r.Owned {
			owned[r.DocumentID] = true
		}
	}
	for _, d := range docs {
		if !owned[d.ID] {
			t.Errorf("%s (document %d) created by the interrupted pass is owned by no file", d.Name, d.ID)
		}
	}
	n, err := h.m.Remove(ctx, f.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if left := len(h.libraryDocs("c")); left != 0 || n != len(docs) {
		t.Errorf("remove took %d of %d documents out; %d left", n, len(docs), left)
	}
	if n := h.blobCount(); n != 0 {
		t.Errorf("%d blobs left (orphans)", n)
	}
}

// TestMissingRootComesBack: a watched folder moved away and back is synced again within seconds, with the periodic
// rescan off (only the recheck of missing folders can notice it).
func TestMissingRootComesBack(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	parent := t.TempDir()
	dir := filepath.Join(parent, "docs")
	writeSettled(t, filepath.Join(dir, "a.png"), pngBytes(t, 11, 24))
	h.startWith(Options{Recheck: 200 * time.Millisecond}, nil)
	if _, err := h.m.Add(ctx, "c", dir); err != nil {
		t.Fatal(err)
	}
	h.waitEqual("c", dir)
	away := filepath.Join(parent, "away")
	if err := os.Rename(dir, away); err != nil {
		t.Fatal(err)
	}
	waitState := func(want State) {
		t.Helper()
		fixture.WaitFor(t, 30*time.Second, func() bool {
			st, _ := h.m.Folders(ctx)
			return len(st) == 1 && st[0].State == want
		}, "the folder's state to become "+string(want))
	}
	waitState(StateMissing)
	writeSettled(t, filepath.Join(away, "b.png"), pngBytes(t, 12, 24)) // added while away
	if err := os.Rename(away, dir); err != nil {
		t.Fatal(err)
	}
	waitState(StateWatching)
	h.waitEqual("c", dir)
	// Notifications are back on: a file created now is synced without a rescan.
	writeFile(t, filepath.Join(dir, "c.png"), pngBytes(t, 13, 24))
	h.waitEqual("c", dir)
}
