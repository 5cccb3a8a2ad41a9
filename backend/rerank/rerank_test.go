package rerank

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"proofglass/backend/config"
	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/model/ollama"
	"proofglass/backend/rerank/reranktest"
)

func texts(ss ...string) []Candidate {
	out := make([]Candidate, len(ss))
	for i, s := range ss {
		out[i] = Candidate{Text: s}
	}
	return out
}

func TestOrder(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n      int
		scores []Score
		want   []int
	}{
		{"by relevance", 3, []Score{{0, 0.1}, {1, 0.9}, {2, 0.5}}, []int{1, 2, 0}},
		{"unscored follow in first-stage order", 4, []Score{{2, 0.3}}, []int{2, 0, 1, 3}},
		{"ties keep first-stage order", 3, []Score{{2, 0.5}, {0, 0.5}, {1, 0.5}}, []int{0, 1, 2}},
		{"out of range ignored", 2, []Score{{5, 1}, {1, 0.2}}, []int{1, 0}},
		{"none", 2, nil, []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Order(tc.n, tc.scores); !slices.Equal(got, tc.want) {
				t.Errorf("Order = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestEndpointScoresAndRequestShape(t *testing.T) {
	srv := reranktest.New(t, reranktest.Favouring("revenue 2022"))
	e, err := NewEndpoint(srv.URL+"/v1", "bge-reranker-v2-m3", EndpointOptions{APIKey: "sk-rr"})
	if err != nil {
		t.Fatal(err)
	}
	scores, err := e.Rerank(context.Background(), "revenue in 2022", texts("cover page", "notes", "revenue 2022 was 5m"))
	if err != nil {
		t.Fatal(err)
	}
	if got := Order(3, scores); got[0] != 2 {
		t.Errorf("order %v: the page holding the marker should come first", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want one for all candidates", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1/rerank" || r.Model != "bge-reranker-v2-m3" || r.Query != "revenue in 2022" || r.TopN != 3 ||
		len(r.Documents) != 3 || r.Documents[1].Text != "notes" || r.Auth != "Bearer sk-rr" {
		t.Errorf("request %+v", r)
	}
}

func TestEndpointSendsPageImages(t *testing.T) {
	srv := reranktest.New(t, func(_ string, d reranktest.Document) float64 { return float64(len(d.Images)) })
	e, err := NewEndpoint(srv.URL+"/rerank", "jina-reranker-m0", EndpointOptions{Images: true})
	if err != nil {
		t.Fatal(err)
	}
	cands := texts("text only", "with image")
	cands[1].Image = func(context.Context) (*model.Image, error) {
		return &model.Image{Data: []byte{0xff, 0xd8, 0xff}, MIME: "image/jpeg"}, nil
	}
	if _, err := e.Rerank(context.Background(), "q", cands); err != nil {
		t.Fatal(err)
	}
	docs := srv.Requests()[0].Documents
	if docs[0].Text != "text only" || len(docs[0].Images) != 0 {
		t.Errorf("a candidate without an image should go as its text: %+v", docs[0])
	}
	if len(docs[1].Images) != 1 || docs[1].Images[0] != "data:image/jpeg;base64,/9j/" {
		t.Errorf("image document %+v", docs[1])
	}
	if srv.Requests()[0].Path != "/rerank" {
		t.Errorf("path %s: a URL ending in /rerank is used as is", srv.Requests()[0].Path)
	}
}

func TestHTTPRerankersFailClearly(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	for _, tc := range []struct {
		name  string
		setup func(s *reranktest.Server)
		url   func(s *reranktest.Server) string
		want  []string
	}{
		{"down", nil, func(*reranktest.Server) string { return downURL }, []string{"rerank endpoint m at " + downURL, "connect"}},
		{"5xx", func(s *reranktest.Server) { s.Status = 503 }, nil, []string{"HTTP 503", "scripted failure 503"}},
		{"not JSON", func(s *reranktest.Server) { s.Body = "<html>oops" }, nil, []string{"malformed rerank response"}},
		{"no results", func(s *reranktest.Server) { s.Body = `{"data":[]}` }, nil, []string{"malformed rerank response: no results"}},
		{"index out of range", func(s *reranktest.Server) { s.Body = `{"results":[{"index":7,"relevance_score":1}]}` }, nil,
			[]string{"malformed rerank response: index 7 of 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := reranktest.New(t, reranktest.Favouring("x"))
			if tc.setup != nil {
				tc.setup(srv)
			}
			u := srv.URL
			if tc.url != nil {
				u = tc.url(srv)
			}
			e, err := NewEndpoint(u, "m", EndpointOptions{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Rerank(context.Background(), "q", texts("a", "b"))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestDashScopeRequestAndResponse(t *testing.T) {
	srv := reranktest.New(t, reranktest.Favouring("net income"))
	d, err := NewDashScope(srv.URL+"/compatible-mode/v1", "", "sk-ds", nil)
	if err != nil {
		t.Fatal(err)
	}
	scores, err := d.Rerank(context.Background(), "net income", texts("balance sheet", "net income rose", "auditor"))
	if err != nil {
		t.Fatal(err)
	}
	if got := Order(3, scores); got[0] != 1 {
		t.Errorf("order %v", got)
	}
	r := srv.Requests()[0]
	if r.Path != "/api/v1/services/rerank/text-rerank/text-rerank" || r.Model != "gte-rerank-v2" || r.Query != "net income" ||
		r.TopN != 3 || len(r.Documents) != 3 || r.Auth != "Bearer sk-ds" {
		t.Errorf("request %+v", r)
	}

	srv.Fail(500)
	_, err = d.Rerank(context.Background(), "q", texts("a"))
	if err == nil || !strings.Contains(err.Error(), "dashscope rerank gte-rerank-v2") || !strings.Contains(err.Error(), "InternalError") {
		t.Errorf("5xx error %v", err)
	}
	srv.Fail(0)
	srv.Answer(`{"code":"InvalidApiKey","message":"Invalid API-key provided: sk-ds","request_id":"r9"}`)
	_, err = d.Rerank(context.Background(), "q", texts("a"))
	if err == nil || !strings.Contains(err.Error(), "InvalidApiKey") || strings.Contains(err.Error(), "sk-ds") {
		t.Errorf("error-code answer: %v (the key must be redacted)", err)
	}

	nokey, _ := NewDashScope(srv.URL, "", "", nil)
	if _, err := nokey.Rerank(context.Background(), "q", texts("a")); err == nil || !strings.Contains(err.Error(), "no API key") {
		t.Errorf("no key: %v", err)
	}
}

func TestParseOrder(t *testing.T) {
	for _, tc := range []struct {
		reply string
		n     int
		want  []int
	}{
		{"[3], [1], [2]", 3, []int{2, 0, 1}},
		{"<think>maybe [1]?</think>[2] [1]", 2, []int{1, 0}},
		{"1. Page 3\n2. Page 1", 3, []int{2, 0}},
		{"3 > 1 > 2", 3, []int{2, 0, 1}},
		{"[2], [2], [9], [1]", 2, []int{1, 0}},
		{"none of them", 3, nil},
		{"w25927 w25927", 3, nil},
	} {
		if got := ParseOrder(tc.reply, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("ParseOrder(%q) = %v, want %v", tc.reply, got, tc.want)
		}
	}
}

func TestChatRanksListwise(t *testing.T) {
	chat := modeltest.Replay("<think>the third shows the table</think>The best pages: [3], [1].")
	c, err := NewChat(chat, "ollama", "qwen2.5vl:7b")
	if err != nil {
		t.Fatal(err)
	}
	img := func(context.Context) (*model.Image, error) {
		return &model.Image{Data: []byte("jpeg"), MIME: "image/jpeg"}, nil
	}
	cands := []Candidate{{Text: "a", Image: img}, {Text: "b"}, {Text: "c", Image: img}}
	scores, err := c.Rerank(context.Background(), "which table?", cands)
	if err != nil {
		t.Fatal(err)
	}
	if got := Order(3, scores); !slices.Equal(got, []int{2, 0, 1}) {
		t.Errorf("order %v, want [2 0 1] (the unnamed page last)", got)
	}
	reqs := chat.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d calls, want one", len(reqs))
	}
	var images, labels int
	var text string
	for _, p := range reqs[0].Messages[0].Parts {
		if p.Image != nil {
			images++
		}
		if strings.HasPrefix(p.Text, "[") {
			labels++
		}
		text += p.Text
	}
	if images != 2 || labels != 3 || !strings.Contains(text, "Question: which table?") || !strings.Contains(text, "b") {
		t.Errorf("request: %d images, %d labels, text %q", images, labels, text)
	}
	if reqs[0].Model != "qwen2.5vl:7b" || reqs[0].Options.Temperature == nil || *reqs[0].Options.Temperature != 0 {
		t.Errorf("request model/options %+v", reqs[0])
	}

	bad, _ := NewChat(modeltest.Replay("I cannot tell."), "ollama", "m")
	_, err = bad.Rerank(context.Background(), "q", cands)
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "chat rerank m of ollama") || !strings.Contains(err.Error(), "I cannot tell.") {
		t.Errorf("unreadable reply: %v", err)
	}
}

// TestChatRerankE2E sends the listwise call with page images through a real Ollama vision model: the plumbing
// (images encoded, the call answered, the reply parsed or refused as unreadable), not the ordering — the test model's
// text is meaningless.
func TestChatRerankE2E(t *testing.T) {
	cl, err := ollama.New(modeltest.OllamaURL(t), ollama.Options{Provider: "ollama"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewChat(cl, "ollama", "tiny-vision")
	if err != nil {
		t.Fatal(err)
	}
	c.MaxTokens = 16 // the test model's streams break off past its Modelfile's num_predict of 16
	png := pngBytes(t)
	img := func(context.Context) (*model.Image, error) { return &model.Image{Data: png, MIME: "image/png"}, nil }
	scores, err := c.Rerank(context.Background(), "which page shows the chart?", []Candidate{{Image: img}, {Image: img}})
	if err != nil && !errors.Is(err, ErrMalformed) {
		t.Fatalf("the call did not go through: %v", err)
	}
	if err == nil && len(scores) == 0 {
		t.Error("no error and no scores")
	}
}

func TestNewFromSettings(t *testing.T) {
	for _, tc := range []struct {
		r    config.Rerank
		p    config.Provider
		want string
	}{
		{config.Rerank{Kind: config.RerankEndpoint, Model: "bge"}, config.Provider{Name: "rr", Kind: config.KindOpenAI, BaseURL: "http://127.0.0.1:8001/v1"},
			"rerank endpoint bge at http://127.0.0.1:8001/v1/rerank"},
		{config.Rerank{Kind: config.RerankDashScope}, config.Provider{Name: "dashscope", Kind: config.KindDashScope, BaseURL: "https://dashscope.aliyuncs.com/compatible-mode/v1"},
			"dashscope rerank gte-rerank-v2 at https://dashscope.aliyuncs.com/api/v1/services/rerank/text-rerank/text-rerank"},
		{config.Rerank{Kind: config.RerankChat}, config.Provider{Name: "ollama", Kind: config.KindOllama, BaseURL: "http://127.0.0.1:11434", ChatModel: "qwen2.5vl"},
			"chat rerank qwen2.5vl of ollama"},
	} {
		r, err := New(tc.r, tc.p)
		if err != nil {
			t.Errorf("%s: %v", tc.r.Kind, err)
			continue
		}
		if r.Name() != tc.want {
			t.Errorf("Name %q, want %q", r.Name(), tc.want)
		}
	}
	if _, err := New(config.Rerank{Kind: config.RerankEndpoint}, config.Provider{Name: "rr", Kind: config.KindOpenAI, BaseURL: "http://x/v1"}); err == nil {
		t.Error("an endpoint without a model was accepted")
	}
}
