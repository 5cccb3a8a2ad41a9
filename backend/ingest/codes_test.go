package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"
	"time"

	"proofglass/backend/kb"
	"proofglass/backend/pdf"
)

func TestCodeOf(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		code  string
		param string // one value its params must hold
	}{
		{"password", fmt.Errorf("open: %w", &pdf.PasswordError{Path: "/x/a.pdf"}), CodePasswordRequired, "a.pdf"},
		{"wrong password", &pdf.PasswordError{Path: "/x/a.pdf", Wrong: true}, CodeWrongPassword, "a.pdf"},
		{"damaged", fmt.Errorf("extract: %w", &pdf.DamagedError{Path: "/x/a.pdf", Reason: "no xref"}), CodeDamaged, "a.pdf"},
		{"empty", rejectReason("/x/e.pdf", 0, nil), CodeEmpty, "e.pdf"},
		{"not a pdf", rejectReason("/x/n.pdf", 10, nil), CodeNotPDF, "n.pdf"},
		{"image", rejectReason("/x/i.heic", 10, nil), CodeUnsupportedImage, "i.heic"},
		{"other", rejectReason("/x/o.xyz", 10, nil), CodeUnsupported, "o.xyz"},
		{"missing", &readError{"/x/a.pdf", fmt.Errorf("sniff: %w", fs.ErrNotExist)}, CodeNotFound, "/x/a.pdf"},
		{"permission", &readError{"/x/a.pdf", fs.ErrPermission}, CodePermission, "/x/a.pdf"},
		{"unreadable", &readError{"/x/a.pdf", errors.New("i/o error")}, CodeUnreadable, "/x/a.pdf"},
		{"timeout", &timeoutError{"a.pdf", time.Minute}, CodeTimeout, "1m0s"},
		{"no code", errors.New("something else"), "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, params := codeOf(c.err, "a.pdf", "/x/a.pdf")
			if code != c.code {
				t.Fatalf("code = %q, want %q (%v)", code, c.code, c.err)
			}
			found := c.param == ""
			for _, v := range params {
				found = found || v == c.param
			}
			if !found {
				t.Errorf("params %v lack %q", params, c.param)
			}
		})
	}
}

// The English text of a rejected file is what it was before codes existed (the CLI and stored documents show it).
func TestRejectTextUnchanged(t *testing.T) {
	if got, want := rejectReason("/x/e.pdf", 0, nil).Error(), "e.pdf: empty file"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := rejectReason("/x/o.xyz", 3, nil).Error(), "o.xyz: unsupported format: not one of the documents, images or videos Proofglass reads"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestFailedDocumentKeepsItsCode: a document that failed keeps its reason's code and values in its meta, for the
// window to say it in its language after a restart; a retry that succeeds clears them.
func TestFailedDocumentKeepsItsCode(t *testing.T) {
	in, _ := newIngester(t, Options{})
	for _, tc := range []struct {
		rel  []string
		code string
		key  string
	}{
		{[]string{"bad", "pdf", "generated", "zero-bytes.pdf"}, CodeEmpty, "name"},
		{[]string{"bad", "pdf", "qpdf", "bad40.pdf"}, CodeDamaged, "name"},
		{[]string{"bad", "pdf", "pypdf-sample-files", "libreoffice-writer-password.pdf"}, CodePasswordRequired, "name"},
	} {
		r := addOne(t, in, "bad", testdata(t, tc.rel...))
		m := ParseMeta(r.Document.Meta)
		if r.Document.Status != kb.StatusFailed || m.ErrorCode != tc.code || m.ErrorParams[tc.key] != r.Document.Name {
			t.Errorf("%s: status %s, meta %+v (error %q); want code %s naming the file", r.Path, r.Document.Status, m, r.Document.Error, tc.code)
		}
		if tc.code != CodePasswordRequired {
			continue
		}
		rr, err := in.Retry(context.Background(), r.Document.ID, "openpassword", nil)
		if err != nil {
			t.Fatal(err)
		}
		if m := ParseMeta(rr.Document.Meta); rr.Document.Status != kb.StatusReady || m.ErrorCode != "" || m.ErrorParams != nil {
			t.Errorf("after the retry with its password: status %s, meta %+v", rr.Document.Status, m)
		}
	}
}
