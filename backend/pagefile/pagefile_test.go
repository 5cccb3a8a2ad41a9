package pagefile

import (
	"context"
	"encoding/json"
	"errors"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"proofglass/backend/fixture"
	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/library"
	"proofglass/backend/pagecache"
	"proofglass/backend/pdf"
)

func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

// newLibrary ingests real test files into collection "docs" of a fresh library (no OCR: text layers are enough).
func newLibrary(t *testing.T, files ...string) *library.Library {
	t.Helper()
	lib, err := library.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	in := ingest.New(lib.KB, lib.Config, ingest.Options{NoOCR: true, Workers: 2})
	defer in.Close()
	res, err := in.Add(context.Background(), "docs", files, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Error != "" {
			t.Fatalf("ingest %s: %s", r.Path, r.Error)
		}
	}
	return lib
}

func TestWarmRendersEveryPageOnceAndResumes(t *testing.T) {
	pdfPath := fixture.Path(t, "pdf/real/hsaur3-Ch_analysis_of_variance.pdf") // 13 pages
	lib := newLibrary(t, pdfPath)
	m := New(lib.KB, lib.Pages, lib.PDFPassword, 2)
	defer m.Close()
	ctx := context.Background()
	var calls int
	rep, err := m.Warm(ctx, []string{"docs"}, func(Progress) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total != 13 || rep.Made != 13 || rep.Skipped != 0 || rep.Failed != 0 || rep.Full || calls == 0 {
		t.Fatalf("first warm: %+v (%d progress calls)", rep, calls)
	}
	its, _ := lib.KB.Search.ReadyPageItems(ctx, []string{"docs"}, -1)
	for _, it := range its {
		b, err := os.ReadFile(lib.Pages.Path(Key(it)))
		if err != nil || JPEGDensity(b) != DPI {
			t.Fatalf("page %d: %v (density %d)", it.Ordinal, err, JPEGDensity(b))
		}
		if want := "hsaur3-Ch_analysis_of_variance_" + strconv.Itoa(it.Ordinal) + ".jpg"; filepath.Base(lib.Pages.Path(Key(it))) != want {
			t.Errorf("file %s, want %s", lib.Pages.Path(Key(it)), want)
		}
	}
	// Interrupted: two pages missing; a second run renders only those.
	os.Remove(lib.Pages.Path(Key(its[3])))
	os.Remove(lib.Pages.Path(Key(its[9])))
	rep, err = m.Warm(ctx, nil, nil)
	if err != nil || rep.Made != 2 || rep.Skipped != 11 {
		t.Fatalf("resumed warm: %+v %v", rep, err)
	}
	if rep.NeedBytes <= 0 {
		t.Error("no size estimate")
	}
}

func TestWarmStopsWhenTheCollectionOutgrowsTheCache(t *testing.T) {
	lib := newLibrary(t, fixture.Path(t, "pdf/real/hsaur3-Ch_analysis_of_variance.pdf"))
	small := pagecache.New(t.TempDir(), pagecache.Options{MaxBytes: 600 << 10}) // a few pages
	m := New(lib.KB, small, nil, 1)
	defer m.Close()
	rep, err := m.Warm(context.Background(), []string{"docs"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Full || rep.Made >= rep.Total || rep.NeedBytes <= small.MaxBytes() {
		t.Fatalf("warm into a small cache: %+v", rep)
	}
}

// TestExportCorpus writes VRAG's layout and checks it against VRAG's own tool: the same names pdf2images.py gives
// (1-based {stem}_{page}.jpg) and, where pdftoppm is installed, the same pixel size as `pdftoppm -r 200`.
func TestExportCorpus(t *testing.T) {
	pdfPath := fixture.Path(t, "pdf/real/hsaur3-Ch_analysis_of_variance.pdf")
	img := fixture.Path(t, "images/charts/bkf_plot.png")
	lib := newLibrary(t, pdfPath, img)
	m := New(lib.KB, lib.Pages, nil, 2)
	defer m.Close()
	out := t.TempDir()
	c, err := OpenCorpus(out, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rep, err := m.Export(ctx, c, "docs", nil)
	if err != nil || rep.Made != 14 || rep.Failed != 0 {
		t.Fatalf("export: %+v %v", rep, err)
	}
	names, _ := os.ReadDir(filepath.Join(out, "img"))
	if len(names) != 14 {
		t.Fatalf("%d files in img/", len(names))
	}
	for p := 1; p <= 13; p++ {
		if _, err := os.Stat(filepath.Join(out, "img", "hsaur3-Ch_analysis_of_variance_"+strconv.Itoa(p)+".jpg")); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "img", "bkf_plot_1.jpg")); err != nil {
		t.Error(err)
	}
	// Resumable: nothing to do the second time.
	c2, _ := OpenCorpus(out, false)
	if rep, err := m.Export(ctx, c2, "docs", nil); err != nil || rep.Made != 0 || rep.Skipped != 14 {
		t.Fatalf("second export: %+v %v", rep, err)
	}
	if _, err := m.Export(ctx, c2, "nope", nil); !errors.Is(err, kb.ErrNotFound) {
		t.Errorf("unknown collection: %v", err)
	}

	fixture.Command(t, "pdftoppm")
	ref := t.TempDir()
	if b, err := exec.Command("pdftoppm", "-r", "200", "-jpeg", "-f", "5", "-l", "5", pdfPath, filepath.Join(ref, "p")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, b)
	}
	refs, _ := filepath.Glob(filepath.Join(ref, "p*.jpg"))
	if len(refs) != 1 {
		t.Fatalf("pdftoppm wrote %v", refs)
	}
	size := func(p string) (int, int) {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cfg, err := jpeg.DecodeConfig(f)
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Width, cfg.Height
	}
	w, h := size(filepath.Join(out, "img", "hsaur3-Ch_analysis_of_variance_5.jpg"))
	rw, rh := size(refs[0])
	if abs(w-rw) > 1 || abs(h-rh) > 1 {
		t.Errorf("page 5 is %dx%d, pdftoppm -r 200 gives %dx%d", w, h, rw, rh)
	}
}

func abs(n int) int { return max(n, -n) }

// TestExportNameTaken: two different documents whose VRAG names collide cannot both be in a flat folder; the first
// keeps the names, the second's pages fail with a message naming both, and nothing is overwritten.
func TestExportNameTaken(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a", "report.pdf")
	b := filepath.Join(dir, "b", "report.pdf.pdf") // same VRAG stem: "report"
	os.MkdirAll(filepath.Dir(a), 0o700)
	os.MkdirAll(filepath.Dir(b), 0o700)
	for src, dst := range map[string]string{"pdf/real/hsaur3-Ch_analysis_of_variance.pdf": a, "pdf/real/blood_loss_report.pdf": b} {
		data, err := os.ReadFile(fixture.Path(t, src))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(dst, data, 0o600)
	}
	lib := newLibrary(t, a, b)
	m := New(lib.KB, lib.Pages, nil, 2)
	defer m.Close()
	c, _ := OpenCorpus(t.TempDir(), false)
	rep, err := m.Export(context.Background(), c, "docs", nil)
	if err != nil {
		t.Fatal(err)
	}
	// 13 + 19 pages, names report_1…report_19: 13 shared names, the later document loses those 13.
	if rep.Made != 19 || rep.Failed != 13 || len(rep.Errors) == 0 || !errors.Is(rep.Errors[0], ErrNameTaken) ||
		!strings.Contains(rep.Errors[0].Error(), "rename") {
		t.Fatalf("export of colliding names: made %d, failed %d, %v", rep.Made, rep.Failed, rep.Errors)
	}
}

// TestExportLongNameKeepsItsPageNames: a document whose name is longer than a file name may be (a Chinese name of
// 83 characters is 249 bytes before "_12.jpg") is exported whole, each file's stem cut to fit, and the manifest
// names each file's page with VRAG's whole name, {stem}_{page}, which a client's golden list holds (issue 41, row 2).
func TestExportLongNameKeepsItsPageNames(t *testing.T) {
	dir := t.TempDir()
	stem := strings.Repeat("年度报告", 20) + "年度报"
	long := filepath.Join(dir, stem+".pdf")
	data, err := os.ReadFile(fixture.Path(t, "pdf/real/hsaur3-Ch_analysis_of_variance.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(long, data, 0o600); err != nil {
		t.Fatal(err)
	}
	lib := newLibrary(t, long)
	m := New(lib.KB, lib.Pages, nil, 2)
	defer m.Close()
	out := t.TempDir()
	c, _ := OpenCorpus(out, false)
	rep, err := m.Export(context.Background(), c, "docs", nil)
	if err != nil || rep.Made != 13 || rep.Failed != 0 {
		t.Fatalf("export: %+v %v", rep, err)
	}
	b, err := os.ReadFile(filepath.Join(out, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	var man manifest
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	pages := map[string]bool{}
	cut := 0
	for file, src := range man.Files {
		if _, err := os.Stat(filepath.Join(out, "img", file)); err != nil || len(file) > pagecache.NameMax {
			t.Errorf("%q (%d bytes): %v", file, len(file), err)
		}
		if want := stem + "_" + strconv.Itoa(src.Page); src.Name != want {
			t.Errorf("%s names page %q, want %q", file, src.Name, want)
		}
		if strings.TrimSuffix(file, ".jpg") != src.Name {
			cut++
		}
		pages[src.Name] = true
	}
	if len(pages) != 13 || cut == 0 {
		t.Errorf("%d pages named, %d of them cut: want 13, the two-digit pages' stems cut", len(pages), cut)
	}
}
