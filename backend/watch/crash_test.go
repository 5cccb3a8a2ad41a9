package watch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"proofglass/backend/ingest"
	"proofglass/backend/kb"
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
	h.m = New(h.k, h.in, o)
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
		writeFile(t, filepath.Join(dir, fmt.Sprintf("f%02d.png", i)), pngBytes(t, uint64(700+i), 24))
	}
	time.Sleep(150 * time.Millisecond)
	var crashed sync.Once
	crash := false
	h.startWith(Options{}, func(m *Manager) {
		m.beforeDelete = func(ids []int64) bool {
			stop := false
			if len(ids) == 30 {
				crashed.Do(func() { stop, crash = true, true })
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
	for deadline := time.Now().Add(60 * time.Second); !h.crashedIdle(&crash); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the pass never reached the deletions")
		}
	}
	h.stop()
	if n := len(h.libraryDocs("c")); n != 30 {
		t.Fatalf("%d documents after the crash, want the 30 journalled ones still there", n)
	}
	if ids, _ := h.k.PendingDeletions(ctx); len(ids) != 30 {
		t.Fatalf("%d deletions journalled, want 30", len(ids))
	}
	h.startWith(Options{}, nil) // the restart
	h.waitEqual("c", dir)
	if ids, _ := h.k.PendingDeletions(ctx); len(ids) != 0 {
		t.Errorf("%d deletions still journalled", len(ids))
	}
	if n := h.blobCount(); n != 0 {
		t.Errorf("%d blobs left (orphans)", n)
	}
}

func (h *harness) crashedIdle(crash *bool) bool {
	h.m.mu.Lock()
	defer h.m.mu.Unlock()
	return *crash && !h.m.passing
}

// TestInterruptedFirstPassKeepsOwnership: documents created by a first pass that was interrupted are the folder's
// (recorded in the transaction that created each), so removing the folder takes every one of them along.
func TestInterruptedFirstPassKeepsOwnership(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	dir := t.TempDir()
	for i := range 40 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("f%02d.png", i)), pngBytes(t, uint64(800+i), 32))
	}
	time.Sleep(150 * time.Millisecond)
	h.startWith(Options{}, nil)
	f, err := h.m.Add(ctx, "c", dir)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); len(h.libraryDocs("c")) < 5; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no document was created")
		}
	}
	h.stop() // mid-pass
	docs := h.libraryDocs("c")
	if len(docs) == 40 {
		t.Log("the pass finished before it was stopped; ownership is still checked")
	}
	rows, err := h.k.WatchedFiles(ctx, f.ID)
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

// TestSwapForLinkBeforeIngest: a file replaced by a symbolic link to a file outside the folder between the scan and
// the ingest is refused: the outside file's content never enters the library.
func TestSwapForLinkBeforeIngest(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	dir, outside := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, "a.png"), pngBytes(t, 1, 24))
	secret := pngBytes(t, 2, 24)
	writeFile(t, filepath.Join(outside, "secret.png"), secret)
	time.Sleep(150 * time.Millisecond)
	var once sync.Once
	swapped := make(chan struct{})
	var mu sync.Mutex
	var refused []string
	h.startWith(Options{Progress: func(p ingest.Progress) {
		if p.Stage == ingest.StageFailed {
			mu.Lock()
			refused = append(refused, p.Error)
			mu.Unlock()
		}
	}}, func(m *Manager) {
		m.beforeIngest = func(paths []string) {
			once.Do(func() {
				p := filepath.Join(dir, "a.png")
				if err := os.Remove(p); err != nil {
					t.Error(err)
				}
				if err := os.Symlink(filepath.Join(outside, "secret.png"), p); err != nil {
					t.Error(err)
				}
				close(swapped)
			})
		}
	})
	if _, err := h.m.Add(ctx, "c", dir); err != nil {
		t.Fatal(err)
	}
	<-swapped
	for deadline := time.Now().Add(30 * time.Second); !h.m.Idle(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the pass never ended")
		}
	}
	time.Sleep(300 * time.Millisecond) // the link's own notification has been passed too
	for deadline := time.Now().Add(30 * time.Second); !h.m.Idle(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the pass never ended")
		}
	}
	for _, d := range h.libraryDocs("c") {
		t.Errorf("document %s (%s) in the library: the linked file's content was read", d.Name, d.Status)
	}
	if n := h.blobCount(); n != 0 {
		t.Errorf("%d blobs stored", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(refused) != 1 || !strings.Contains(refused[0], "a.png: not a regular file (a symbolic link)") {
		t.Errorf("failures reported %q, want one saying a.png is a symbolic link", refused)
	}
}

// TestMissingRootComesBack: a watched folder moved away and back is synced again within seconds, with the periodic
// rescan off (only the recheck of missing folders can notice it).
func TestMissingRootComesBack(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	parent := t.TempDir()
	dir := filepath.Join(parent, "docs")
	writeFile(t, filepath.Join(dir, "a.png"), pngBytes(t, 11, 24))
	time.Sleep(150 * time.Millisecond)
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
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			st, _ := h.m.Folders(ctx)
			if len(st) == 1 && st[0].State == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("state never became %s: %+v", want, st)
			}
		}
	}
	waitState(StateMissing)
	writeFile(t, filepath.Join(away, "b.png"), pngBytes(t, 12, 24)) // added while away
	time.Sleep(150 * time.Millisecond)
	if err := os.Rename(away, dir); err != nil {
		t.Fatal(err)
	}
	waitState(StateWatching)
	h.waitEqual("c", dir)
	// Notifications are back on: a file created now is synced without a rescan.
	writeFile(t, filepath.Join(dir, "c.png"), pngBytes(t, 13, 24))
	h.waitEqual("c", dir)
}

