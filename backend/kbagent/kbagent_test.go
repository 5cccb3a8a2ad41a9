package kbagent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/color"
	"math"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/imagefile"
	"proofglass/backend/kb"
	"proofglass/backend/search"
	"proofglass/backend/vision"
)

const testPDF = "pdf/real/blood_loss_report.pdf"

func TestRetrieverMapsHits(t *testing.T) {
	k := openKB(t)
	d, ids := addPDF(t, k, pdfClient(t), "papers", testdata(t, testPDF))
	r := &Retriever{Searcher: search.New(k, search.Options{}), Base: search.Query{Mode: search.BM25, Collections: []string{"papers"}}}
	hits, err := r.Search(context.Background(), "sample size calculation", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || len(hits) > 3 {
		t.Fatalf("%d hits, want 1..3", len(hits))
	}
	h := hits[0]
	if h.DocumentID != ID(d.ID) || h.DocumentName != "blood_loss_report.pdf" || h.Kind != "pdf" {
		t.Fatalf("hit document fields: %+v", h.Hit)
	}
	// pdftotext shows "Sample Size Calculation" is a heading of page 1 of this report.
	if h.Page != 1 || h.UnitID != ID(ids[0]) {
		t.Fatalf("best hit page %d unit %s, want page 1 unit %d", h.Page, h.UnitID, ids[0])
	}
	if _, ok := h.Scores["bm25"]; !ok || h.Score <= 0 {
		t.Fatalf("scores %v score %v", h.Scores, h.Score)
	}
	if _, err := r.Search(context.Background(), "x", 3); err != nil {
		t.Fatalf("a query with no hits must not fail: %v", err)
	}
}

func TestRendererPDFPage(t *testing.T) {
	r, u, info := firstPDFPage(t)
	ctx := context.Background()
	// A4 is 595.28 x 841.89 pt: at 200 DPI 1653.6 x 2338.6 px.
	if info.Size != (vision.Size{W: 1654, H: 2339}) || !info.Vector {
		t.Fatalf("page info %+v", info)
	}
	cases := map[string]struct {
		region vision.Rect
		out    vision.Size
	}{
		"whole page at VRAG size":  {vision.Rect{}, vision.VRAGSize(info.Size)},
		"top band upscaled 3x":     {vision.Rect{X0: 100, Y0: 100, X1: 700, Y1: 300}, vision.Size{W: 1800, H: 600}},
		"odd region odd size":      {vision.Rect{X0: 333.3, Y0: 1000.7, X1: 900.2, Y1: 1403.9}, vision.Size{W: 517, H: 367}},
		"region past the page end": {vision.Rect{X0: 1500, Y0: 2200, X1: 1800, Y1: 2500}, vision.Size{W: 154, H: 139}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			img, err := r.Render(ctx, u, tc.region, tc.out)
			if err != nil {
				t.Fatal(err)
			}
			if got := vision.SizeOf(img); got != tc.out {
				t.Fatalf("rendered %v, want exactly %v", got, tc.out)
			}
		})
	}
	// The clip must land where the title is: the title band of page 1 holds dark text, not a blank margin.
	img, err := r.Render(ctx, u, vision.Rect{X0: 150, Y0: 150, X1: 1500, Y1: 450}, vision.Size{W: 1350, H: 300})
	if err != nil {
		t.Fatal(err)
	}
	if dark := darkShare(img); dark < 0.01 || dark > 0.5 {
		t.Fatalf("title band has %.3f dark pixels: the clip is not where the title is", dark)
	}
	if _, err := r.Render(ctx, u, vision.Rect{X0: 2000, Y0: 2000, X1: 2100, Y1: 2100}, vision.Size{W: 10, H: 10}); err == nil {
		t.Fatal("a region outside the page must fail")
	}
	if _, err := r.PageInfo(ctx, "999999"); err == nil {
		t.Fatal("unknown unit must fail")
	}
}

