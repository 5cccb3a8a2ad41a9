package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"proofglass/backend/fixture"
)

// syncBuffer is a bytes.Buffer safe to read while a command writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestWatchCommands(t *testing.T) {
	data, dir := t.TempDir(), t.TempDir()
	img := image.NewGray(image.Rect(0, 0, 32, 32))
	img.Set(3, 3, color.White)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dot.png"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, data, "watch", "add", filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("watching a missing folder: %v", err)
	}
	if _, err := run(t, data, "watch"); err == nil || !strings.Contains(err.Error(), "no folder is watched") {
		t.Errorf("watch with nothing to watch: %v", err)
	}
	if out, err := run(t, data, "watch", "add", dir, "--collection", "inbox"); err != nil || !strings.Contains(out, "watching "+dir) {
		t.Fatalf("watch add: %q %v", out, err)
	}
	if _, err := run(t, data, "watch", "add", dir, "--collection", "inbox"); err == nil || !strings.Contains(err.Error(), "already watched") {
		t.Errorf("watch add twice: %v", err)
	}

	// The foreground watcher ingests the folder, then stops on interrupt.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	root := NewRoot()
	out := &syncBuffer{}
	root.SetOut(out)
	root.SetErr(out)
	root.SetArgs([]string{"--data", data, "watch", "--json", "--no-ocr"})
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	fixture.WaitFor(t, 60*time.Second, func() bool { return strings.Contains(out.String(), `"stage":"done"`) }, "the watcher to ingest dot.png")
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("watch: %v", err)
	}

	list, err := run(t, data, "watch", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Path       string `json:"path"`
		Collection string `json:"collection"`
		Files      int    `json:"files"`
		Documents  int    `json:"documents"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(list)), &f); err != nil {
		t.Fatalf("list --json: %q %v", list, err)
	}
	if f.Path != dir || f.Collection != "inbox" || f.Files != 1 || f.Documents != 1 {
		t.Errorf("watch list: %+v", f)
	}
	if _, err := run(t, data, "watch", "remove", dir, "--collection", "other"); err == nil || !strings.Contains(err.Error(), "not watched") {
		t.Errorf("remove from the wrong collection: %v", err)
	}
	if out, err := run(t, data, "watch", "remove", dir, "--collection", "inbox"); err != nil || !strings.Contains(out, "1 document(s) left") {
		t.Errorf("watch remove: %q %v", out, err)
	}
	k := openData(t, data)
	defer k.Close()
	if ds, _ := k.Docs.Documents(context.Background(), 0); len(ds) != 0 {
		t.Errorf("%d documents left after removing the watch", len(ds))
	}
}
