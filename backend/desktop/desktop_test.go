package desktop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"proofglass/backend/config"
	"proofglass/backend/fixture"
	"proofglass/backend/library"
	"proofglass/backend/pdf"
)

// TestMain lets the test binary serve as the MuPDF worker, as the proofglass binary does.
func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

// event is one emitted event as the window would get it.
type event struct {
	name string
	data any
}

// fakeUI records what the services emit and do to the window, and answers the dialogs with what a test set.
type fakeUI struct {
	mu      sync.Mutex
	events  []event
	emitted chan struct{} // a token after each Emit, for waiting

	files         []string // answers of the dialogs
	file, folder  string
	save          string
	dialogErr     error
	titles, names []string       // the dialogs' titles and suggested file names, in order
	filters       [][]FileFilter // the open dialogs' filters, in order
	shown         int
	urls          []string
}

func newFakeUI() *fakeUI { return &fakeUI{emitted: make(chan struct{}, 1)} }

func (u *fakeUI) Emit(name string, data any) {
	u.mu.Lock()
	u.events = append(u.events, event{name, data})
	u.mu.Unlock()
	select {
	case u.emitted <- struct{}{}:
	default:
	}
}

func (u *fakeUI) OpenFiles(title string, filters []FileFilter) ([]string, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.titles, u.filters = append(u.titles, title), append(u.filters, filters)
	return u.files, u.dialogErr
}

func (u *fakeUI) OpenFile(title string, filters []FileFilter) (string, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.titles, u.filters = append(u.titles, title), append(u.filters, filters)
	return u.file, u.dialogErr
}

func (u *fakeUI) OpenFolder(title string) (string, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.titles = append(u.titles, title)
	return u.folder, u.dialogErr
}

func (u *fakeUI) SaveFile(title, name string) (string, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.titles, u.names = append(u.titles, title), append(u.names, name)
	return u.save, u.dialogErr
}

func (u *fakeUI) Show() {
	u.mu.Lock()
	u.shown++
	u.mu.Unlock()
}

func (u *fakeUI) OpenURL(url string) {
	u.mu.Lock()
	u.urls = append(u.urls, url)
	u.mu.Unlock()
}

// named returns the events emitted so far under name.
func (u *fakeUI) named(name string) []any {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []any
	for _, e := range u.events {
		if e.name == name {
			out = append(out, e.data)
		}
	}
	return out
}

// waitFor waits until an event named name satisfies ok, and returns it; the test fails, listing what came, when none
// does within a generous bound (the bound is a hang guard, not a timing assertion).
func (u *fakeUI) waitFor(t *testing.T, name string, ok func(any) bool) any {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		for _, d := range u.named(name) {
			if ok(d) {
				return d
			}
		}
		select {
		case <-u.emitted:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no matching %s event; got %s", name, u.describe())
		}
	}
}

// eventually waits until ok holds; the test fails when it does not within a generous bound (a hang guard, not a
// timing assertion).
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	fixture.WaitFor(t, 2*time.Minute, ok, what)
}

func (u *fakeUI) describe() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	var b strings.Builder
	for _, e := range u.events {
		fmt.Fprintf(&b, "\n  %s %+v", e.name, e.data)
	}
	return b.String()
}

// start opens a Desktop over a fresh data directory, as the window does at startup, with OCR off (the test PDFs have
// a text layer) and the API keys in a file of the test's own (never the developer's keyring).
func start(t *testing.T) (*Desktop, *fakeUI) {
	t.Helper()
	return startIn(t, t.TempDir())
}

func startIn(t *testing.T, dir string) (*Desktop, *fakeUI) {
	t.Helper()
	d := New(dir, nil)
	d.core.ingestOpts = library.IngestOptions{NoOCR: true, Workers: 1}
	ui := newFakeUI()
	ctx, cancel := context.WithCancel(context.Background())
	d.Startup(ctx, ui)
	t.Cleanup(func() {
		cancel()
		d.Shutdown()
	})
	if err := d.core.ready(); err != nil {
		t.Fatal(err)
	}
	d.core.lib.Config.Secrets = &config.FileStore{Path: filepath.Join(dir, "test-secrets.json")}
	return d, ui
}

// Before the window has started, and when the data directory cannot be opened, every library call says why instead
// of failing on a nil library.
func TestNotReady(t *testing.T) {
	d := New(t.TempDir(), nil)
	if _, err := d.Library.Status(); err == nil || !strings.Contains(err.Error(), "still starting") {
		t.Errorf("Status before startup: err = %v, want still starting", err)
	}
	if _, err := d.Library.PickFiles("", nil); err == nil {
		t.Error("PickFiles before startup: no error")
	}
	if _, err := d.Chat.Conversations(); err == nil {
		t.Error("Conversations before startup: no error")
	}
	if _, err := d.Settings.Settings(); err == nil {
		t.Error("Settings before startup: no error")
	}
	if err := d.Eval.Start(EvalRequest{Dataset: "/q.jsonl", Collection: "c"}); err == nil {
		t.Error("Eval.Start before startup: no error")
	}
	if _, err := d.Watch.Folders(); err == nil {
		t.Error("Watch.Folders before startup: no error")
	}

	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	broken := New(file, nil)
	ui := newFakeUI()
	broken.Startup(context.Background(), ui)
	defer broken.Shutdown()
	if _, err := broken.Library.Collections(); err == nil || !strings.Contains(err.Error(), "could not start") {
		t.Errorf("Collections over a file as data directory: err = %v, want could not start", err)
	}
	if _, err := broken.Watch.Folders(); err == nil {
		t.Error("Watch.Folders over a broken data directory: no error")
	}
}

// Only the services are bound, and none has an exported method Wails would bind by mistake (a lifecycle hook).
func TestServicesBindOnlyWindowMethods(t *testing.T) {
	d := New(t.TempDir(), nil)
	if got := len(d.Services()); got != 7 {
		t.Fatalf("%d services, want 7", got)
	}
	want := map[string]int{"LibraryService": 28, "ChatService": 8, "SettingsService": 8, "EvalService": 9,
		"WatchService": 3, "OpenFilesService": 1, "CompareService": 4}
	for _, s := range d.Services() {
		name, n := methods(s)
		if want[name] != n {
			t.Errorf("%s binds %d methods, want %d", name, n, want[name])
		}
	}
}

// methods names a bound value's type and counts its exported methods: what Wails would bind.
func methods(v any) (string, int) {
	t := reflect.TypeOf(v)
	return t.Elem().Name(), t.NumMethod()
}