func darkShare(img image.Image) float64 {
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if g := color.GrayModel.Convert(img.At(x, y)).(color.Gray); g.Y < 96 {
				n++
			}
		}
	}
	return float64(n) / float64(b.Dx()*b.Dy())
}

func TestRendererImageUnit(t *testing.T) {
	k := openKB(t)
	ctx := context.Background()
	res, err := imagefile.ProcessFile(testdata(t, "images/charts/bkf_plot.png"), imagefile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := addImageUnit(t, k, "bkf_plot.png", "", "", res)
	r := &Renderer{KB: k}
	info, err := r.PageInfo(ctx, ID(id))
	if err != nil {
		t.Fatal(err)
	}
	if info.Size != (vision.Size{W: res.NormalW, H: res.NormalH}) || info.Vector {
		t.Fatalf("image info %+v, stored %dx%d", info, res.NormalW, res.NormalH)
	}
	half := vision.Rect{X1: float64(info.Size.W) / 2, Y1: float64(info.Size.H)}
	img, err := r.Render(ctx, ID(id), half, vision.Size{W: 300, H: 200})
	if err != nil {
		t.Fatal(err)
	}
	if vision.SizeOf(img) != (vision.Size{W: 300, H: 200}) {
		t.Fatalf("rendered %v", vision.SizeOf(img))
	}
	full, err := r.Render(ctx, ID(id), vision.Rect{}, info.Size)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := vision.Decode(res.Normal)
	if !sameImage(full, want) {
		t.Fatal("whole image at its own size must be the stored pixels")
	}
}

func sameImage(a, b image.Image) bool {
	if vision.SizeOf(a) != vision.SizeOf(b) {
		return false
	}
	ab, bb := a.Bounds(), b.Bounds()
	for y := 0; y < ab.Dy(); y += 7 {
		for x := 0; x < ab.Dx(); x += 7 {
			r1, g1, b1, _ := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, _ := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			// The renderer keeps decoded pages as RGBA; YCbCr→RGB rounding may differ by a level.
			if diff(r1, r2) > 2*257 || diff(g1, g2) > 2*257 || diff(b1, b2) > 2*257 {
				return false
			}
		}
	}
	return true
}

func diff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

func TestFramesSampling(t *testing.T) {
	k := openKB(t)
	ctx := context.Background()
	col, _ := k.Docs.EnsureCollection(ctx, "videos")
	d, _, err := k.Docs.AddDocument(ctx, kb.Document{CollectionID: col.ID, SHA256: "v1", Name: "clip.mp4", Kind: "video", Status: kb.StatusReady, Pages: 2})
	if err != nil {
		t.Fatal(err)
	}
	frame := image.NewRGBA(image.Rect(0, 0, 64, 48))
	data, err := vision.EncodeJPEG(frame, 80)
	if err != nil {
		t.Fatal(err)
	}
	blob, _ := k.Blobs.Put(data)
	id, err := k.Content.PutUnit(ctx, kb.Unit{DocumentID: d.ID, Ordinal: 2, Kind: kb.UnitClip, Width: 64, Height: 48, TStartMS: 60000, TEndMS: 120000, ImageBlob: blob})
	if err != nil {
		t.Fatal(err)
	}
	var fs []kb.Frame
	for ms := int64(60000); ms < 120000; ms += 500 { // 2 fps stored
		fs = append(fs, kb.Frame{TMS: ms, Blob: blob})
	}
	if err := k.Content.PutFrames(ctx, id, fs); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		fps          float64
		max, want    int
		first, lastS float64
	}{
		"1 fps capped at 32": {1, 32, 32, 0, 58},
		"1 fps uncapped":     {1, 100, 60, 0, 59},
		"every frame":        {0, 0, 120, 0, 59.5},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := (&Frames{KB: k}).Frames(ctx, ID(id), c.fps, c.max)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != c.want || got[0].TimestampS != c.first || math.Abs(got[len(got)-1].TimestampS-c.lastS) > 1e-9 {
				t.Fatalf("%d frames from %.1f to %.1f s", len(got), got[0].TimestampS, got[len(got)-1].TimestampS)
			}
			if vision.SizeOf(got[0].Image) != (vision.Size{W: 64, H: 48}) {
				t.Fatal("frame image size")
			}
		})
	}
}

