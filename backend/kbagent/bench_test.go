package kbagent

import (
	"context"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/kb"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/pdf"
	"proofglass/backend/search"
	"proofglass/backend/vision"
)

// BenchmarkAgentStep measures the agent's own work for one search step and one crop step, excluding the model:
// search, page info, render of the page at VRAG's size, JPEG encode; then the padded crop's render and encode.
// "pdf" renders through the MuPDF worker (a true zoom for the crop); "image-144dpi" cuts a page stored as a
// 144-DPI image. The baseline is the JPEG encode of the same page alone, measured in the same run; x-baseline is a
// tool step's time in baseline encodes (reported when the baseline ran).
func BenchmarkAgentStep(b *testing.B) {
	k := openKB(b)
	c := pdfClient(b)
	ctx := context.Background()
	_, ids := addPDF(b, k, c, "papers", testdata(b, testPDF))
	pr := pdf.NewRenderer(c, nil, 4) // no render cache: every step renders afresh
	// The same first page stored as a 144-DPI image unit.
	doc, err := c.Open(ctx, testdata(b, testPDF), "")
	if err != nil {
		b.Fatal(err)
	}
	rend, err := doc.Render(ctx, pdf.RenderRequest{Page: 0, DPI: 144, Format: pdf.JPEG, Quality: 90})
	doc.Close()
	if err != nil {
		b.Fatal(err)
	}
	blob, _ := k.Blobs.Put(rend.Data)
	col, _ := k.Docs.EnsureCollection(ctx, "images")
	d, _, _ := k.Docs.AddDocument(ctx, kb.Document{CollectionID: col.ID, SHA256: blob, Name: "page1.jpg", Kind: "image", Status: kb.StatusReady, Pages: 1})
	unit1, _ := k.Content.Unit(ctx, ids[0])
	imgID, err := k.Content.PutUnit(ctx, kb.Unit{DocumentID: d.ID, Ordinal: 1, Kind: kb.UnitImage, Width: float64(rend.Width), Height: float64(rend.Height),
		Text: unit1.Text, TextSource: kb.TextOCR, ImageBlob: blob})
	if err != nil {
		b.Fatal(err)
	}
	searcher := search.New(k, search.Options{})
	step := func(b *testing.B, coll string) {
		ret := &Retriever{Searcher: searcher, Base: search.Query{Mode: search.BM25, Collections: []string{coll}}}
		r := &Renderer{KB: k, PDF: pr}
		hits, err := ret.Search(ctx, "sample size calculation statistical power", 10)
		if err != nil || len(hits) == 0 {
			b.Fatalf("search: %v", err)
		}
		info, err := r.PageInfo(ctx, hits[0].UnitID)
		if err != nil {
			b.Fatal(err)
		}
		sent := vision.VRAGSize(info.Size)
		page, err := r.Render(ctx, hits[0].UnitID, vision.Rect{}, sent)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := vision.EncodeJPEGUnder(page, 0, vision.DefaultQuality); err != nil {
			b.Fatal(err)
		}
		enc, _ := vision.Qwen25VL.Resize(sent)
		region, err := vision.MapBBox(vision.View{Region: vision.Full(info.Size), Encoded: enc}, [4]float64{60, 90, 420, 300}, vision.CropPad)
		if err != nil {
			b.Fatal(err)
		}
		px := vision.PixelRect(region, info.Size)
		crop, err := r.Render(ctx, hits[0].UnitID, region, vision.VRAGSize(vision.Size{W: px.Dx(), H: px.Dy()}))
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := vision.EncodeJPEGUnder(crop, 0, vision.DefaultQuality); err != nil {
			b.Fatal(err)
		}
	}
	r := &Renderer{KB: k, PDF: pr}
	page, err := r.Render(ctx, ID(imgID), vision.Rect{}, vision.VRAGSize(vision.Size{W: rend.Width, H: rend.Height}))
	if err != nil {
		b.Fatal(err)
	}
	var baseline float64 // ns per encode, for the ratios
	b.Run("baseline-encode-only", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := vision.EncodeJPEGUnder(page, 0, vision.DefaultQuality); err != nil {
				b.Fatal(err)
			}
		}
		baseline = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	for name, coll := range map[string]string{"pdf": "papers", "image-144dpi": "images"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				step(b, coll)
			}
			perStep := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / 2
			b.ReportMetric(perStep/1e6, "ms/tool-step")
			if baseline > 0 {
				b.ReportMetric(perStep/baseline, "x-baseline")
			}
		})
	}
}

func toolCall(name, args string) string {
	return "<think>plan</think>\n<tool_call>\n{\"name\": \"" + name + "\", \"arguments\": " + args + "}\n</tool_call>"
}

