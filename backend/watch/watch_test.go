package watch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"proofglass/backend/fixture"
	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/pdf"
)

func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

// pngBytes is a small PNG of noise, different for every seed.
func pngBytes(t *testing.T, seed uint64, size int) []byte {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed*7+1))
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	for y := range size {
		for x := range size {
			img.Set(x, y, color.RGBA{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeSettled writes a file whose modification time is an hour old: settled, as if written before the test began.
func writeSettled(t *testing.T, p string, b []byte) {
	t.Helper()
	writeFile(t, p, b)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, b)
}

// recorder counts what the ingester was asked to do, per document.
type recorder struct {
	mu      sync.Mutex
	starts  map[int64]int // ingest runs begun per document
	exists  int           // files sent again although their document was there
	deleted map[int64]bool
}

func (r *recorder) progress(p ingest.Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch p.Stage {
	case ingest.StageStart:
		r.starts[p.DocumentID]++
	case ingest.StageExists:
		r.exists++
	}
}

// harness is a knowledge base, an ingester and a Manager that can be stopped and started again (a restart).
type harness struct {
	t      *testing.T
	k      *kb.KB
	in     *ingest.Ingester
	rec    *recorder
	m      *Manager
	cancel context.CancelFunc
	done   chan error

	mu       sync.Mutex
	noticed  map[string]bool // base names of the notifications the Manager took in
	barriers int
}

func newHarness(t *testing.T) *harness {
	dir := t.TempDir()
	k, err := kb.Open(context.Background(), filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	in := ingest.New(k, nil, ingest.Options{NoOCR: true, Workers: 2})
	h := &harness{t: t, k: k, in: in, rec: &recorder{starts: map[int64]int{}, deleted: map[int64]bool{}}, noticed: map[string]bool{}}
	// The knowledge base's delete hooks are what purges page renders: a document the watcher removes must reach them.
	k.OnDelete(func(_ context.Context, ds []kb.Deleted) {
		h.rec.mu.Lock()
		for _, d := range ds {
			h.rec.deleted[d.ID] = true
		}
		h.rec.mu.Unlock()
	})
	t.Cleanup(func() {
		h.stop()
		in.Close()
		k.Close()
	})
	return h
}

func (h *harness) start(exclude ...string) {
	h.m = New(StoreOf(h.k), h.in, Options{Debounce: 100 * time.Millisecond, Settle: 400 * time.Millisecond, Rescan: -1, Exclude: exclude,
		Progress: h.rec.progress})
	h.listen(h.m)
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	go func() { h.done <- h.m.Run(ctx) }()
}

func (h *harness) stop() {
	if h.cancel == nil {
		return
	}
	h.cancel()
	if err := <-h.done; err != nil {
		h.t.Errorf("Run: %v", err)
	}
	h.cancel = nil
}

// listen records the notifications m takes in, for quiet.
func (h *harness) listen(m *Manager) {
	m.noticed = func(path string) {
		h.mu.Lock()
		h.noticed[filepath.Base(path)] = true
		h.mu.Unlock()
	}
}

// quiet waits until the Manager has taken in every notification of what the test did under the watched folder dir:
// it writes a hidden file there (which no pass takes in) and waits for its notification, which the system delivers
// after all earlier ones. A folder without notification watches (a network drive's stand-in) has none on its way.
func (h *harness) quiet(dir string) {
	h.t.Helper()
	h.m.mu.Lock()
	watched := false
	for d := range h.m.dirs {
		if r, err := filepath.EvalSymlinks(d); d == dir || err == nil && r == dir {
			watched = true
		}
	}
	h.m.mu.Unlock()
	if !watched {
		return
	}
	h.barriers++
	name := fmt.Sprintf(".barrier-%d", h.barriers)
	p := filepath.Join(dir, name)
	writeFile(h.t, p, nil)
	fixture.WaitFor(h.t, 30*time.Second, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.noticed[name]
	}, "the notification of "+p)
	if err := os.Remove(p); err != nil {
		h.t.Fatal(err)
	}
}

// waitIdle waits until the Manager has nothing to do.
func (h *harness) waitIdle() {
	h.t.Helper()
	fixture.WaitFor(h.t, 30*time.Second, h.m.Idle, "the watcher to be idle")
}

// diskDocs maps the sha256 of every visible file under dir to its rel path (.log files are not documents, and
// proofglass-data stands for a data directory inside the watched folder, which is never walked).
func diskDocs(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() && d.Name() == "proofglass-data" {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") || filepath.Ext(p) == ".log" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		sum := sha256.Sum256(b)
		rel, _ := filepath.Rel(dir, p)
		out[hex.EncodeToString(sum[:])] = rel
		return nil
	})
	return out
}

// libraryDocs maps the sha256 of every document of the collection to the document.
func (h *harness) libraryDocs(collection string) map[string]kb.Document {
	c, err := h.k.Docs.CollectionByName(context.Background(), collection)
	if err != nil {
		return nil
	}
	ds, err := h.k.Docs.Documents(context.Background(), c.ID)
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]kb.Document{}
	for _, d := range ds {
		out[d.SHA256] = d
	}
	return out
}

// equal says how the library differs from the folder ("" when it holds exactly the folder's files, all ready).
func (h *harness) equal(collection, dir string) string {
	disk, lib := diskDocs(h.t, dir), h.libraryDocs(collection)
	var diff []string
	for sha, rel := range disk {
		d, ok := lib[sha]
		switch {
		case !ok:
			diff = append(diff, "missing "+rel)
		case d.Status != kb.StatusReady:
			diff = append(diff, fmt.Sprintf("%s is %s %s", rel, d.Status, d.Error))
		}
	}
	for sha, d := range lib {
		if _, ok := disk[sha]; !ok {
			diff = append(diff, "extra "+d.Name)
		}
	}
	sort.Strings(diff)
	return strings.Join(diff, "; ")
}

// waitEqual waits until the Manager is idle and the library equals the folder, and still so once every notification
// of what the test did was taken in.
func (h *harness) waitEqual(collection, dir string) {
	h.t.Helper()
	last := ""
	matched := func() bool {
		diff := h.equal(collection, dir)
		if diff != last {
			h.t.Logf("library vs %s: %.300s", dir, diff) // shown when the wait fails
			last = diff
		}
		return diff == "" && h.m.Idle()
	}
	fixture.WaitFor(h.t, 90*time.Second, matched, "the library to match "+dir)
	h.quiet(dir)
	fixture.WaitFor(h.t, 90*time.Second, matched, "the library to match "+dir+" after every notification")
}

func (h *harness) docByName(collection, name string) kb.Document {
	h.t.Helper()
	for _, d := range h.libraryDocs(collection) {
		if d.Name == name {
			return d
		}
	}
	h.t.Fatalf("no document named %s", name)
	return kb.Document{}
}

// TestWatchFolder drives a watched folder through the real file system: create, modify, touch, rename, delete, a
// burst of files, a file still being written, a subfolder removed, changes made while Proofglass was stopped, and the
// folder itself disappearing. After each step the library holds exactly the folder's files, each ingested once.
func TestWatchFolder(t *testing.T) {
	pdfA := fixture.Path(t, "pdf/real/hsaur3-Ch_analysis_of_variance.pdf")
	pdfB := fixture.Path(t, "pdf/real/hsaur3-Ch_multiple_linear_regression.pdf")
	ctx := context.Background()
	h := newHarness(t)
	dir := filepath.Join(t.TempDir(), "docs")
	writeFile(t, filepath.Join(dir, "img1.png"), pngBytes(t, 1, 48))
	copyFile(t, pdfA, filepath.Join(dir, "a.pdf"))
	writeFile(t, filepath.Join(dir, "notes.log"), []byte("not a document: skipped, never failed"))
	writeFile(t, filepath.Join(dir, ".hidden.png"), pngBytes(t, 99, 16))
	writeFile(t, filepath.Join(dir, "proofglass-data", "blobs", "x.png"), pngBytes(t, 98, 16))

	h.start(filepath.Join(dir, "proofglass-data"))
	f, err := h.m.Add(ctx, "watched", dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.m.Add(ctx, "watched", dir); err == nil || !strings.Contains(err.Error(), "already watched") {
		t.Errorf("adding the folder twice: err = %v", err)
	}
	// The library equals the folder's PDFs and images: notes.log has no document.
	waitEqualMedia := func() {
		t.Helper()
		h.waitEqual("watched", dir)
	}
	waitEqualMedia()
	pdfDoc := h.docByName("watched", "a.pdf")
	if pdfDoc.Pages < 2 {
		t.Errorf("a.pdf has %d pages", pdfDoc.Pages)
	}

	t.Run("create", func(t *testing.T) {
		copyFile(t, pdfB, filepath.Join(dir, "sub", "deeper", "b.pdf"))
		waitEqualMedia()
	})
	t.Run("modify", func(t *testing.T) {
		old := h.docByName("watched", "img1.png")
		writeFile(t, filepath.Join(dir, "img1.png"), pngBytes(t, 2, 48))
		waitEqualMedia()
		if h.k.Blobs.Has(old.Blob) {
			t.Errorf("the old version's original %s is still stored", old.Blob)
		}
		h.rec.mu.Lock()
		if !h.rec.deleted[old.ID] {
			t.Errorf("caches of the old version (document %d) not purged", old.ID)
		}
		h.rec.mu.Unlock()
	})
	t.Run("touch", func(t *testing.T) {
		before := len(h.libraryDocs("watched"))
		later := time.Now().Add(time.Minute)
		if err := os.Chtimes(filepath.Join(dir, "a.pdf"), later, later); err != nil {
			t.Fatal(err)
		}
		waitEqualMedia() // waits for the touch's notification too
		if n := len(h.libraryDocs("watched")); n != before {
			t.Errorf("%d documents after a touch, want %d", n, before)
		}
		if h.rec.exists != 0 {
			t.Errorf("an unchanged file was sent to ingest again (%d times)", h.rec.exists)
		}
	})
	t.Run("rename", func(t *testing.T) {
		if err := os.Rename(filepath.Join(dir, "a.pdf"), filepath.Join(dir, "sub", "renamed.pdf")); err != nil {
			t.Fatal(err)
		}
		waitEqualMedia()
		d := h.docByName("watched", "renamed.pdf")
		if d.ID != pdfDoc.ID {
			t.Errorf("rename made document %d, want the same document %d", d.ID, pdfDoc.ID)
		}
		if want := filepath.Join(dir, "sub", "renamed.pdf"); d.SourcePath != want {
			t.Errorf("source path %q, want %q", d.SourcePath, want)
		}
	})
	t.Run("delete", func(t *testing.T) {
		b := h.docByName("watched", "b.pdf")
		if err := os.Remove(filepath.Join(dir, "sub", "deeper", "b.pdf")); err != nil {
			t.Fatal(err)
		}
		waitEqualMedia()
		if h.k.Blobs.Has(b.Blob) {
			t.Error("the deleted file's original is still stored")
		}
		if us, _ := h.k.Content.Units(ctx, b.ID); len(us) != 0 {
			t.Errorf("%d units of the deleted document remain", len(us))
		}
	})
	t.Run("burst of 200", func(t *testing.T) {
		start := time.Now()
		for i := range 200 {
			writeFile(t, filepath.Join(dir, "burst", fmt.Sprintf("sub%d", i%4), fmt.Sprintf("p%03d.png", i)), pngBytes(t, uint64(1000+i), 12))
		}
		written := time.Since(start)
		waitEqualMedia()
		t.Logf("200 files written in %s, all in the library %s later (settle %s, debounce %s)", written.Round(time.Millisecond),
			(time.Since(start) - written).Round(time.Millisecond), h.m.o.Settle, h.m.o.Debounce)
	})
	t.Run("file still being written", func(t *testing.T) {
		data := pngBytes(t, 7, 160)
		p := filepath.Join(dir, "slow.png")
		w, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		chunk := len(data)/12 + 1
		for off := 0; off < len(data); off += chunk {
			if _, err := w.Write(data[off:min(off+chunk, len(data))]); err != nil {
				t.Fatal(err)
			}
			time.Sleep(150 * time.Millisecond) // shorter than Settle: the file looks busy throughout
			for _, d := range h.libraryDocs("watched") {
				if d.Name == "slow.png" {
					t.Fatalf("slow.png ingested after %d of %d bytes", off+chunk, len(data))
				}
			}
		}
		w.Close()
		waitEqualMedia()
	})
	t.Run("subfolder removed", func(t *testing.T) {
		if err := os.RemoveAll(filepath.Join(dir, "burst")); err != nil {
			t.Fatal(err)
		}
		waitEqualMedia()
	})
	t.Run("restart", func(t *testing.T) {
		h.stop()
		renamedID := h.docByName("watched", "slow.png").ID
		// While Proofglass is not running: a file created, one deleted, one moved, and a subfolder made again.
		writeSettled(t, filepath.Join(dir, "offline.png"), pngBytes(t, 3, 40))
		if err := os.Remove(filepath.Join(dir, "img1.png")); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(dir, "slow.png"), filepath.Join(dir, "sub", "slow-moved.png")); err != nil {
			t.Fatal(err)
		}
		writeSettled(t, filepath.Join(dir, "burst", "again.png"), pngBytes(t, 4, 20))
		h.start(filepath.Join(dir, "proofglass-data"))
		waitEqualMedia()
		if d := h.docByName("watched", "slow-moved.png"); d.ID != renamedID {
			t.Errorf("a file moved while stopped got document %d, want %d", d.ID, renamedID)
		}
		// Notifications work for folders made while stopped.
		writeFile(t, filepath.Join(dir, "burst", "after.png"), pngBytes(t, 5, 20))
		waitEqualMedia()
	})

	h.rec.mu.Lock()
	for id, n := range h.rec.starts {
		if n != 1 {
			t.Errorf("document %d ingested %d times", id, n)
		}
	}
	h.rec.mu.Unlock()
	h.m.mu.Lock()
	live := *h.m.live[f.ID]
	h.m.mu.Unlock()
	if want := len(diskDocs(t, dir)); live.Documents != want {
		t.Errorf("the live status (sent to the window) counts %d documents, want %d", live.Documents, want)
	}
	st, err := h.m.Folders(ctx)
	if err != nil || len(st) != 1 {
		t.Fatalf("Folders: %v %v", st, err)
	}
	if st[0].State != StateWatching || st[0].Pending != 0 || st[0].LastError != "" || st[0].ScannedAt.IsZero() {
		t.Errorf("status %+v", st[0])
	}
	if want := len(diskDocs(t, dir)); st[0].Documents != want || st[0].Files != want+1 {
		t.Errorf("status counts %d files and %d documents, want %d and %d", st[0].Files, st[0].Documents, want+1, want)
	}

	t.Run("folder removed", func(t *testing.T) {
		n := len(h.libraryDocs("watched"))
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		var st []Status
		fixture.WaitFor(t, 30*time.Second, func() bool {
			st, _ = h.m.Folders(ctx)
			return len(st) == 1 && st[0].State == StateMissing
		}, "the folder's state to become missing")
		if !strings.Contains(st[0].LastError, "not found") {
			t.Errorf("last error %q", st[0].LastError)
		}
		if got := len(h.libraryDocs("watched")); got != n {
			t.Errorf("%d documents after the folder vanished, want the %d kept", got, n)
		}
		// Unwatching takes the folder's documents out of the library.
		left, err := h.m.Remove(ctx, f.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		if left != n || len(h.libraryDocs("watched")) != 0 {
			t.Errorf("remove took %d documents out, %d remain; want %d and 0", left, len(h.libraryDocs("watched")), n)
		}
	})
}