func TestRecorderStoresRun(t *testing.T) {
	k := openKB(t)
	ctx := context.Background()
	run, err := k.History.CreateRun(ctx, kb.Run{Question: "q", Mode: "vimrag"})
	if err != nil {
		t.Fatal(err)
	}
	var passed []agent.Event
	rec := NewRecorder(ctx, k, run.ID, func(ev agent.Event) { passed = append(passed, ev) })
	blobs := &Blobs{KB: k, RunID: run.ID}
	data := []byte("crop bytes")
	sum := sha256.Sum256(data)
	if err := blobs.PutBlob(ctx, hex.EncodeToString(sum[:]), "image/jpeg", data); err != nil {
		t.Fatal(err)
	}
	if err := blobs.PutBlob(ctx, "00", "image/jpeg", data); err == nil {
		t.Fatal("a blob id that is not the data's hash must be refused")
	}
	evs := []agent.Event{
		{Seq: 1, Kind: agent.KindRunStarted, Run: &agent.RunInfo{Mode: "vimrag", Question: "q"}},
		{Seq: 2, Step: 1, Kind: agent.KindMemorize, Memorize: &agent.MemorizeInfo{NodeID: "n1", Summary: "s",
			Items: []agent.MemoryItem{{InformationID: "Picture 1", Useful: true, Priority: 4, Kept: true}}}},
		{Seq: 3, Step: 1, Kind: agent.KindGraph, Graph: &agent.GraphInfo{Nodes: []agent.GraphNode{
			{ID: "root", Type: "root"}, {ID: "n1", Type: "search", Parents: []string{"root"}, Query: "qq", Summary: "s"},
			{ID: "a", Type: "answer", Parents: []string{"n1"}, Answer: "42"}}}},
		{Seq: 4, Step: 2, Kind: agent.KindAnswer, Answer: &agent.AnswerInfo{Text: "42", Citations: []agent.Citation{}}},
		{Seq: 5, Step: 2, Kind: agent.KindDone, Done: &agent.DoneInfo{Status: agent.StatusCancelled, Usage: agent.Usage{Steps: 2}}},
	}
	for _, ev := range evs {
		rec.Sink(ev)
	}
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	if len(passed) != len(evs) {
		t.Fatalf("passed on %d events", len(passed))
	}
	got, err := Events(ctx, k, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[1].Memorize.Items[0].Priority != 4 || got[3].Answer.Text != "42" {
		t.Fatalf("stored events: %+v", got)
	}
	nodes, err := k.History.GraphNodes(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 3 || nodes[1].Query != "qq" || nodes[2].Summary != "42" {
		t.Fatalf("graph nodes %+v", nodes)
	}
	var items []agent.MemoryItem
	if err := json.Unmarshal(nodes[1].Items, &items); err != nil || len(items) != 1 || !items[0].Kept {
		t.Fatalf("node items %s: %v", nodes[1].Items, err)
	}
	r, err := k.History.Run(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var u agent.Usage
	_ = json.Unmarshal(r.Usage, &u)
	if r.Status != "cancelled" || r.Answer != "42" || u.Steps != 2 || r.FinishedAt.IsZero() {
		t.Fatalf("run row %+v", r)
	}
	// Storing the same event twice is a storage error the recorder reports (the run goes on).
	rec.Sink(evs[0])
	if rec.Err() == nil {
		t.Fatal("duplicate seq not reported")
	}
	runs, err := k.History.Runs(ctx, 0)
	if err != nil || len(runs) != 1 || runs[0].ID != run.ID {
		t.Fatalf("runs %+v %v", runs, err)
	}
}