// vimragScript is a recorded VimRAG turn sequence: three searches (each closed by a summary keeping some pages),
// then the answer.
var vimragScript = []string{
	toolCall("add_search_node", `{"id": "Loss", "parent_ids": ["root"], "query": "postpartum blood loss"}`),
	toolCall("summarize_and_memorize", `{"summarize": "Blood loss by mode of delivery.", "memorize": [
		{"information_id": "Picture 1", "is_useful": true, "key_timestamp": [], "priority_score": 5},
		{"information_id": "Picture 2", "is_useful": true, "key_timestamp": [], "priority_score": 3},
		{"information_id": "Picture 3", "is_useful": false, "key_timestamp": [], "priority_score": 1}]}`),
	toolCall("add_search_node", `{"id": "F13", "parent_ids": ["Loss"], "query": "factor XIII activity"}`),
	toolCall("summarize_and_memorize", `{"summarize": "F. XIII activity before delivery.", "memorize": [
		{"information_id": "Picture 1", "is_useful": true, "key_timestamp": [], "priority_score": 4},
		{"information_id": "Picture 2", "is_useful": false, "key_timestamp": [], "priority_score": 2},
		{"information_id": "Picture 3", "is_useful": false, "key_timestamp": [], "priority_score": 1}]}`),
	toolCall("add_search_node", `{"id": "Size", "parent_ids": ["root"], "query": "sample size calculation"}`),
	toolCall("summarize_and_memorize", `{"summarize": "1100 patients were needed.", "memorize": [
		{"information_id": "Picture 1", "is_useful": true, "key_timestamp": [], "priority_score": 4},
		{"information_id": "Picture 2", "is_useful": false, "key_timestamp": [], "priority_score": 1},
		{"information_id": "Picture 3", "is_useful": false, "key_timestamp": [], "priority_score": 1}]}`),
	toolCall("add_answer_node", `{"parent_ids": ["Loss", "F13", "Size"], "answer": "Lower F. XIII activity goes with more blood loss."}`),
}

// TestVimRAGVisualTokenSavings runs the recorded VimRAG turns over the real knowledge base and compares the visual
// tokens it sent with an agent that keeps every retrieved page in its context at full size (200 DPI, Qwen3-VL's
// processor) from the call after its retrieval on. The target is ≤ 0.2×.
func TestVimRAGVisualTokenSavings(t *testing.T) {
	k := openKB(t)
	c := pdfClient(t)
	_, _ = addPDF(t, k, c, "papers", testdata(t, testPDF))
	ctx := context.Background()
	d := Deps{KB: k, Search: search.New(k, search.Options{}), PDF: pdf.NewRenderer(c, nil, 4), Chat: modeltest.Replay(vimragScript...),
		Query: search.Query{Mode: search.BM25}}
	var evs []agent.Event
	runID, res, err := Ask(ctx, d, 0, agent.Config{Mode: agent.ModeVimRAG, Model: "qwen3-vl"}, "How does F. XIII relate to blood loss?",
		func(ev agent.Event) { evs = append(evs, ev) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != agent.StatusAnswered || res.Usage.Steps != len(vimragScript) {
		t.Fatalf("run %d: %+v", runID, res)
	}
	// Full-size baseline: each retrieved page costs its 200-DPI tokens in every model call after the one that
	// retrieved it (the context only grows).
	full := 0
	calls := res.Usage.Steps
	r := &Renderer{KB: k}
	seen := map[string]bool{}
	for _, ev := range evs {
		if ev.Kind != agent.KindResults {
			continue
		}
		for _, h := range ev.Results.Hits {
			if seen[h.UnitID] {
				continue
			}
			seen[h.UnitID] = true
			info, err := r.PageInfo(ctx, h.UnitID)
			if err != nil {
				t.Fatal(err)
			}
			full += vision.Qwen3VL.Tokens(info.Size) * (calls - ev.Step)
		}
	}
	sent := res.Usage.VisualTokens
	ratio := float64(sent) / float64(full)
	t.Logf("vimrag visual tokens sent %d over %d calls (%d images); every retrieved page at full size: %d; ratio %.3f (target <= 0.2)",
		sent, calls, res.Usage.Images, full, ratio)
	if sent == 0 || ratio > 0.2 {
		t.Fatalf("visual memory costs %d tokens against %d for full pages: ratio %.3f over the 0.2 target", sent, full, ratio)
	}
	nodes, err := k.History.GraphNodes(ctx, runID)
	if err != nil || len(nodes) != 5 {
		t.Fatalf("stored graph nodes %d: %v", len(nodes), err)
	}
}
