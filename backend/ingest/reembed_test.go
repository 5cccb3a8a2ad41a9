package ingest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"proofglass/backend/glove"
	"proofglass/backend/kb"
	"proofglass/backend/kb/kbtest"
	"proofglass/backend/model"
	"proofglass/backend/model/builtin"
	"proofglass/backend/search"
)

func TestPassageSpans(t *testing.T) {
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("w%d", i)
		}
		return strings.Join(w, " \n ")
	}
	cases := map[string]struct {
		text  string
		count int
	}{
		"empty":             {"", 0},
		"only spaces":       {" \n\t ", 0},
		"short":             {"  a few words here ", 1},
		"exactly a window":  {words(PassageWords), 1},
		"one more":          {words(PassageWords + 1), 2},
		"three windows":     {words(PassageWords + 2*PassageStride), 3},
		"ragged tail":       {words(PassageWords + PassageStride + 5), 3},
		"non-ascii spacing": {"été\u00a0année " + words(100), 3},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := passageSpans(c.text)
			if len(got) != c.count {
				t.Fatalf("%d passages, want %d: %v", len(got), c.count, got)
			}
			covered := map[string]bool{}
			for i, sp := range got {
				p := c.text[sp.start:sp.end]
				if strings.TrimSpace(p) != p || p == "" {
					t.Errorf("passage %d %q is not trimmed to words", i, p)
				}
				n := len(strings.Fields(p))
				if len(got) > 1 && n != PassageWords {
					t.Errorf("passage %d has %d words, want %d", i, n, PassageWords)
				}
				for _, w := range strings.Fields(p) {
					covered[w] = true
				}
			}
			if len(covered) != len(strings.Fields(c.text)) && !strings.Contains(name, "non-ascii") {
				t.Errorf("passages cover %d of %d words", len(covered), len(strings.Fields(c.text)))
			}
			if last := got; len(last) > 0 && last[len(last)-1].end != len(strings.TrimRight(c.text, " \n\t")) {
				t.Errorf("last passage ends at %d, text's last word at %d", last[len(last)-1].end, len(strings.TrimRight(c.text, " \n\t")))
			}
		})
	}
}

// half is a second embedder with another dimension: the first 50 dimensions of GloVe.
type half struct{ e model.Embedder }

func (half) ModelID() string      { return "test/glove-half" }
func (half) Dim() int             { return 50 }
func (half) SupportsImages() bool { return false }
func (h half) Embed(ctx context.Context, in []model.EmbedInput) ([][]float32, error) {
	vs, err := h.e.Embed(ctx, in)
	for i := range vs {
		vs[i] = vs[i][:50]
	}
	return vs, err
}

func testResolver(_ context.Context, id string) (model.Embedder, error) {
	switch id {
	case glove.ModelID:
		return builtin.New(), nil
	case "test/glove-half":
		return half{builtin.New()}, nil
	}
	return nil, fmt.Errorf("%s: %w", id, search.ErrNoEmbedder)
}

func TestIngestWritesPassages(t *testing.T) {
	in, k := newIngester(t, Options{NoOCR: true, Embedders: testResolver})
	r := addOne(t, in, "c", testdata(t, "pdf", "real", "hsaur3-Ch_analysis_of_variance.pdf"))
	us := units(t, k, r.Document.ID)
	long := 0
	for _, u := range us {
		ps, err := k.Content.Passages(context.Background(), u.ID, glove.ModelID)
		if err != nil {
			t.Fatal(err)
		}
		want := passageSpans(u.Text)
		if len(ps) > len(want) {
			t.Fatalf("page %d: %d passages for %d windows", u.Ordinal, len(ps), len(want))
		}
		if len(want) > 1 {
			long++
			if len(ps) < 2 {
				t.Errorf("page %d: %d words but %d passages", u.Ordinal, len(strings.Fields(u.Text)), len(ps))
			}
		}
		for _, p := range ps {
			if p.End > len(u.Text) || p.Start >= p.End || len(p.Vec) != glove.Dim {
				t.Errorf("page %d passage %d: %d..%d of %d bytes, %d dims", u.Ordinal, p.Ordinal, p.Start, p.End, len(u.Text), len(p.Vec))
			}
		}
	}
	if long == 0 {
		t.Fatal("no page longer than one passage: the test PDF does not exercise windows")
	}
	// The unit's whole-text vector is still written.
	if n := kbtest.CountVectors(t, k, kbtest.Embeddings{Modality: kb.ModalityText}); n == 0 {
		t.Error("no unit text vectors")
	}
}

