package watch

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"proofglass/backend/fixture"
)

// TestRescanCatchesMissedNotifications: with the folder's notification watch gone (as on a network drive, or past
// the system's watch limit), the periodic rescan still brings a new file in.
func TestRescanCatchesMissedNotifications(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	h.m = New(StoreOf(h.k), h.in, Options{Debounce: 50 * time.Millisecond, Settle: 100 * time.Millisecond, Rescan: 400 * time.Millisecond,
		Progress: h.rec.progress})
	h.listen(h.m)
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	go func() { h.done <- h.m.Run(ctx) }()
	if _, err := h.m.Add(ctx, "net", dir); err != nil {
		t.Fatal(err)
	}
	h.waitEqual("net", dir)

	h.m.mu.Lock()
	if !h.m.dirs[dir] {
		h.m.mu.Unlock()
		t.Fatal("the folder has no notification watch to remove")
	}
	if err := h.m.fsw.Remove(dir); err != nil {
		h.m.mu.Unlock()
		t.Fatal(err)
	}
	delete(h.m.dirs, dir)
	h.m.mu.Unlock()

	writeFile(t, filepath.Join(dir, "late.png"), pngBytes(t, 11, 20))
	h.waitEqual("net", dir)
	if d := h.docByName("net", "late.png"); d.Status != "ready" {
		t.Errorf("late.png is %s", d.Status)
	}
}

// TestRemoveDuringPass: a folder unwatched while its files are being ingested leaves nothing behind.
func TestRemoveDuringPass(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	for i := range 40 {
		writeSettled(t, filepath.Join(dir, fmt.Sprintf("f%02d.png", i)), pngBytes(t, uint64(500+i), 24))
	}
	removed := make(chan error, 1)
	var once sync.Once
	var m *Manager
	m = New(StoreOf(h.k), h.in, Options{Debounce: 50 * time.Millisecond, Settle: 100 * time.Millisecond, Rescan: -1,
		Changed: func(s Status) {
			if s.State == StateScanning && s.Pending > 0 {
				once.Do(func() {
					go func() {
						_, err := m.Remove(context.Background(), s.ID, false)
						removed <- err
					}()
				})
			}
		}})
	h.m = m
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	go func() { h.done <- m.Run(ctx) }()
	if _, err := m.Add(ctx, "gone", dir); err != nil {
		t.Fatal(err)
	}
	if err := <-removed; err != nil {
		t.Fatal(err)
	}
	fixture.WaitFor(t, 60*time.Second, func() bool { return m.Idle() && len(h.libraryDocs("gone")) == 0 },
		"no document left after the folder was unwatched mid-pass")
	if fs, _ := m.Folders(ctx); len(fs) != 0 {
		t.Errorf("folders %+v", fs)
	}
}
