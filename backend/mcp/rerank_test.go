package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"proofglass/backend/config"
	"proofglass/backend/rerank/reranktest"
	"proofglass/backend/search"
)

// TestSearchToolReranked: the search tool lists the page a scripted rerank server favours first, with its rerank
// score and first-stage rank, and says so in text; with the server failing, it answers in first-stage order and
// says the reranker failed.
func TestSearchToolReranked(t *testing.T) {
	l := newLibrary(t)
	ctx := context.Background()
	lib := l.open(t)
	first, err := lib.Searcher.Search(ctx, search.Query{Text: "blood loss", K: 3})
	if err != nil || len(first.Hits) != 3 {
		t.Fatalf("first stage: %v %+v", err, first)
	}
	target := first.Hits[2]
	u, err := lib.KB.Content.Unit(ctx, target.UnitID)
	if err != nil {
		t.Fatal(err)
	}
	srv := reranktest.New(t, func(_ string, d reranktest.Document) float64 {
		if d.Text == u.Text {
			return 0.8
		}
		return 0.2
	})
	lib.Config.SetProvider(config.Provider{Name: "reranker", Kind: config.KindOpenAI, BaseURL: srv.URL + "/v1"})
	s := lib.Config.Current()
	s.Rerank = config.Rerank{Kind: config.RerankEndpoint, Provider: "reranker", Model: "bge-reranker-v2-m3"}
	if err := lib.Config.Update(s); err != nil {
		t.Fatal(err)
	}

	cs := connectInMemory(t, lib, Options{})
	search := func() (SearchOut, string) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": "blood loss", "k": 3, "images": 0}})
		if err != nil || res.IsError {
			t.Fatalf("search: %v %+v", err, res)
		}
		var out SearchOut
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				text.WriteString(tc.Text + "\n")
			}
		}
		return out, text.String()
	}
	out, text := search()
	h := out.Hits[0]
	if h.UnitID != target.UnitID || h.Rerank == nil || *h.Rerank != 0.8 || h.FirstRank != 3 || out.Rerank == nil || !out.Rerank.Reranked {
		t.Errorf("first hit %+v rerank %v info %+v", h, h.Rerank, out.Rerank)
	}
	if !strings.Contains(text, "rerank 0.8000, first-stage rank") {
		t.Errorf("text %q", text)
	}

	srv.Fail(502)
	out, text = search()
	if out.Rerank == nil || out.Rerank.Reranked || !strings.Contains(text, "The reranker failed, so these results are in first-stage order") ||
		!strings.Contains(text, "HTTP 502") || out.Hits[0].Rerank != nil {
		t.Errorf("failing reranker: %+v\n%s", out.Rerank, text)
	}
}
