package search

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"proofglass/backend/glove"
	"proofglass/backend/kb"
	"proofglass/backend/model"
	"proofglass/backend/model/openai"
)

// visualServer is a scripted multimodal embedding server speaking vLLM's chat-style /v1/embeddings: an image is
// embedded from its pixels (the red channel of its first pixel is the page number; pages equal to favour point one
// way, the rest another), a text query about "snowflake" points the favoured way. Real page embedders (GVE,
// Qwen3-VL-Embedding) are not available here; this one decides from the image content all the same.
type visualServer struct {
	favour      int
	imageInputs atomic.Int64
}

func (s *visualServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/embeddings") {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Messages []struct {
			Content []struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				ImageURL struct {
					URL string `json:"url"`
				} `json:"image_url"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) != 1 {
		http.Error(w, "want one chat-style message", http.StatusBadRequest)
		return
	}
	vec := []float32{0, 0, 1}
	for _, p := range req.Messages[0].Content {
		switch p.Type {
		case "image_url":
			b64, ok := strings.CutPrefix(p.ImageURL.URL, "data:image/png;base64,")
			data, err := base64.StdEncoding.DecodeString(b64)
			img, err2 := png.Decode(bytes.NewReader(data))
			if !ok || err != nil || err2 != nil {
				http.Error(w, "bad image", http.StatusBadRequest)
				return
			}
			s.imageInputs.Add(1)
			r8, _, _, _ := img.At(0, 0).RGBA()
			if int(r8>>8) == s.favour {
				vec = []float32{1, 0, 0}
			} else {
				vec = []float32{0, 1, 0}
			}
		case "text":
			if strings.Contains(strings.ToLower(p.Text), "snowflake") {
				vec = []float32{0.9, 0.1, 0}
			}
		}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": "gve",
		"data": []any{map[string]any{"object": "embedding", "index": 0, "embedding": vec}}})
}

// pagePNG is a small page image whose first pixel carries the page number.
func pagePNG(t *testing.T, page int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for y := range 8 {
		for x := range 8 {
			img.Set(x, y, color.RGBA{R: uint8(page), G: 200, B: 200, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestVisualEmbedderFusion(t *testing.T) {
	ctx := context.Background()
	k := openKB(t)
	vs := &visualServer{}
	hs := httptest.NewServer(vs)
	defer hs.Close()
	client, err := openai.New(hs.URL+"/v1", openai.Options{Provider: "vis"})
	if err != nil {
		t.Fatal(err)
	}
	emb := client.Embedder("gve", true)
	c, err := k.Docs.CreateCollection(ctx, kb.Collection{Name: "v", TextEmbedder: glove.ModelID, TextDim: glove.Dim,
		ImageEmbedder: emb.ModelID(), ImageDim: 3})
	if err != nil {
		t.Fatal(err)
	}
	doc := addPDF(t, k, c, testdata(t, realPDFs[0]))
	units, err := k.Content.Units(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	// Favour a page BM25 does not rank first for the text query used below, so the two signals disagree.
	lex, err := New(k, Options{}).Search(ctx, Query{Text: "analysis of variance", K: 1, Mode: BM25})
	if err != nil || len(lex.Hits) == 0 || len(units) < 2 {
		t.Fatalf("bm25: %v %+v (%d pages)", err, lex.Hits, len(units))
	}
	favoured := 1
	if lex.Hits[0].Page == 1 {
		favoured = 2
	}
	vs.favour = favoured
	// Embed every page image through the server, as ingest does for a collection with an image embedder.
	for _, u := range units {
		v, err := emb.Embed(ctx, []model.EmbedInput{{Image: &model.Image{Data: pagePNG(t, u.Ordinal), MIME: "image/png"}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Content.PutVector(ctx, u.ID, emb.ModelID(), kb.ModalityImage, v[0]); err != nil {
			t.Fatal(err)
		}
	}
	if int(vs.imageInputs.Load()) != len(units) {
		t.Fatalf("server embedded %d images, want %d", vs.imageInputs.Load(), len(units))
	}
	resolve := func(ctx context.Context, id string) (model.Embedder, error) {
		if id == emb.ModelID() {
			return emb, nil
		}
		return BuiltinResolver(ctx, id)
	}
	s := New(k, Options{Embedders: resolve})

	// A question no page's text answers: only the visual signal can find the page, and at full weight it leads.
	res, err := s.Search(ctx, Query{Text: "Which page shows an eight-pointed snowflake?", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Page != favoured || res.Hits[0].Ranks[2] != 1 || res.Hits[0].Scores.Visual == nil {
		t.Fatalf("notes %v, hits %+v; want page %d first by the visual signal", res.Notes, res.Hits, favoured)
	}
	// Full weight: the page's fused score is the visual signal's 1/(k+1) at weight 1 (plus the built-in text
	// signal's small share), not the 0.01 the built-in text embedder gets.
	res, err = s.Search(ctx, Query{Text: "Which page shows an eight-pointed snowflake?", K: 5, Structure: &StructureWeights{}})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("%v %+v", err, res.Hits)
	}
	h := res.Hits[0]
	want := 1 / float64(DefaultRRFK+1)
	if h.Ranks[0] > 0 {
		want += 1 / float64(DefaultRRFK+h.Ranks[0])
	}
	if h.Ranks[1] > 0 {
		want += BuiltinTextWeight / float64(DefaultRRFK+h.Ranks[1])
	}
	if h.Page != favoured || math.Abs(h.Score-want) > 1e-12 {
		t.Errorf("page %d score %v ranks %v; want page %d scored %v", h.Page, h.Score, h.Ranks, favoured, want)
	}
	// With the visual signal off, the favoured page has no claim to the top.
	off := Weights{BM25: 1, Text: BuiltinTextWeight, Visual: 0}
	res, err = s.Search(ctx, Query{Text: "Which page shows an eight-pointed snowflake?", K: 5, Weights: &off})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Scores.Visual != nil {
			t.Errorf("visual weight 0 still scored page %d", h.Page)
		}
	}
}
