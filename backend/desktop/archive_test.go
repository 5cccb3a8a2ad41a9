package desktop

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"proofglass/backend/filegate"
)

// TestLibraryArchiveOutAndBack: the window exports a collection to the path its save dialog returned (and nowhere
// else, and only once), and another window imports it through its open dialog.
func TestLibraryArchiveOutAndBack(t *testing.T) {
	d, ui := start(t)
	addAndWait(t, d, ui, "papers", samplePDF(t))
	lib := d.Library

	out := filepath.Join(t.TempDir(), "papers.zip")
	if _, err := lib.ExportCollections(out, []string{"papers"}); !errors.Is(err, filegate.ErrNotChosen) {
		t.Fatalf("export before any dialog: %v, want refused", err)
	}
	ui.save = out
	if got, err := lib.ChooseArchivePath("Exporter", "../../papers.zip"); err != nil || got != out {
		t.Fatalf("ChooseArchivePath = %q, %v", got, err)
	}
	if ui.names[len(ui.names)-1] != "library.zip" {
		t.Errorf("suggested %q for a name with a folder in it, want library.zip", ui.names[len(ui.names)-1])
	}
	elsewhere := filepath.Join(t.TempDir(), "other.zip")
	if _, err := lib.ExportCollections(elsewhere, []string{"papers"}); !errors.Is(err, filegate.ErrNotChosen) {
		t.Fatalf("export to a path not chosen: %v, want refused", err)
	}
	// The choice still stands after a refusal elsewhere; choosing again replaces it.
	lib.ChooseArchivePath("", "papers.zip")
	rep, err := lib.ExportCollections(out, []string{"papers"})
	if err != nil || rep.Counts["documents"] != 1 || rep.Bytes == 0 {
		t.Fatalf("ExportCollections = %+v, %v", rep, err)
	}
	if _, err := lib.ExportCollections(out, []string{"papers"}); !errors.Is(err, filegate.ErrNotChosen) {
		t.Fatalf("a second export to the same choice: %v, want refused", err)
	}
	if _, err := os.Stat(elsewhere); !os.IsNotExist(err) {
		t.Fatalf("a refused export wrote %s", elsewhere)
	}

	d2, ui2 := start(t)
	ui2.file = ""
	if rep, err := d2.Library.ImportArchive("Importer", ""); err != nil || rep != nil {
		t.Fatalf("cancelled import = %+v, %v", rep, err)
	}
	ui2.file = out
	imp, err := d2.Library.ImportArchive("Importer", "shared")
	if err != nil || imp.Added["documents"] != 1 {
		t.Fatalf("ImportArchive = %+v, %v", imp, err)
	}
	cs, err := d2.Library.Collections()
	if err != nil || len(cs) != 1 || cs[0].Name != "shared" || cs[0].Documents != 1 {
		t.Fatalf("collections after the import: %+v, %v", cs, err)
	}
	if ui2.titles[len(ui2.titles)-1] != "Importer" || !strings.Contains(ui2.filters[len(ui2.filters)-1][0].Pattern, ".zip") {
		t.Errorf("open dialog %q %+v", ui2.titles, ui2.filters)
	}
	if _, err := d2.Library.ExportCollections(out, nil); err == nil {
		t.Error("export of no collection: no error")
	}
}
