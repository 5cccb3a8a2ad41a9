package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"proofglass/backend/fixture"
)

// TestLibraryArchiveMeasure prints how long exporting and importing a library of the shared corpus's real PDFs take
// and how large the archive is. It ingests every PDF first, so it runs only when asked:
//
//	PROOFGLASS_MEASURE_ARCHIVE=1 go test ./backend/cli -run TestLibraryArchiveMeasure -v
func TestLibraryArchiveMeasure(t *testing.T) {
	if os.Getenv("PROOFGLASS_MEASURE_ARCHIVE") == "" {
		t.Skip("set PROOFGLASS_MEASURE_ARCHIVE=1 to measure export and import of a library of real PDFs")
	}
	pdfs, err := filepath.Glob(filepath.Join(fixture.Path(t, "pdf/real"), "*.pdf"))
	if err != nil || len(pdfs) == 0 {
		t.Fatalf("no real PDFs: %v", err)
	}
	src := t.TempDir()
	start := time.Now()
	if out, err := run(t, src, append([]string{"add", "--no-ocr", "--collection", "real"}, pdfs...)...); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	ingest := time.Since(start)
	askOnce(t, src, "real", "variance")
	want := libraryView(t, src, archiveQueries...)

	start = time.Now()
	file := exportArchive(t, src, "--all")
	export := time.Since(start)
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	var srcBytes int64
	for _, p := range pdfs {
		if s, err := os.Stat(p); err == nil {
			srcBytes += s.Size()
		}
	}
	dbSize := func(data string) int64 {
		var n int64
		for _, f := range []string{"proofglass.db", "proofglass.db-wal"} {
			if s, err := os.Stat(filepath.Join(data, f)); err == nil {
				n += s.Size()
			}
		}
		return n
	}

	dst := t.TempDir()
	start = time.Now()
	rep := importArchive(t, dst, file)
	imp := time.Since(start)
	if got := libraryView(t, dst, archiveQueries...); got != want {
		t.Fatalf("the imported library differs:\n%s", got)
	}
	t.Logf("%d PDFs (%.1f MB), %v pages: ingest %.1f s; database %.1f MB", len(pdfs), float64(srcBytes)/(1<<20),
		added(rep, "units"), ingest.Seconds(), float64(dbSize(src))/(1<<20))
	t.Logf("export %.2f s, archive %.1f MB; import into a fresh library %.2f s (%v vectors, %v passages)",
		export.Seconds(), float64(st.Size())/(1<<20), imp.Seconds(), added(rep, "vectors"), added(rep, "passages"))
	start = time.Now()
	rep = importArchive(t, dst, file)
	if n := added(rep, "units"); n != 0 {
		t.Fatalf("importing again added %v units", n)
	}
	t.Logf("import again (nothing to add) %.2f s", time.Since(start).Seconds())
}