// TestUnreadableFileRecordedOnce: a file that cannot be read gets a failed document with the reason, is not tried
// again by later passes until it changes, and is synced once it becomes readable. Root reads every file, so as root
// the test runs itself again as nobody.
func TestUnreadableFileRecordedOnce(t *testing.T) {
	if !runAsNobody(t) {
		return
	}
	ctx := context.Background()
	h := newHarness(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "locked.png")
	writeFile(t, p, pngBytes(t, 21, 24))
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "ok.png"), pngBytes(t, 22, 24))
	time.Sleep(150 * time.Millisecond)
	var mu sync.Mutex
	failures := 0
	h.startWith(Options{Progress: func(pr ingest.Progress) {
		if pr.Stage == ingest.StageFailed && pr.Path == p {
			mu.Lock()
			failures++
			mu.Unlock()
		}
	}}, nil)
	f, err := h.m.Add(ctx, "c", dir)
	if err != nil {
		t.Fatal(err)
	}
	idle := func() {
		t.Helper()
		time.Sleep(300 * time.Millisecond)
		for deadline := time.Now().Add(30 * time.Second); !h.m.Idle(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("never idle")
			}
		}
	}
	idle()
	d := h.docByName("c", "locked.png")
	if d.Status != kb.StatusFailed || !strings.Contains(d.Error, "permission denied") || !strings.Contains(d.Error, p) {
		t.Errorf("locked.png: %s %q, want failed naming the file and the reason", d.Status, d.Error)
	}
	// More passes: a new file, and a full rescan.
	writeFile(t, filepath.Join(dir, "later.png"), pngBytes(t, 23, 24))
	idle()
	h.m.mu.Lock()
	h.m.markLocked(h.m.live[f.ID], "", time.Time{})
	h.m.mu.Unlock()
	h.m.poke()
	idle()
	mu.Lock()
	if failures != 1 {
		t.Errorf("the unreadable file was tried %d times, want once", failures)
	}
	mu.Unlock()
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	h.waitEqual("c", dir) // readable now: ingested, and its failed document gone
}

// runAsNobody reports whether the calling test should run its body: yes unless the process is root, in which case
// it runs the test again in a process of user nobody (root reads every file) and reports its result.
func runAsNobody(t *testing.T) bool {
	if os.Getuid() != 0 {
		return true
	}
	const nobody = 65534
	// The test binary and a temporary directory, where nobody can reach them.
	dir, err := os.MkdirTemp("", "as-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "watch.test")
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = []string{"TMPDIR=" + tmp, "HOME=" + tmp, "PATH=" + os.Getenv("PATH")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as user nobody: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("as user nobody the test did not pass:\n%s", out)
	}
	t.Logf("ran as user nobody:\n%s", out)
	return false
}
