package ingest

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"proofglass/backend/kb"
	"proofglass/backend/media"
)

// passwords are the user passwords bad/README.md gives for the encrypted test PDFs.
var passwords = map[string]string{
	"a-text-pass-peanuts.pdf":          "peanuts",
	"a-text-pass-A5d.pdf":              "A5d",
	"skew-encrypted.pdf":               "password",
	"libreoffice-writer-password.pdf":  "openpassword",
	"enc-XI-R6,V5,U=wwwww,O=wwwww.pdf": "wwwww",
	"enc-R2,V1,U=view,O=master.pdf":    "view",
	"enc-R3,V2,U=view,O=master.pdf":    "view",
	"enc-XI-R6,V5,U=view,O=master.pdf": "view",
}

// TestBadBatch ingests every file of testdata/bad in one batch, with good files among them: the good ones end
// ready, every bad one ends failed with a reason naming it (or ready where it is recoverable), encrypted ones
// ask for a password and open with it, and the store stays consistent.
func TestBadBatch(t *testing.T) {
	needTool(t, "ffmpeg", "ffprobe")
	bad := testdata(t, "bad")
	good := []string{testdata(t, "pdf", "real", "hsaur3-Ch_analysis_of_variance.pdf"), testdata(t, "images", "charts", "bkf_plot.png")}
	// OCR is left out here to keep the batch short (TestBadNeedsOCR covers the files that need it).
	in, k := newIngester(t, Options{NoOCR: true, Media: media.Options{ClipSeconds: 60, FPS: 0.25}, FileTimeout: 2 * time.Minute})
	in.o.PDF.Timeout = 10 * time.Second // the fuzzed file that keeps poppler busy must be stopped by the time limit
	ctx := context.Background()
	start := time.Now()
	res, err := in.Add(ctx, "bad", append([]string{bad}, good...), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files in %s", len(res), time.Since(start).Round(time.Millisecond))
	var files int
	filepath.WalkDir(bad, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files++
		}
		return nil
	})
	if len(res) != files+len(good) {
		t.Fatalf("%d results for %d files", len(res), files+len(good))
	}
	byName := map[string]Result{}
	var lines []string
	for _, r := range res {
		name := filepath.Base(r.Path)
		byName[name] = r
		if r.Skipped {
			if name != "README.md" {
				t.Errorf("%s skipped", r.Path)
			}
			continue
		}
		d := r.Document
		lines = append(lines, d.Status+"\t"+strings.TrimPrefix(r.Path, bad)+"\t"+d.Error)
		switch d.Status {
		case kb.StatusReady:
		case kb.StatusFailed:
			if !strings.Contains(d.Error, d.Name) || strings.Contains(d.Error, k.Blobs.Dir()) {
				t.Errorf("%s: error %q does not name the file (or leaks the blob path)", r.Path, d.Error)
			}
		default:
			t.Errorf("%s: status %s", r.Path, d.Status)
		}
	}
	sort.Strings(lines)
	t.Log("\n" + strings.Join(lines, "\n"))
	for _, g := range good {
		if r := byName[filepath.Base(g)]; r.Document.Status != kb.StatusReady {
			t.Errorf("good file %s: %s %s", g, r.Document.Status, r.Error)
		}
	}
	want := map[string]string{ // file → status it must end with; the others may be either, with a reason
		"bad1.pdf": kb.StatusFailed, "zero-bytes.pdf": kb.StatusFailed, "text-renamed.pdf": kb.StatusFailed,
		"invalid.pdf": kb.StatusFailed, "png-bomb-100000x100000.png": kb.StatusFailed,
		"png-bomb-20000x20000.png": kb.StatusFailed, "decompression_bomb.gif": kb.StatusFailed,
		"init_truncated.mp4": kb.StatusFailed, "vvc_400kbps_2s.mp4": kb.StatusFailed, "iamf.mp4": kb.StatusFailed,
		"prog_8s_enc_dashinit.mp4": kb.StatusFailed, "zero-bytes.mp4": kb.StatusFailed,
		"V4-aes.pdf": kb.StatusReady, "encrypted_algo4.pdf": kb.StatusReady, "enc-R3,V2,O=master.pdf": kb.StatusReady,
		"enc-XI-R6,V5,O=master.pdf": kb.StatusReady,
		"negzero.pdf":               kb.StatusReady, "no_contents.pdf": kb.StatusReady, "shattered-1.pdf": kb.StatusReady,
		"shattered-2.pdf": kb.StatusReady, "jpeg-renamed.png": kb.StatusReady, "hugemono.pdf": kb.StatusReady,
		"enormous.pdf": kb.StatusReady, "invalid-exif.jpg": kb.StatusReady,
	}
	for name, st := range want {
		if r, ok := byName[name]; !ok || r.Document.Status != st {
			t.Errorf("%s: %s (%s), want %s", name, r.Document.Status, r.Error, st)
		}
	}
	for name, pw := range passwords {
		r, ok := byName[name]
		if !ok {
			t.Errorf("%s not in the batch", name)
			continue
		}
		if r.Document.Status != kb.StatusFailed || !strings.Contains(r.Error, "password required") {
			t.Errorf("%s without password: %s %q", name, r.Document.Status, r.Error)
			continue
		}
		rr, err := in.Retry(ctx, r.Document.ID, pw, nil)
		if err != nil || rr.Document.Status != kb.StatusReady {
			t.Errorf("%s with password %q: %+v %v", name, pw, rr, err)
		}
	}
	if probs, err := k.Integrity(ctx); err != nil || len(probs) > 0 {
		t.Errorf("integrity: %v %v", probs, err)
	}
	rep, err := k.CheckBlobs(ctx, 0)
	if err != nil || len(rep.Missing) > 0 || len(rep.Orphans) > 0 {
		t.Errorf("blob store: %+v %v", rep, err)
	}
}

// TestBadNeedsOCR: pages whose fonts have no Unicode mapping fall back to OCR, and degenerate or huge inputs
// get through OCR without a crash.
func TestBadNeedsOCR(t *testing.T) {
	needTool(t, "tesseract")
	in, k := newIngester(t, Options{OCR: engOCR(), OCRDPI: 150})
	cases := map[string]struct {
		path     []string
		wantText bool
	}{
		"truetype without mapping": {[]string{"bad", "pdf", "ocrmypdf", "truetype_font_nomapping.pdf"}, true},
		"type3 without mapping":    {[]string{"bad", "pdf", "ocrmypdf", "type3_font_nomapping.pdf"}, true},
		"161x1 jpeg":               {[]string{"bad", "image", "debian", "empty.jpg"}, false},
		"1.2 Gpx jbig2 page":       {[]string{"bad", "pdf", "ocrmypdf", "hugemono.pdf"}, false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := addOne(t, in, "ocr", testdata(t, c.path...))
			if r.Document.Status != kb.StatusReady {
				t.Fatalf("%s: %s", r.Document.Status, r.Error)
			}
			u := units(t, k, r.Document.ID)[0]
			if c.wantText && (u.TextSource != kb.TextOCR || len(u.Words) == 0) {
				t.Fatalf("text %s %q: want OCR text with words", u.TextSource, u.Text)
			}
		})
	}
}
