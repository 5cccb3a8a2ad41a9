package main

import (
	"encoding/json"
	"testing"
)

// Files from the command line and from later launches wait until the UI takes them, each exactly once, even when a
// later launch arrives before the window has started.
func TestOpenFilesQueueUntilTaken(t *testing.T) {
	o := NewOpenFiles([]string{"/docs/a.pdf"})
	if err := o.open([]string{"/docs/b.png", "/docs/c.mp4"}); err != nil { // before startup: queued, no window calls
		t.Fatal(err)
	}
	got := o.TakeOpenFiles()
	if len(got) != 3 || got[0] != "/docs/a.pdf" || got[2] != "/docs/c.mp4" {
		t.Fatalf("TakeOpenFiles = %q", got)
	}
	again, _ := json.Marshal(o.TakeOpenFiles())
	if string(again) != "[]" { // the UI gets an empty list, not null
		t.Fatalf("second TakeOpenFiles = %s, want []", again)
	}
}
