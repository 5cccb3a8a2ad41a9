package search

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"proofglass/backend/kb"
	"proofglass/backend/model"
	"proofglass/backend/rerank"
	"proofglass/backend/rerank/reranktest"
)

// rerankKB is a knowledge base of one real PDF and the first stage's top 10 hits for a question.
func rerankKB(t testing.TB) (*kb.KB, Query, []Hit) {
	t.Helper()
	k := openKB(t)
	addPDF(t, k, collection(t, k, "c"), testdata(t, realPDFs[0]))
	q := Query{Text: "analysis of variance weight gain rats", K: 10}
	res, err := New(k, Options{}).Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) < 10 || res.Rerank != nil {
		t.Fatalf("first stage: %d hits, rerank %+v", len(res.Hits), res.Rerank)
	}
	return k, q, res.Hits
}

func endpointStage(t testing.TB, url string, depth int) RerankSource {
	e, err := rerank.NewEndpoint(url, "test-reranker", rerank.EndpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return func(context.Context) (*RerankStage, error) { return &RerankStage{Reranker: e, Depth: depth}, nil }
}

func unitIDs(hs []Hit) []int64 {
	out := make([]int64, len(hs))
	for i, h := range hs {
		out[i] = h.UnitID
	}
	return out
}

// TestRerankReordersFirstStage: a scripted reranker that knows the right page lifts it from eighth to first, and
// the page the first stage ranked first falls behind it; the top 5 are cut from the reranked 10.
func TestRerankReordersFirstStage(t *testing.T) {
	k, q, first := rerankKB(t)
	target := first[7]
	srv := reranktest.New(t, func(_ string, d reranktest.Document) float64 {
		if d.Text == target.text {
			return 0.97
		}
		return 0.2
	})
	s := New(k, Options{Rerank: endpointStage(t, srv.URL+"/v1", 10)})
	q.K = 5
	res, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 5 {
		t.Fatalf("%d hits, want 5", len(res.Hits))
	}
	h := res.Hits[0]
	if h.UnitID != target.UnitID || h.FirstRank != 8 || h.Rerank == nil || *h.Rerank != 0.97 {
		t.Errorf("first hit: unit %d first rank %d rerank %v; want unit %d from rank 8 with 0.97", h.UnitID, h.FirstRank, h.Rerank, target.UnitID)
	}
	if want := unitIDs(first[:4]); !slices.Equal(unitIDs(res.Hits[1:]), want) {
		t.Errorf("the rest %v, want the first stage's order %v (equal scores keep it)", unitIDs(res.Hits[1:]), want)
	}
	if r := res.Rerank; r == nil || !r.Reranked || r.Candidates != 10 || r.Error != "" || !strings.Contains(r.Reranker, "test-reranker") {
		t.Errorf("rerank info %+v", r)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || len(reqs[0].Documents) != 10 || reqs[0].Query != q.Text {
		t.Fatalf("requests %+v", reqs)
	}
	if reqs[0].Documents[0].Text != first[0].text || !strings.Contains(first[0].text, " ") {
		t.Errorf("documents are not the pages' text")
	}

	// NoRerank asks for the first stage alone.
	q.NoRerank = true
	res, err = s.Search(context.Background(), q)
	if err != nil || res.Rerank != nil || !slices.Equal(unitIDs(res.Hits), unitIDs(first[:5])) {
		t.Errorf("NoRerank: %v %+v %v", err, res.Rerank, unitIDs(res.Hits))
	}
}

// TestRerankFailureKeepsFirstStage: a reranker that is down, answers 5xx or answers garbage, and one that cannot
// be built, leave the first stage's answer as it was, flagged with the reranker's name and the reason.
func TestRerankFailureKeepsFirstStage(t *testing.T) {
	k, q, first := rerankKB(t)
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	fiveXX := reranktest.New(t, reranktest.Favouring("x"))
	fiveXX.Fail(http.StatusBadGateway)
	garbage := reranktest.New(t, reranktest.Favouring("x"))
	garbage.Answer(`{"results": "soon"}`)
	for _, tc := range []struct {
		name   string
		source RerankSource
		want   []string
	}{
		{"down", endpointStage(t, downURL, 10), []string{"rerank endpoint test-reranker at " + downURL, "connection refused"}},
		{"5xx", endpointStage(t, fiveXX.URL, 10), []string{"HTTP 502", "scripted failure 502"}},
		{"malformed", endpointStage(t, garbage.URL, 10), []string{"malformed rerank response"}},
		// A server that accepts the request and never answers, and one that answers a byte at a time forever:
		// the stage's deadline ends both (issue 41, row 3).
		{"silent", deadlineStage(t, silentServer(t), 10), []string{"no answer within 300ms"}},
		{"trickling", deadlineStage(t, tricklingServer(t), 10), []string{"no answer within 300ms"}},
		{"not configurable", func(context.Context) (*RerankStage, error) {
			return nil, errors.New("reranker: no provider profile named \"gone\"")
		}, []string{`no provider profile named "gone"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := New(k, Options{Rerank: tc.source}).Search(context.Background(), q)
			if err != nil {
				t.Fatalf("the search failed with its reranker: %v", err)
			}
			if !slices.Equal(unitIDs(res.Hits), unitIDs(first)) {
				t.Errorf("hits %v, want the first stage's %v", unitIDs(res.Hits), unitIDs(first))
			}
			r := res.Rerank
			if r == nil || r.Reranked || !errors.Is(r.Err(), ErrRerank) {
				t.Fatalf("rerank info %+v: want a failure", r)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Error, w) {
					t.Errorf("error %q does not say %q", r.Error, w)
				}
			}
			for _, h := range res.Hits {
				if h.Rerank != nil {
					t.Errorf("hit %d has a rerank score after a failure", h.UnitID)
				}
			}
		})
	}
}

// TestRerankSendsPageImages: a multimodal endpoint gets each candidate's page image from Options.PageImage.
func TestRerankSendsPageImages(t *testing.T) {
	k, q, first := rerankKB(t)
	srv := reranktest.New(t, func(_ string, d reranktest.Document) float64 { return float64(len(d.Images)) })
	e, err := rerank.NewEndpoint(srv.URL, "jina-reranker-m0", rerank.EndpointOptions{Images: true})
	if err != nil {
		t.Fatal(err)
	}
	var drawn []int64
	s := New(k, Options{
		Rerank: func(context.Context) (*RerankStage, error) { return &RerankStage{Reranker: e, Depth: 3}, nil },
		PageImage: func(_ context.Context, id int64) (*model.Image, error) {
			drawn = append(drawn, id)
			return &model.Image{Data: []byte("jpeg"), MIME: "image/jpeg"}, nil
		},
	})
	res, err := s.Search(context.Background(), q)
	if err != nil || !res.Rerank.Reranked {
		t.Fatalf("%v %+v", err, res.Rerank)
	}
	if !slices.Equal(drawn, unitIDs(first[:3])) {
		t.Errorf("drew %v, want the 3 candidates %v", drawn, unitIDs(first[:3]))
	}
	if docs := srv.Requests()[0].Documents; len(docs) != 3 || len(docs[2].Images) != 1 {
		t.Errorf("documents %+v", docs)
	}
}

// BenchmarkRerankStage measures what the reranking stage adds to a search, with a scripted rerank server on this
// machine (so the figure is Proofglass's own overhead: candidates' text, one HTTP round trip, JSON, reordering), and
// reports it as a ratio to the first stage measured in the same run.
func BenchmarkRerankStage(b *testing.B) {
	k, q, _ := rerankKB(b)
	srv := reranktest.New(b, reranktest.Favouring("variance"))
	plain := New(k, Options{})
	reranked := New(k, Options{Rerank: endpointStage(b, srv.URL, 30)})
	ctx := context.Background()
	measure := func(s *Searcher) time.Duration {
		start := time.Now()
		if _, err := s.Search(ctx, q); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	measure(plain)
	measure(reranked)
	var first, withRerank time.Duration
	for i := 0; i < b.N; i++ {
		first += measure(plain)
		withRerank += measure(reranked)
	}
	b.ReportMetric(float64(first.Microseconds())/float64(b.N), "first-stage-µs/op")
	b.ReportMetric(float64(withRerank.Microseconds())/float64(b.N), "reranked-µs/op")
	b.ReportMetric(float64(withRerank)/float64(first), "ratio")
}

// deadlineStage is an endpoint stage with a short deadline.
func deadlineStage(t testing.TB, url string, depth int) RerankSource {
	e, err := rerank.NewEndpoint(url, "test-reranker", rerank.EndpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return func(context.Context) (*RerankStage, error) {
		return &RerankStage{Reranker: e, Depth: depth, Timeout: 300 * time.Millisecond}, nil
	}
}

// silentServer accepts a rerank request and answers nothing until the client goes.
func silentServer(t testing.TB) string {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // the server notices the client leave only once the body is read
		<-r.Context().Done()
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// tricklingServer sends its headers and then one byte of a JSON answer at a time, never finishing it.
func tricklingServer(t testing.TB) string {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		w.Write([]byte(`{"results": [`))
		for {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
				w.Write([]byte(" "))
				w.(http.Flusher).Flush()
			}
		}
	}))
	t.Cleanup(s.Close)
	return s.URL
}
