package desktop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Files from the command line and from later launches wait until the window takes them, each exactly once, even when
// a later launch arrives before the window has started.
func TestOpenFilesQueueUntilTaken(t *testing.T) {
	d := New(t.TempDir(), []string{"/docs/a.pdf"})
	if err := d.Open([]string{"/docs/b.png", "/docs/c.mp4"}); err != nil { // before startup: queued, no window calls
		t.Fatal(err)
	}
	got := d.Opened.TakeOpenFiles()
	if !slices.Equal(got, []string{"/docs/a.pdf", "/docs/b.png", "/docs/c.mp4"}) {
		t.Fatalf("TakeOpenFiles = %q", got)
	}
	again, _ := json.Marshal(d.Opened.TakeOpenFiles())
	if string(again) != "[]" { // the window gets an empty list, not null
		t.Fatalf("second TakeOpenFiles = %s, want []", again)
	}
}

// Once the window is up, files handed over bring it forward and announce themselves with open:files.
func TestOpenFilesAnnounceToTheWindow(t *testing.T) {
	d, ui := start(t)
	if err := d.Open([]string{"/docs/late.pdf"}); err != nil {
		t.Fatal(err)
	}
	if ui.shown != 1 || len(ui.named(eventOpenFiles)) != 1 {
		t.Errorf("shown %d times, %d open:files events; want 1 and 1", ui.shown, len(ui.named(eventOpenFiles)))
	}
	if got := d.Opened.TakeOpenFiles(); !slices.Equal(got, []string{"/docs/late.pdf"}) {
		t.Errorf("TakeOpenFiles = %q", got)
	}
}

// A second launch on the same data directory hands its files to the first window and is told to exit.
func TestClaimWindowHandsFilesToTheRunningWindow(t *testing.T) {
	dir := t.TempDir()
	primary, handed, err := ClaimWindow(dir, nil)
	if err != nil || handed || primary == nil {
		t.Fatalf("first ClaimWindow = %v, %v, %v; want the window", primary, handed, err)
	}
	defer primary.Close()
	d := New(dir, nil)
	primary.Serve(d.Open)
	second := filepath.Join(t.TempDir(), "second.pdf")
	if err := os.WriteFile(second, []byte("%PDF-1.4"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, handed, err = ClaimWindow(dir, []string{second})
	if err != nil || !handed {
		t.Fatalf("second ClaimWindow: handed %v, %v", handed, err)
	}
	if got := d.Opened.TakeOpenFiles(); !slices.Equal(got, []string{second}) {
		t.Errorf("the window got %q", got)
	}
}
