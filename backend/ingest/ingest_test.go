package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"proofglass/backend/fixture"
	"proofglass/backend/kb"
	"proofglass/backend/kb/kbtest"
	"proofglass/backend/media"
	"proofglass/backend/ocr"
	"proofglass/backend/search"
)

func needTool(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		fixture.Command(t, n)
	}
}

// engOCR is tesseract with English only: the test files are English, and one language is faster.
func engOCR() *ocr.Engine { return ocr.New(ocr.Options{Languages: []string{"eng"}}) }

// collect gathers progress events safely.
type collect struct {
	mu     sync.Mutex
	events []Progress
}

func (c *collect) fn(p Progress) {
	c.mu.Lock()
	c.events = append(c.events, p)
	c.mu.Unlock()
}

func (c *collect) stages(doc int64, stage string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, e := range c.events {
		if e.DocumentID == doc && e.Stage == stage {
			n++
		}
	}
	return n
}

func addOne(t *testing.T, in *Ingester, coll, path string) Result {
	t.Helper()
	res, err := in.Add(context.Background(), coll, []string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 {
		t.Fatalf("%d results for one file", len(res))
	}
	return res[0]
}

func units(t *testing.T, k *kb.KB, doc int64) []kb.Unit {
	t.Helper()
	us, err := k.Content.Units(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	return us
}

func TestTextPDF(t *testing.T) {
	in, k := newIngester(t, Options{NoOCR: true})
	path := testdata(t, "pdf", "real", "hsaur3-Ch_analysis_of_variance.pdf")
	var c collect
	res, err := in.Add(context.Background(), "books", []string{path}, c.fn)
	if err != nil {
		t.Fatal(err)
	}
	d := res[0].Document
	if d.Status != kb.StatusReady || d.Pages != 13 || d.Kind != "pdf" {
		t.Fatalf("document = %+v, want ready pdf with 13 pages", d)
	}
	us := units(t, k, d.ID)
	if len(us) != 13 {
		t.Fatalf("%d units, want 13", len(us))
	}
	for _, u := range us {
		if u.Width < 400 || u.Width > 700 || u.ThumbBlob == "" || !k.Blobs.Has(u.ThumbBlob) {
			t.Errorf("page %d: width %.0f pt, thumb %q: want a page size in points and a stored thumbnail", u.Ordinal, u.Width, u.ThumbBlob)
		}
	}
	p9 := us[8]
	if !strings.Contains(p9.Text, "Hotelling-Lawley") || p9.TextSource != kb.TextLayer {
		t.Errorf("page 9 text (%s) lacks Hotelling-Lawley: %.200q", p9.TextSource, p9.Text)
	}
	// Word boxes are in points, inside the page.
	for _, w := range p9.Words {
		if w.X0 < 0 || w.Y0 < 0 || w.X1 > p9.Width+1 || w.Y1 > p9.Height+1 || w.X1 <= w.X0 {
			t.Fatalf("word %+v outside page %.0fx%.0f pt", w, p9.Width, p9.Height)
		}
	}
	if strings.Contains(us[0].Text, "Hotelling") {
		t.Errorf("page 1 holds page 9's text")
	}
	if n := c.stages(d.ID, StageDone); n != 1 {
		t.Errorf("%d done events, want 1", n)
	}
	if last := c.events[len(c.events)-1]; last.Done != 13 || last.Total != 13 {
		t.Errorf("last event %+v, want done 13 of 13", last)
	}
	vecs := kbtest.CountVectors(t, k, kbtest.Embeddings{Document: d.ID})
	steps, err := k.Content.Steps(context.Background(), d.ID)
	if err != nil {
		t.Fatal(err)
	}
	var embedded, recorded int
	for _, s := range steps {
		if s.Stage == StageEmbed {
			recorded++
			if s.Status == "done" {
				embedded++
			}
		}
	}
	if recorded != 13 || vecs != embedded || vecs < 12 {
		t.Errorf("%d vectors, %d embed steps done of %d recorded: want one per page with text", vecs, embedded, recorded)
	}
	s := search.New(k, search.Options{})
	for _, mode := range []search.Mode{search.BM25, search.Dense, search.Hybrid} {
		r, err := s.Search(context.Background(), search.Query{Text: "Hotelling-Lawley test mean vector water hardness mortality", K: 3, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range r.Hits {
			found = found || h.Page == 9
		}
		if !found {
			t.Errorf("%s search: page 9 not in the top 3: %+v", mode, r.Hits)
		}
	}
}

func TestScannedPDFUsesOCR(t *testing.T) {
	needTool(t, "tesseract")
	in, k := newIngester(t, Options{OCR: engOCR()})
	r := addOne(t, in, "scans", testdata(t, "pdf", "scanned", "skew.pdf"))
	if r.Document.Status != kb.StatusReady {
		t.Fatalf("status %s: %s", r.Document.Status, r.Error)
	}
	u := units(t, k, r.Document.ID)[0]
	if u.TextSource != kb.TextOCR || !strings.Contains(u.Text, "LinnSequencer") {
		t.Fatalf("page text (%s) = %.200q, want OCR text with LinnSequencer", u.TextSource, u.Text)
	}
	// OCR boxes are converted from render pixels to points: they lie within the page.
	if len(u.Words) == 0 {
		t.Fatal("no word boxes")
	}
	for _, w := range u.Words {
		if w.X1 > u.Width+1 || w.Y1 > u.Height+1 {
			t.Fatalf("word %+v outside page %.0fx%.0f pt: not converted to points", w, u.Width, u.Height)
		}
	}
	res, err := search.New(k, search.Options{}).Search(context.Background(), search.Query{Text: "LinnSequencer", Mode: search.BM25})
	if err != nil || len(res.Hits) != 1 || len(res.Hits[0].Boxes) == 0 {
		t.Fatalf("search = %+v, %v: want the OCRed page with a hit box", res, err)
	}
}

func TestCJKPDF(t *testing.T) {
	in, k := newIngester(t, Options{NoOCR: true})
	r := addOne(t, in, "zh", testdata(t, "pdf", "cjk", "zhlipsum.pdf"))
	if r.Document.Status != kb.StatusReady || r.Document.Pages != 15 {
		t.Fatalf("document %+v: %s", r.Document, r.Error)
	}
	res, err := search.New(k, search.Options{}).Search(context.Background(), search.Query{Text: "预定义假文", Mode: search.BM25, K: 3})
	if err != nil {
		t.Fatal(err)
	}
	// The three pages that hold the phrase as written (the table of predefined texts, their declaration, the change
	// log) come first, before the pages that have only its characters apart.
	pages := map[int]bool{}
	for _, h := range res.Hits {
		pages[h.Page] = true
	}
	if len(res.Hits) != 3 || !pages[3] || !pages[12] || !pages[13] {
		t.Fatalf("search 预定义假文 = %+v, want pages 3, 12 and 13", res.Hits)
	}
}

func TestImages(t *testing.T) {
	needTool(t, "tesseract")
	in, k := newIngester(t, Options{OCR: engOCR()})
	res, err := in.Add(context.Background(), "img", []string{
		testdata(t, "images", "exif-orientation", "hopper_orientation_6.jpg"),
		testdata(t, "pdf", "scanned", "typewriter.png"),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Document.Status != kb.StatusReady || r.Document.Kind != "image" {
			t.Fatalf("%s: %+v %s", r.Path, r.Document, r.Error)
		}
	}
	hop := units(t, k, res[0].Document.ID)[0]
	meta := ParseMeta(res[0].Document.Meta)
	if meta.Orientation != 6 || hop.ImageBlob == "" || hop.ThumbBlob == "" {
		t.Fatalf("hopper: meta %+v unit %+v: want orientation 6 applied, image and thumbnail stored", meta, hop)
	}
	// Orientation 6 turns the stored landscape pixels upright (portrait, or square at worst).
	if meta.Height < meta.Width {
		t.Errorf("hopper upright size %dx%d is landscape", meta.Width, meta.Height)
	}
	tw := units(t, k, res[1].Document.ID)[0]
	if tw.TextSource != kb.TextOCR || len(tw.Words) == 0 {
		t.Fatalf("typewriter: %s text, %d words", tw.TextSource, len(tw.Words))
	}
	for _, w := range tw.Words {
		if w.X1 > tw.Width+1 || w.Y1 > tw.Height+1 {
			t.Fatalf("word %+v outside image %.0fx%.0f", w, tw.Width, tw.Height)
		}
	}
}

func TestVideoClips(t *testing.T) {
	needTool(t, "tesseract", "ffmpeg", "ffprobe")
	// Keyframes every 6 s keep the test short; 12 s is one of them.
	in, k := newIngester(t, Options{OCR: engOCR(), Media: media.Options{ClipSeconds: 30, FPS: 1.0 / 6}})
	r := addOne(t, in, "video", testdata(t, "video", "mwe-example-movie.mp4"))
	if r.Document.Status != kb.StatusReady || r.Document.Kind != "video" {
		t.Fatalf("%+v: %s", r.Document, r.Error)
	}
	if r.Document.DurationMS < 60000 || r.Document.Pages < 2 {
		t.Fatalf("duration %d ms, %d clips: want 61 s in at least 2 clips", r.Document.DurationMS, r.Document.Pages)
	}
	us := units(t, k, r.Document.ID)
	first := us[0]
	if first.Kind != kb.UnitClip || first.TStartMS != 0 || first.TEndMS != 30000 || first.ImageBlob == "" {
		t.Fatalf("first clip %+v", first)
	}
	frames, err := k.Content.Frames(context.Background(), first.ID)
	if err != nil {
		t.Fatal(err)
	}
	var at12 *kb.Frame
	for i := range frames {
		if frames[i].TMS == 12000 {
			at12 = &frames[i]
		}
	}
	if at12 == nil || !strings.Contains(at12.Text, "00:12") || !k.Blobs.Has(at12.Blob) {
		t.Fatalf("frames %+v: want a stored keyframe at 12 s reading 00:12", frames)
	}
	if !strings.Contains(first.Text, "[00:12]") {
		t.Errorf("clip text lacks the [00:12] stamp: %q", first.Text)
	}
}

func TestDedupeAndDelete(t *testing.T) {
	in, k := newIngester(t, Options{NoOCR: true})
	ctx := context.Background()
	a := testdata(t, "bad", "pdf", "debian", "shattered-1.pdf")
	b := testdata(t, "bad", "pdf", "debian", "shattered-2.pdf")
	// A copy under another name is the same content.
	cp := filepath.Join(t.TempDir(), "copy.pdf")
	data, _ := os.ReadFile(a)
	os.WriteFile(cp, data, 0o644)

	res, err := in.Add(ctx, "c1", []string{a, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Document.ID == res[1].Document.ID || res[0].Existed || res[1].Existed {
		t.Fatalf("SHA-1 collision pair deduplicated: %+v", res)
	}
	var c collect
	again, _ := in.Add(ctx, "c1", []string{cp}, c.fn)
	if !again[0].Existed || again[0].Document.ID != res[0].Document.ID {
		t.Fatalf("same content again = %+v, want existed as document %d", again[0], res[0].Document.ID)
	}
	if len(c.events) != 1 || c.events[0].Stage != StageExists {
		t.Fatalf("events %+v, want one exists event", c.events)
	}
	other, _ := in.Add(ctx, "c2", []string{cp}, nil)
	if other[0].Existed || other[0].Document.Status != kb.StatusReady {
		t.Fatalf("other collection: %+v, want a new document", other[0])
	}
	orig := res[0].Document.Blob
	thumbs := units(t, k, res[0].Document.ID)[0].ThumbBlob
	if err := in.Delete(ctx, res[0].Document.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Docs.Document(ctx, res[0].Document.ID); err == nil {
		t.Fatal("document still there after delete")
	}
	if !k.Blobs.Has(orig) || !k.Blobs.Has(thumbs) {
		t.Fatal("delete removed blobs that the c2 copy still uses")
	}
	if err := in.Delete(ctx, other[0].Document.ID); err != nil {
		t.Fatal(err)
	}
	if k.Blobs.Has(orig) || k.Blobs.Has(thumbs) {
		t.Fatal("blobs left after the last document using them was deleted")
	}
	if want := kbtest.CountRows(t, k, "units"); want != 1 {
		t.Fatalf("%d units left, want only shattered-2's page", want)
	}
}

func TestPasswordAndRetry(t *testing.T) {
	in, k := newIngester(t, Options{NoOCR: true})
	ctx := context.Background()
	path := testdata(t, "bad", "pdf", "debian", "a-text-pass-peanuts.pdf")
	r := addOne(t, in, "locked", path)
	if r.Document.Status != kb.StatusFailed || !strings.Contains(r.Error, "password required") ||
		!strings.Contains(r.Error, "a-text-pass-peanuts.pdf") || strings.Contains(r.Error, "blobs") {
		t.Fatalf("without password: %+v %q", r.Document, r.Error)
	}
	if !ParseMeta(r.Document.Meta).NeedsPassword {
		t.Error("meta does not say a password is needed")
	}
	if wrong, _ := in.Retry(ctx, r.Document.ID, "nuts", nil); !strings.Contains(wrong.Error, "wrong") {
		t.Errorf("wrong password: %q", wrong.Error)
	}
	ok, err := in.Retry(ctx, r.Document.ID, "peanuts", nil)
	if err != nil || ok.Document.Status != kb.StatusReady || len(units(t, k, r.Document.ID)) == 0 {
		t.Fatalf("retry with password: %+v %v", ok, err)
	}
	if in.Password(ok.Document) != "peanuts" {
		t.Error("password not remembered for later renders")
	}
	// Adding the file again with a password retries nothing: it is ready.
	res, _ := in.AddRequest(ctx, Request{Collection: "locked", Paths: []string{path}, Password: "peanuts"}, nil)
	if !res[0].Existed {
		t.Errorf("ready document re-added: %+v", res[0])
	}
}

func TestSameContentTwiceInOneBatch(t *testing.T) {
	in, k := newIngester(t, Options{NoOCR: true})
	a := testdata(t, "pdf", "real", "hsaur3-Ch_analysis_of_variance.pdf")
	cp := filepath.Join(t.TempDir(), "again.pdf")
	data, _ := os.ReadFile(a)
	os.WriteFile(cp, data, 0o644)
	res, err := in.Add(context.Background(), "c", []string{a, cp}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Document.ID != res[1].Document.ID || res[0].Existed == res[1].Existed {
		t.Fatalf("results %+v: want one document, ingested once and reported once as existing", res)
	}
	if n := len(units(t, k, res[0].Document.ID)); n != 13 {
		t.Fatalf("%d units, want 13", n)
	}
	d, _ := k.Docs.Document(context.Background(), res[0].Document.ID)
	if d.Status != kb.StatusReady {
		t.Fatalf("status %s", d.Status)
	}
}

// TestBatchRegistersDocumentsInOrder checks that the files of one Add (and of one AddFound, a watched folder's)
// become documents in the order given, whatever order their reading and storing finish in (large photos first,
// small charts after), and that a file that fails before registering does not hold up the ones after it.
func TestBatchRegistersDocumentsInOrder(t *testing.T) {
	ctx := context.Background()
	files := []string{
		testdata(t, "images", "large", "large-6000x4500-27MP.jpg"),
		testdata(t, "images", "photos", "IMG_20200124_231153.jpg"),
		testdata(t, "images", "charts", "bkf_plot.png"),
		testdata(t, "images", "charts", "cff_plot.png"),
		testdata(t, "pdf", "real", "hsaur3-Ch_analysis_of_variance.pdf"),
		testdata(t, "images", "charts", "fairs_data.png"),
	}
	inOrder := func(t *testing.T, res []Result, paths []string, missing int) {
		t.Helper()
		var last int64
		for i, r := range res {
			if i == missing {
				if r.Error == "" || r.Document.ID != 0 {
					t.Errorf("missing file: %+v, want an error and no document", r)
				}
				continue
			}
			if r.Error != "" || r.Document.ID == 0 {
				t.Fatalf("%s: %+v", paths[i], r)
			}
			if r.Document.ID <= last {
				t.Errorf("%s is document %d, after document %d: ids out of the given order", filepath.Base(paths[i]), r.Document.ID, last)
			}
			last = r.Document.ID
		}
	}
	t.Run("add", func(t *testing.T) {
		in, _ := newIngester(t, Options{NoOCR: true})
		res, err := in.Add(ctx, "order", files, nil)
		if err != nil {
			t.Fatal(err)
		}
		inOrder(t, res, files, -1)
	})
	t.Run("found", func(t *testing.T) {
		in, _ := newIngester(t, Options{NoOCR: true})
		paths := append(append(append([]string{}, files[:2]...), filepath.Join(t.TempDir(), "gone.png")), files[2:]...)
		res, err := in.AddFound(ctx, Request{Collection: "order", Paths: paths}, nil)
		if err != nil {
			t.Fatal(err)
		}
		inOrder(t, res, paths, 2)
	})
}
