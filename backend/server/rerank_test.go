package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"proofglass/backend/config"
	"proofglass/backend/rerank/reranktest"
)

// TestSearchReranked: with a reranker configured, POST /search (the newer shape) lists the page a scripted rerank
// server favours first, with its rerank score and first-stage rank as extra fields, score still the fused one; the
// legacy shapes keep exactly their keys; a failing reranker leaves the first stage's order and says so in a header.
func TestSearchReranked(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	query := map[string]any{"queries": []string{"blood loss"}, "top_k": 3}
	type newer struct {
		Results []queryResult `json:"results"`
	}
	first := decode[newer](t, f.do(t, "POST", "/search", f.token, query)).Results[0]
	if len(first.Data) != 3 {
		t.Fatalf("first stage: %+v", first)
	}
	target := first.Data[2]
	u, err := f.lib.KB.Content.Unit(ctx, target.UnitID)
	if err != nil {
		t.Fatal(err)
	}
	srv := reranktest.New(t, func(_ string, d reranktest.Document) float64 {
		if d.Text == u.Text {
			return 0.9
		}
		return 0.1
	})
	cfg := f.lib.Config
	cfg.SetProvider(config.Provider{Name: "reranker", Kind: config.KindOpenAI, BaseURL: srv.URL + "/v1"})
	setRerank := func(r config.Rerank) {
		s := cfg.Current()
		s.Rerank = r
		if err := cfg.Update(s); err != nil {
			t.Fatal(err)
		}
	}
	setRerank(config.Rerank{Kind: config.RerankEndpoint, Provider: "reranker", Model: "bge-reranker-v2-m3", Candidates: 10})
	t.Cleanup(func() { setRerank(config.Rerank{}) })

	resp := f.do(t, "POST", "/search", f.token, query)
	if h := resp.Header.Get(RerankHeader); h != "" {
		t.Errorf("%s: %q on a reranked answer", RerankHeader, h)
	}
	got := decode[newer](t, resp).Results[0]
	d := got.Data[0]
	if d.UnitID != target.UnitID || d.Rerank == nil || *d.Rerank != 0.9 || d.FirstRank != 3 || got.Score[0] != target.Score {
		t.Errorf("first item %+v (rerank %v), score %v; want unit %d reranked from 3rd with its fused score %v",
			d, d.Rerank, got.Score[0], target.UnitID, target.Score)
	}

	// The legacy shapes carry no new key.
	for _, r := range []*http.Response{
		f.do(t, "GET", "/search?queries=blood+loss", f.token, nil),
		f.do(t, "POST", "/search", f.token, map[string]any{"queries": []string{"blood loss"}, "top_k": 3, "vrag_ret": true}),
	} {
		b, _ := io.ReadAll(r.Body)
		var lists [][]map[string]any
		if err := json.Unmarshal(b, &lists); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		for _, it := range lists[0] {
			if len(it) != 2 || it["idx"] == nil || it["image_file"] == nil {
				t.Errorf("legacy item %v: want exactly idx and image_file", it)
			}
		}
	}

	srv.Fail(http.StatusServiceUnavailable)
	resp = f.do(t, "POST", "/search", f.token, query)
	h := resp.Header.Get(RerankHeader)
	if resp.StatusCode != 200 || !strings.HasPrefix(h, "failed: rerank endpoint bge-reranker-v2-m3") || !strings.Contains(h, "HTTP 503") {
		t.Errorf("failing reranker: status %d, %s %q", resp.StatusCode, RerankHeader, h)
	}
	got = decode[newer](t, resp).Results[0]
	for i := range got.Data {
		if got.Data[i].UnitID != first.Data[i].UnitID || got.Data[i].Rerank != nil {
			t.Errorf("item %d: %+v, want the first stage's %d unscored", i, got.Data[i], first.Data[i].UnitID)
		}
	}
}
