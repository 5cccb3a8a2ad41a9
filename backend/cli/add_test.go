package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"proofglass/backend/fixture"
)

// TestAddAndDocuments runs `proofglass add` and `proofglass documents` on an image and an empty file (images need no PDF
// worker, which this test binary does not serve).
func TestAddAndDocuments(t *testing.T) {
	img := fixture.Path(t, "images/charts/bkf_plot.png")
	empty := filepath.Join(t.TempDir(), "empty.png")
	os.WriteFile(empty, nil, 0o644)
	data := t.TempDir()
	out, err := run(t, data, "add", "--no-ocr", "--json", "--collection", "c", img, empty)
	if err == nil || !strings.Contains(err.Error(), "1 of 2 files failed") {
		t.Fatalf("add error = %v, want one failure reported", err)
	}
	var ready, failed int
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			Type     string `json:"type"`
			Error    string `json:"error"`
			Document struct {
				ID     int64  `json:"id"`
				Status string `json:"status"`
			} `json:"document"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		if r.Type != "result" {
			continue
		}
		switch {
		case r.Document.Status == "ready":
			ready++
		case r.Document.Status == "failed" && strings.Contains(r.Error, "empty.png: empty file"):
			failed++
		}
	}
	if ready != 1 || failed != 1 {
		t.Fatalf("ready %d failed %d in:\n%s", ready, failed, out)
	}
	out, err = run(t, data, "add", "--no-ocr", "--collection", "c", img)
	if err != nil || !strings.HasPrefix(out, "exists") {
		t.Fatalf("second add: %v %q", err, out)
	}
	out, err = run(t, data, "documents", "list", "--json", "--status", "ready")
	if err != nil || strings.Count(out, "\n") != 1 || !strings.Contains(out, "bkf_plot.png") {
		t.Fatalf("documents list: %v %q", err, out)
	}
	if out, err = run(t, data, "documents", "delete", "1", "2"); err != nil {
		t.Fatalf("delete: %v %s", err, out)
	}
	if out, _ = run(t, data, "documents", "list", "--json"); out != "" {
		t.Fatalf("documents left after delete: %q", out)
	}
}

// TestAddFolderThroughALink: `add` of a folder named by a link adds what the folder holds (it added nothing, and said
// nothing, before); a folder with nothing to add says so.
func TestAddFolderThroughALink(t *testing.T) {
	real := t.TempDir()
	src, err := os.ReadFile(fixture.Path(t, "images/charts/bkf_plot.png"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "sub", "plot.png"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "shortcut")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	data := t.TempDir()
	out, err := run(t, data, "add", "--no-ocr", link)
	if err != nil || !strings.Contains(out, "ready") || !strings.Contains(out, filepath.Join(link, "sub", "plot.png")) {
		t.Fatalf("add through a link: %v\n%s", err, out)
	}
	out, err = run(t, data, "add", "--no-ocr", t.TempDir())
	if err != nil || !strings.Contains(out, "nothing added: no document, image or video file Proofglass reads there") {
		t.Errorf("add of an empty folder: %v\n%q", err, out)
	}
}
