package agent

import (
	"context"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"proofglass/backend/fixture"
	"proofglass/backend/model"
	"proofglass/backend/vision"
)

func testdata(t testing.TB) string { return fixture.Dir(t) }

func sharedReference(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "reference", "vrag.md")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("reference brief not found at %s: %v", p, err)
	}
	return p
}

const (
	testPDF = "pdf/real/blood_loss_report.pdf"
	testDPI = 100 // raw page resolution in these tests: A4 → 827x1170
)

var (
	pagesOnce sync.Once
	pagesImgs []image.Image
	pagesErr  error
)

// pdfPages renders the first pages of a real PDF with poppler's pdftoppm, once per test binary.
func pdfPages(t testing.TB) []image.Image {
	t.Helper()
	dir := testdata(t)
	fixture.Command(t, "pdftoppm")
	pagesOnce.Do(func() {
		out, err := os.MkdirTemp("", "agent-pages-")
		if err != nil {
			pagesErr = err
			return
		}
		defer os.RemoveAll(out)
		cmd := exec.Command("pdftoppm", "-r", strconv.Itoa(testDPI), "-png", "-f", "1", "-l", "4",
			filepath.Join(dir, testPDF), filepath.Join(out, "p"))
		if b, err := cmd.CombinedOutput(); err != nil {
			pagesErr = fmt.Errorf("pdftoppm: %v: %s", err, b)
			return
		}
		for i := 1; i <= 4; i++ {
			data, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("p-%02d.png", i)))
			if err != nil {
				data, err = os.ReadFile(filepath.Join(out, fmt.Sprintf("p-%d.png", i)))
			}
			if err != nil {
				pagesErr = err
				return
			}
			img, err := vision.Decode(data)
			if err != nil {
				pagesErr = err
				return
			}
			pagesImgs = append(pagesImgs, img)
		}
	})
	if pagesErr != nil {
		t.Fatalf("render test pages: %v", pagesErr)
	}
	return pagesImgs
}

// pageKB is a tiny knowledge base over real rendered PDF pages: a Retriever whose ranking is scripted per query and
// a PageRenderer that cuts the stored pixels, or, with vector set, re-renders the region from the PDF.
type pageKB struct {
	t      testing.TB
	pages  []image.Image
	vector bool
	rank   map[string][]int // query → 1-based pages, best first
	mu     sync.Mutex
	calls  []renderCall
	// searchHook runs inside Search (to cancel mid-run, for instance).
	searchHook func(ctx context.Context, query string)
}

type renderCall struct {
	Unit   string
	Region vision.Rect
	Out    vision.Size
}

func newPageKB(t testing.TB) *pageKB {
	return &pageKB{t: t, pages: pdfPages(t), rank: map[string][]int{}}
}

func unitID(page int) string { return fmt.Sprintf("u%d", page) }

func pageOf(unit string) (int, error) {
	var n int
	if _, err := fmt.Sscanf(unit, "u%d", &n); err != nil {
		return 0, fmt.Errorf("unknown unit %q", unit)
	}
	return n, nil
}

func (k *pageKB) hit(page int, score float64) SearchHit {
	return SearchHit{Hit: Hit{UnitID: unitID(page), DocumentID: "d1", DocumentName: "blood_loss_report.pdf", Kind: "pdf",
		Page: page, Score: score}, Text: fmt.Sprintf("text of page %d", page)}
}

func (k *pageKB) Search(ctx context.Context, query string, n int) ([]SearchHit, error) {
	if k.searchHook != nil {
		k.searchHook(ctx, query)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []SearchHit
	for i, p := range k.rank[query] {
		if i == n {
			break
		}
		out = append(out, k.hit(p, 1/float64(i+1)))
	}
	return out, nil
}

func (k *pageKB) PageInfo(_ context.Context, unit string) (PageInfo, error) {
	p, err := pageOf(unit)
	if err != nil || p < 1 || p > len(k.pages) {
		return PageInfo{}, fmt.Errorf("unit %q: no such page", unit)
	}
	return PageInfo{Size: vision.SizeOf(k.pages[p-1]), Vector: k.vector}, nil
}

func (k *pageKB) Render(ctx context.Context, unit string, region vision.Rect, out vision.Size) (image.Image, error) {
	info, err := k.PageInfo(ctx, unit)
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	k.calls = append(k.calls, renderCall{unit, region, out})
	k.mu.Unlock()
	p, _ := pageOf(unit)
	if region == (vision.Rect{}) {
		region = vision.Full(info.Size)
	}
	if k.vector {
		return k.renderPDF(p, region, out)
	}
	return vision.Resize(vision.Crop(k.pages[p-1], region), out), nil
}

// renderPDF re-renders a region of the PDF page at the resolution out needs (a true zoom).
func (k *pageKB) renderPDF(page int, region vision.Rect, out vision.Size) (image.Image, error) {
	scale := float64(out.W) / region.W()
	dpi := testDPI * scale
	dir := k.t.(interface{ TempDir() string }).TempDir()
	x, y := int(region.X0*scale), int(region.Y0*scale)
	cmd := exec.Command("pdftoppm", "-r", strconv.FormatFloat(dpi, 'f', 3, 64), "-png", "-singlefile",
		"-f", strconv.Itoa(page), "-l", strconv.Itoa(page),
		"-x", strconv.Itoa(x), "-y", strconv.Itoa(y), "-W", strconv.Itoa(out.W), "-H", strconv.Itoa(out.H),
		filepath.Join(testdata(k.t), testPDF), filepath.Join(dir, "zoom"))
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pdftoppm zoom: %v: %s", err, b)
	}
	data, err := os.ReadFile(filepath.Join(dir, "zoom.png"))
	if err != nil {
		return nil, err
	}
	img, err := vision.Decode(data)
	if err != nil {
		return nil, err
	}
	return vision.Resize(img, out), nil
}

func text(s string) model.Delta { return model.Delta{Content: s} }

// recorder collects events.
type recorder struct {
	mu  sync.Mutex
	evs []Event
}

func (r *recorder) sink(ev Event) {
	r.mu.Lock()
	r.evs = append(r.evs, ev)
	r.mu.Unlock()
}

func (r *recorder) kinds() []Kind {
	var out []Kind
	for _, e := range r.evs {
		if e.Kind == KindThinking || e.Kind == KindContent {
			if len(out) > 0 && out[len(out)-1] == e.Kind {
				continue // deltas collapse: their count depends on chunking
			}
		}
		out = append(out, e.Kind)
	}
	return out
}

func (r *recorder) of(k Kind) []Event {
	var out []Event
	for _, e := range r.evs {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// imageSizes decodes the images of a message.
func imageSizes(t testing.TB, m model.Message) []vision.Size {
	t.Helper()
	var out []vision.Size
	for _, p := range m.Parts {
		if p.Image == nil {
			continue
		}
		img, err := vision.Decode(p.Image.Data)
		if err != nil {
			t.Fatalf("image in message does not decode: %v", err)
		}
		if p.Image.MIME != "image/jpeg" {
			t.Fatalf("image MIME %q", p.Image.MIME)
		}
		out = append(out, vision.SizeOf(img))
	}
	return out
}
