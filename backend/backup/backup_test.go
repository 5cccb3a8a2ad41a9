package backup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"proofglass/backend/fixture"
	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/pdf"
	"proofglass/backend/search"
)

// TestMain lets the test binary serve as the pdf worker, as the proofglass binary does.
func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

// TestBackupWhileIngesting backs a library up in the middle of an ingest batch: the backup is one committed state
// (it passes SQLite's checks; every document in it has its file, whose content has its hash; its ready documents are
// searchable), the batch finishes unharmed, and a second backup to the same folder is refused.
func TestBackupWhileIngesting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	k, err := kb.Open(ctx, filepath.Join(dir, "data", "proofglass.db"), filepath.Join(dir, "data", "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	settings := filepath.Join(dir, "data", "settings.json")
	if err := os.WriteFile(settings, []byte(`{"version":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	in := ingest.New(k, nil, ingest.Options{NoOCR: true, Workers: 1})
	defer in.Close()
	var paths []string
	for _, rel := range []string{"pdf/real/blood_loss_report.pdf", "pdf/real/hsaur3-Ch_analysis_of_variance.pdf",
		"pdf/real/hsaur3-Ch_graphical_display.pdf", "pdf/real/hsaur3-Ch_logistic_regression_glm.pdf"} {
		paths = append(paths, fixture.Path(t, rel))
	}
	out := filepath.Join(dir, "backup")
	var (
		once    sync.Once
		rep     *Report
		backErr error
		done    = make(chan struct{})
	)
	// The backup starts when the first document is ready, while the rest of the batch is still being ingested.
	progress := func(p ingest.Progress) {
		if p.Status == "ready" {
			once.Do(func() {
				go func() {
					defer close(done)
					rep, backErr = Write(ctx, Source{KB: k, Settings: settings}, out)
				}()
			})
		}
	}
	res, err := in.Add(ctx, "docs", paths, progress)
	if err != nil {
		t.Fatal(err)
	}
	<-done
	if backErr != nil {
		t.Fatal(backErr)
	}
	for _, r := range res {
		if r.Error != "" {
			t.Fatalf("the batch was harmed: %s", r.Error)
		}
	}
	t.Logf("backup: %+v", rep)

	b, err := kb.Open(ctx, filepath.Join(out, "proofglass.db"), filepath.Join(out, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if problems, err := b.Integrity(ctx); err != nil || len(problems) > 0 {
		t.Fatalf("the backup fails its checks: %v %v", problems, err)
	}
	refs, err := b.ReferencedBlobs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for h := range refs {
		data, err := os.ReadFile(b.Blobs.Path(h))
		if err != nil {
			t.Fatalf("the backup lacks blob %s: %v", h, err)
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != h {
			t.Fatalf("blob %s in the backup is not its content", h)
		}
	}
	cs, _ := b.Docs.Collections(ctx)
	ready := 0
	for _, c := range cs {
		ds, _ := b.Docs.Documents(ctx, c.ID)
		for _, d := range ds {
			if d.Status == "ready" {
				ready++
			}
		}
	}
	if ready == 0 || rep.Documents == 0 || rep.Blobs != len(refs) {
		t.Errorf("backup holds %d ready documents, report %+v, %d referenced blobs", ready, rep, len(refs))
	}
	s := search.New(b, search.Options{})
	defer s.Close()
	hits, err := s.Search(ctx, search.Query{Text: "postpartum blood loss factor XIII"})
	if err != nil || len(hits.Hits) == 0 {
		t.Errorf("searching the backup: %+v, %v", hits, err)
	}
	if got, err := os.ReadFile(filepath.Join(out, "settings.json")); err != nil || string(got) != `{"version":1}` {
		t.Errorf("settings in the backup: %q, %v", got, err)
	}
	if _, err := os.Stat(out + ".partial"); !os.IsNotExist(err) {
		t.Errorf("the unfinished copy is left behind: %v", err)
	}
	if _, err := Write(ctx, Source{KB: k}, out); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("a second backup to the same folder: %v, want refused", err)
	}
}

// A blob damaged on disk is named, and no backup is left in place.
func TestBackupNamesADamagedBlob(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	k, err := kb.Open(ctx, filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	in := ingest.New(k, nil, ingest.Options{NoOCR: true, Workers: 1})
	defer in.Close()
	res, err := in.Add(ctx, "docs", []string{fixture.Path(t, "pdf/real/blood_loss_report.pdf")}, nil)
	if err != nil || res[0].Error != "" {
		t.Fatal(err, res)
	}
	if err := os.WriteFile(k.Blobs.Path(res[0].Document.Blob), []byte("not the pdf"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "backup")
	_, err = Write(ctx, Source{KB: k}, out)
	if err == nil || !strings.Contains(err.Error(), res[0].Document.Blob) || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("backup of a damaged blob: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed backup left %s: %v", out, err)
	}
}
