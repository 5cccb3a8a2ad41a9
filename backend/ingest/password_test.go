package ingest

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"proofglass/backend/kb"
)

// TestBatchPasswordRememberedOnlyWhereItOpened: one password for a batch is tried on every file; it is remembered
// for the encrypted file it opened, and not for the file it did not open (wrong) nor for files that needed none.
func TestBatchPasswordRememberedOnlyWhereItOpened(t *testing.T) {
	in, _ := newIngester(t, Options{NoOCR: true})
	ctx := context.Background()
	opens := testdata(t, "bad", "pdf", "qpdf", "enc-R3,V2,U=view,O=master.pdf")
	wrong := testdata(t, "bad", "pdf", "debian", "a-text-pass-peanuts.pdf")
	plain := testdata(t, "pdf", "real", "hsaur3-Ch_analysis_of_variance.pdf")
	ownerOnly := testdata(t, "bad", "pdf", "qpdf", "enc-R3,V2,O=master.pdf")
	res, err := in.AddRequest(ctx, Request{Collection: "c", Paths: []string{opens, wrong, plain, ownerOnly}, Password: "view"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		status, remembered string
	}{
		filepath.Base(opens):     {kb.StatusReady, "view"},
		filepath.Base(wrong):     {kb.StatusFailed, ""},
		filepath.Base(plain):     {kb.StatusReady, ""},
		filepath.Base(ownerOnly): {kb.StatusReady, ""},
	}
	if len(res) != len(cases) {
		t.Fatalf("%d results", len(res))
	}
	for _, r := range res {
		want := cases[filepath.Base(r.Path)]
		if r.Document.Status != want.status {
			t.Errorf("%s: %s %q, want %s", r.Path, r.Document.Status, r.Error, want.status)
		}
		if got := in.Password(r.Document); got != want.remembered {
			t.Errorf("%s: remembered password %q, want %q", filepath.Base(r.Path), got, want.remembered)
		}
	}
	// The right password for the failed one opens it and is remembered then.
	for _, r := range res {
		if filepath.Base(r.Path) != filepath.Base(wrong) {
			continue
		}
		rr, err := in.Retry(ctx, r.Document.ID, "nope", nil)
		if err != nil || rr.Document.Status != kb.StatusFailed || in.Password(rr.Document) != "" {
			t.Errorf("retry with a wrong password: %s %v, remembered %q", rr.Document.Status, err, in.Password(rr.Document))
		}
		rr, err = in.Retry(ctx, r.Document.ID, "peanuts", nil)
		if err != nil || rr.Document.Status != kb.StatusReady || in.Password(rr.Document) != "peanuts" {
			t.Errorf("retry with the right password: %s %v %q, remembered %q", rr.Document.Status, err, rr.Error, in.Password(rr.Document))
		}
	}
}

// TestDamagedEncryptionIsNotAPasswordPrompt: the file whose encryption dictionary lacks its key length fails as
// damaged, with the reason, and is not marked as needing a password (the window would ask forever).
func TestDamagedEncryptionIsNotAPasswordPrompt(t *testing.T) {
	in, _ := newIngester(t, Options{NoOCR: true})
	ctx := context.Background()
	path := testdata(t, "bad", "pdf", "qpdf", "bad-encryption-length.pdf")
	for _, pw := range []string{"", "guess"} {
		res, err := in.AddRequest(ctx, Request{Collection: "c", Paths: []string{path}, Password: pw}, nil)
		if err != nil || len(res) != 1 {
			t.Fatalf("%v %+v", err, res)
		}
		d := res[0].Document
		if d.ID == 0 {
			continue // the second add finds it already there, failed, not needing a password
		}
		if d.Status != kb.StatusFailed || !strings.Contains(d.Error, "damaged encryption dictionary") ||
			!strings.Contains(d.Error, "bad-encryption-length.pdf") || strings.Contains(d.Error, "password required") {
			t.Errorf("password %q: %s %q", pw, d.Status, d.Error)
		}
		t.Logf("password %q: %s", pw, d.Error)
		if ParseMeta(d.Meta).NeedsPassword {
			t.Errorf("password %q: marked as needing a password", pw)
		}
		if in.Password(d) != "" {
			t.Errorf("password %q remembered", pw)
		}
	}
}

// TestRetryWhileTheFailureIsStillBeingReported: the window shows a document's failure from its progress event and
// the user may answer with the password at once, before the failed attempt has quite finished. The retry must wait
// for it and then open the file, not be taken for a duplicate ingest and dropped (the row stayed "failed").
func TestRetryWhileTheFailureIsStillBeingReported(t *testing.T) {
	in, _ := newIngester(t, Options{NoOCR: true})
	ctx := context.Background()
	enc := testdata(t, "bad", "pdf", "qpdf", "enc-R3,V2,U=view,O=master.pdf")
	retried := make(chan Result, 1)
	var once sync.Once
	progress := func(p Progress) {
		if p.Stage != StageFailed {
			return
		}
		once.Do(func() {
			// Still inside the failed attempt's report: retry from another goroutine, as the window does.
			go func() {
				r, err := in.Retry(ctx, p.DocumentID, "view", nil)
				if err != nil {
					t.Error(err)
				}
				retried <- r
			}()
			time.Sleep(200 * time.Millisecond) // the report is slow to return (a busy window)
		})
	}
	res, err := in.AddRequest(ctx, Request{Collection: "c", Paths: []string{enc}}, progress)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Document.Status != kb.StatusFailed {
		t.Fatalf("without a password: %s, want failed", res[0].Document.Status)
	}
	r := <-retried
	if r.Existed || r.Document.Status != kb.StatusReady || r.Document.Pages != 30 {
		t.Fatalf("retry with the password during the failure's report: existed %v, %s %q, %d pages; want ready, 30 pages",
			r.Existed, r.Document.Status, r.Error, r.Document.Pages)
	}
}
