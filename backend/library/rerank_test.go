package library

import (
	"context"
	"strings"
	"testing"

	"proofglass/backend/config"
	"proofglass/backend/rerank/reranktest"
	"proofglass/backend/search"
)

// TestRerankFromSettings: the library's searcher reranks with the reranker the settings configure (through its
// profile's URL and stored key, with page images drawn by the library when asked), picks up a settings change on
// the next search, and stops when reranking is turned off.
func TestRerankFromSettings(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	lib, _ := openWithDocs(t)
	ctx := context.Background()
	srv := reranktest.New(t, func(_ string, d reranktest.Document) float64 { return float64(len(d.Images)) + 0.5 })
	cfg := lib.Config
	cfg.SetProvider(config.Provider{Name: "reranker", Kind: config.KindOpenAI, BaseURL: srv.URL + "/v1"})
	if err := cfg.SetAPIKey("reranker", "sk-rr"); err != nil {
		t.Fatal(err)
	}
	set := func(r config.Rerank) {
		t.Helper()
		s := cfg.Current()
		s.Rerank = r
		if err := cfg.Update(s); err != nil {
			t.Fatal(err)
		}
	}
	q := search.Query{Text: "sample size calculation", K: 3}

	set(config.Rerank{Kind: config.RerankEndpoint, Provider: "reranker", Model: "bge-reranker-v2-m3", Candidates: 4})
	res, err := lib.Searcher.Search(ctx, q)
	if err != nil || res.Rerank == nil || !res.Rerank.Reranked || res.Rerank.Candidates > 4 {
		t.Fatalf("%v %+v", err, res.Rerank)
	}
	if r := srv.Requests()[0]; r.Auth != "Bearer sk-rr" || r.Model != "bge-reranker-v2-m3" || len(r.Documents[0].Images) != 0 {
		t.Errorf("request %+v", r)
	}
	if res.Hits[0].Rerank == nil {
		t.Errorf("no rerank score on %+v", res.Hits[0])
	}

	set(config.Rerank{Kind: config.RerankEndpoint, Provider: "reranker", Model: "jina-reranker-m0", Images: true, Candidates: 2})
	if res, err = lib.Searcher.Search(ctx, q); err != nil || !res.Rerank.Reranked {
		t.Fatalf("%v %+v", err, res.Rerank)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if last.Model != "jina-reranker-m0" || len(last.Documents) != 2 || len(last.Documents[0].Images) != 1 ||
		!strings.HasPrefix(last.Documents[0].Images[0], "data:image/jpeg;base64,") {
		t.Errorf("the settings change did not reach the next search, or no page image was drawn: %+v", last.Model)
	}

	set(config.Rerank{})
	n := len(srv.Requests())
	if res, err = lib.Searcher.Search(ctx, q); err != nil || res.Rerank != nil || len(srv.Requests()) != n {
		t.Errorf("reranking off: %v %+v, %d more requests", err, res.Rerank, len(srv.Requests())-n)
	}

	// A reranker naming a profile of the wrong kind is refused when saved.
	s := cfg.Current()
	s.Rerank = config.Rerank{Kind: config.RerankDashScope, Provider: "reranker"}
	if err := cfg.Update(s); err == nil || !strings.Contains(err.Error(), "needs a dashscope profile") {
		t.Errorf("wrong profile kind: %v", err)
	}
}
