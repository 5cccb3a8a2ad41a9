package desktop

import (
	"strings"
	"testing"

	"proofglass/backend/config"
	"proofglass/backend/rerank/reranktest"
)

// TestSettingsReranker: the settings screen saves a reranker, tests it against its saved profile's server with the
// stored key (a scripted rerank server that scores by word overlap), and gets a clear error for a reranker that is
// down or misconfigured.
func TestSettingsReranker(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	d, _ := start(t)
	set := d.Settings
	srv := reranktest.New(t, func(q string, doc reranktest.Document) float64 {
		if strings.Contains(doc.Text, "France") {
			return 0.9
		}
		return 0.1
	})
	cur, _ := set.Settings()
	if err := set.SaveSettings(fromWindow(t, cur, func(m map[string]any) {
		m["providers"] = append(m["providers"].([]any), map[string]any{"name": "reranker", "kind": "openai", "base_url": srv.URL + "/v1"})
		m["rerank"] = map[string]any{"kind": "endpoint", "provider": "reranker", "model": "bge-reranker-v2-m3", "candidates": 20}
	})); err != nil {
		t.Fatal(err)
	}
	if err := set.SetAPIKey("reranker", "sk-rr"); err != nil {
		t.Fatal(err)
	}
	got, _ := set.Settings()
	if got.Rerank.Kind != "endpoint" || got.Rerank.Candidates != 20 || got.Rerank.Model != "bge-reranker-v2-m3" {
		t.Fatalf("saved rerank %+v", got.Rerank)
	}
	r := set.TestReranker(got.Rerank)
	if !r.OK || !r.Sensible || r.Error != "" || !strings.Contains(r.Reranker, "bge-reranker-v2-m3") {
		t.Errorf("test = %+v", r)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Auth != "Bearer sk-rr" {
		t.Errorf("requests %+v", reqs)
	}

	srv.Fail(503)
	if r := set.TestReranker(got.Rerank); r.OK || !strings.Contains(r.Error, "HTTP 503") || !strings.Contains(r.Error, "rerank endpoint bge-reranker-v2-m3") {
		t.Errorf("down: %+v", r)
	}
	for _, bad := range []config.Rerank{
		{Kind: "magic"},
		{Kind: "endpoint", Provider: "nobody", Model: "m"},
		{Kind: "dashscope", Provider: "reranker"},
		{Kind: "endpoint", Provider: "reranker", Model: "m", Candidates: 100000},
		{Kind: "endpoint", Provider: "reranker", Model: "m\x00"},
	} {
		if r := set.TestReranker(bad); r.Error == "" || r.OK {
			t.Errorf("TestReranker(%+v) = %+v, want an error", bad, r)
		}
		st, _ := set.Settings()
		st.Rerank = bad
		if err := set.SaveSettings(st); err == nil {
			t.Errorf("SaveSettings accepted rerank %+v", bad)
		}
	}
	if r := set.TestReranker(config.Rerank{}); r.Error == "" {
		t.Error("testing no reranker")
	}
}
