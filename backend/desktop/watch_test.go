package desktop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"proofglass/backend/ingest"
	"proofglass/backend/watch"
)

// A folder picked in the dialog is watched for a collection, listed with its status, and unwatched; the PDF already
// in it is ingested into the collection.
func TestWatchAddListRemove(t *testing.T) {
	d, ui := start(t)
	w := d.Watch
	if fs, err := w.Folders(); err != nil || len(fs) != 0 {
		t.Fatalf("Folders of a new library = %+v, %v", fs, err)
	}
	dir := t.TempDir()
	b, err := os.ReadFile(samplePDF(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "speech.pdf"), b, 0o600); err != nil {
		t.Fatal(err)
	}

	ui.folder = "" // a cancelled dialog watches nothing
	if f, err := w.Add("watched", ""); err != nil || f.ID != 0 {
		t.Errorf("Add with a cancelled dialog = %+v, %v", f, err)
	}
	ui.folder = dir
	f, err := w.Add("watched", "监视 watched 的文件夹")
	if err != nil || f.ID <= 0 || f.Path != dir {
		t.Fatalf("Add = %+v, %v", f, err)
	}
	if title := ui.titles[len(ui.titles)-1]; !strings.Contains(title, "watched") {
		t.Errorf("dialog title %q does not name the collection", title)
	}
	fs, err := w.Folders()
	if err != nil || len(fs) != 1 || fs[0].ID != f.ID || fs[0].Path != dir || fs[0].Collection != "watched" {
		t.Fatalf("Folders = %+v, %v", fs, err)
	}
	ui.waitFor(t, eventWatch, func(e any) bool { s, ok := e.(watch.Status); return ok && s.ID == f.ID })
	ui.waitFor(t, eventIngest, func(e any) bool {
		p, _ := stageOf(e)
		return p.Stage == ingest.StageDone && p.Name == "speech.pdf"
	})
	// The folder's status counts the document once the scan has recorded where it came from.
	ui.waitFor(t, eventWatch, func(e any) bool { s, _ := e.(watch.Status); return s.ID == f.ID && s.Documents == 1 })

	n, err := w.Remove(f.ID, false)
	if err != nil || n != 1 {
		t.Errorf("Remove = %d, %v; want its 1 document gone", n, err)
	}
	if fs, err := w.Folders(); err != nil || len(fs) != 0 {
		t.Errorf("Folders after Remove = %+v, %v", fs, err)
	}

	if _, err := w.Add("a\nb", ""); err == nil {
		t.Error("Add accepted a collection name with a newline")
	}
	if _, err := w.Remove(0, false); err == nil {
		t.Error("Remove(0) accepted")
	}
}
