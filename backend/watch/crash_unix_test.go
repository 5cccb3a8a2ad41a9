//go:build unix

package watch

import (
	"context"
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

// TestSwapForLinkBeforeIngest: between the scan and the ingest, a file, or the folder holding it, is swapped for a
// link to the same name outside the watched folder. The outside file is refused and nothing of it is stored.
func TestSwapForLinkBeforeIngest(t *testing.T) {
	tests := []struct {
		name, rel, swap, want string
	}{
		{"the file", "a.png", "a.png", "a.png: not a regular file (a symbolic link)"},
		{"its folder", "sub/a.png", "sub", "a.png: not a regular file (reached through the symbolic link sub)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			h := newHarness(t)
			dir, outside := t.TempDir(), t.TempDir()
			writeSettled(t, filepath.Join(dir, tt.rel), pngBytes(t, 1, 24))
			secret := pngBytes(t, 2, 24)
			writeSettled(t, filepath.Join(outside, tt.rel), secret)
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
						p := filepath.Join(dir, tt.swap)
						if err := os.RemoveAll(p); err != nil {
							t.Error(err)
						}
						if err := os.Symlink(filepath.Join(outside, tt.swap), p); err != nil {
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
			h.waitIdle()
			h.quiet(dir) // the link's own notification has been passed too
			h.waitIdle()
			for _, d := range h.libraryDocs("c") {
				t.Errorf("document %s (%s) in the library: the linked file's content was read", d.Name, d.Status)
			}
			if n := h.blobCount(); n != 0 {
				t.Errorf("%d blobs stored", n)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(refused) != 1 || !strings.Contains(refused[0], tt.want) {
				t.Errorf("failures reported %q, want one saying %q", refused, tt.want)
			}
		})
	}
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
	writeSettled(t, p, pngBytes(t, 21, 24))
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	writeSettled(t, filepath.Join(dir, "ok.png"), pngBytes(t, 22, 24))
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
		h.quiet(dir)
		h.waitIdle()
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

// TestWatchFolderThroughALink: a folder watched by a link's name (a person's shortcut to it) is synced from what the
// link points to, at the first pass and on notifications; a link below it is still never followed.
func TestWatchFolderThroughALink(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	real, outside := t.TempDir(), t.TempDir()
	writeSettled(t, filepath.Join(real, "a.png"), pngBytes(t, 31, 24))
	writeSettled(t, filepath.Join(real, "sub", "b.png"), pngBytes(t, 32, 24))
	writeSettled(t, filepath.Join(outside, "c.png"), pngBytes(t, 33, 24))
	if err := os.Symlink(outside, filepath.Join(real, "linked")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "shortcut")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	h.start()
	if _, err := h.m.Add(ctx, "c", link); err != nil {
		t.Fatal(err)
	}
	h.waitEqual("c", real) // a.png and sub/b.png; not c.png behind the link inside
	writeFile(t, filepath.Join(real, "sub", "d.png"), pngBytes(t, 34, 24))
	h.waitEqual("c", real)
	if n := len(h.libraryDocs("c")); n != 3 {
		t.Errorf("%d documents, want a.png, b.png and d.png", n)
	}
}