func TestSetEmbeddersReembeds(t *testing.T) {
	ctx := context.Background()
	in, k := newIngester(t, Options{NoOCR: true, Embedders: testResolver})
	r := addOne(t, in, "c", testdata(t, "pdf", "real", "hsaur3-Ch_analysis_of_variance.pdf"))
	withText := kbtest.CountVectors(t, k, kbtest.Embeddings{Modality: kb.ModalityText})
	oldPassages := kbtest.CountRows(t, k, "passages")
	s := search.New(k, search.Options{Embedders: testResolver})
	page := units(t, k, r.Document.ID)[2]
	query := strings.Join(strings.Fields(page.Text)[:40], " ")

	if _, err := in.SetEmbedders(ctx, "c", "nope/model", 8, "", 0, nil); !errors.Is(err, search.ErrNoEmbedder) {
		t.Fatalf("unknown embedder: err = %v", err)
	}
	if c, _ := k.Docs.CollectionByName(ctx, "c"); c.TextEmbedder != glove.ModelID {
		t.Fatalf("a failed change re-pinned the collection to %s", c.TextEmbedder)
	}

	// Re-pin without re-embedding: search must not use the old 100-d vectors for the 50-d embedder, and says why.
	if _, _, err := k.Docs.SetEmbedders(ctx, "c", "test/glove-half", 50, "", 0); err != nil {
		t.Fatal(err)
	}
	res, err := s.Search(ctx, search.Query{Text: query, Mode: search.Dense, Collections: []string{"c"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 {
		t.Errorf("dense search found %d hits before re-embedding: it mixed embedders", len(res.Hits))
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "not yet embedded with test/glove-half") {
		t.Errorf("notes %q do not say the collection is being re-embedded", res.Notes)
	}
	hy, err := s.Search(ctx, search.Query{Text: query, Collections: []string{"c"}})
	if err != nil || len(hy.Hits) == 0 || hy.Hits[0].UnitID != page.ID {
		t.Fatalf("hybrid search during re-embedding should still find the page by full text: %v %+v", err, hy.Hits)
	}

	// Interrupt the re-embed after its first unit, then resume it.
	cctx, cancel := context.WithCancel(ctx)
	var events collect
	_, err = in.Reembed(cctx, "c", func(p Progress) {
		events.fn(p)
		if p.Stage == StageEmbed {
			cancel()
		}
	})
	cancel()
	if err == nil {
		t.Log("re-embed finished before the cancellation took effect")
	}
	partial := kbtest.CountVectors(t, k, kbtest.Embeddings{Embedder: "test/glove-half"})
	if partial == 0 || partial >= withText {
		t.Logf("after interruption %d of %d units have new vectors", partial, withText)
	}
	res2, err := in.Reembed(ctx, "c", events.fn)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Units+partial < withText {
		t.Errorf("resumed re-embed did %d units after %d, want %d in all", res2.Units, partial, withText)
	}
	if n := kbtest.CountVectors(t, k, kbtest.Embeddings{Embedder: "test/glove-half", Dim: 50}); n != withText {
		t.Errorf("%d units with 50-d vectors, want %d", n, withText)
	}
	if n := kbtest.CountPassages(t, k, kbtest.Embeddings{Embedder: "test/glove-half", Dim: 50}); n != oldPassages {
		t.Errorf("%d new passages, want %d (as many as before)", n, oldPassages)
	}
	if n := kbtest.CountVectors(t, k, kbtest.Embeddings{Embedder: glove.ModelID}) +
		kbtest.CountPassages(t, k, kbtest.Embeddings{Embedder: glove.ModelID}); n != 0 {
		t.Errorf("%d vectors and passages of the old embedder left after re-embedding", n)
	}
	if events.stages(r.Document.ID, StageEmbed) < withText {
		t.Errorf("%d embed progress events for %d units", events.stages(r.Document.ID, StageEmbed), withText)
	}

	res, err = s.Search(ctx, search.Query{Text: query, Mode: search.Dense, Collections: []string{"c"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].UnitID != page.ID {
		t.Errorf("dense search with the new embedder: hits %+v, want page %d first", res.Hits, page.Ordinal)
	}
	for _, n := range res.Notes {
		if strings.Contains(n, "not yet embedded") {
			t.Errorf("note after re-embedding finished: %s", n)
		}
	}
	// Nothing left to do: a second run is a no-op.
	if again, err := in.Reembed(ctx, "c", nil); err != nil || again.Units != 0 {
		t.Errorf("re-embed after completion did %d units (err %v)", again.Units, err)
	}
}

// A knowledge base written before passages existed has unit vectors only: search still finds its pages, and
// Reembed adds the passages.
func TestUnitsWithoutPassagesUpgrade(t *testing.T) {
	ctx := context.Background()
	in, k := newIngester(t, Options{NoOCR: true, Embedders: testResolver})
	r := addOne(t, in, "c", testdata(t, "pdf", "real", "hsaur3-Ch_analysis_of_variance.pdf"))
	kbtest.DropPassages(t, k)
	page := units(t, k, r.Document.ID)[3]
	query := strings.Join(strings.Fields(page.Text)[:40], " ")
	s := search.New(k, search.Options{Embedders: testResolver})
	res, err := s.Search(ctx, search.Query{Text: query, Mode: search.Dense})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].UnitID != page.ID {
		t.Fatalf("dense search over unit vectors only: %+v, want page %d first", res.Hits, page.Ordinal)
	}
	out, err := in.Reembed(ctx, "c", nil)
	if err != nil {
		t.Fatal(err)
	}
	withText := kbtest.CountVectors(t, k, kbtest.Embeddings{Modality: kb.ModalityText})
	if out.Units != withText {
		t.Errorf("upgrade re-embedded %d units, want the %d with text vectors", out.Units, withText)
	}
	if n := kbtest.UnitsWithPassages(t, k); n != withText {
		t.Errorf("%d units with passages after upgrade, want %d", n, withText)
	}
	res, err = s.Search(ctx, search.Query{Text: query, Mode: search.Dense})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].UnitID != page.ID {
		t.Errorf("dense search after upgrade: %v %+v", err, res.Hits)
	}
}
