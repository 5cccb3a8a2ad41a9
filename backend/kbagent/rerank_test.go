package kbagent

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/pdf"
	"proofglass/backend/rerank"
	"proofglass/backend/rerank/reranktest"
	"proofglass/backend/search"
)

// TestAgentSearchesAreReranked runs the agent (react: one search, then an answer) over a real PDF with a scripted
// reranker that favours page 3: the results event lists page 3 first with its rerank score and its first-stage
// rank, and the page shown to the model is page 3. With the reranker failing, the run still answers from the first
// stage's order and says so in a recoverable rerank error event.
func TestAgentSearchesAreReranked(t *testing.T) {
	k, c, ids := withTestPDF(t)
	const question = "sample size calculation"
	plain := search.New(k, search.Options{})
	first, err := plain.Search(context.Background(), search.Query{Text: question, K: 10, Mode: search.BM25})
	if err != nil || len(first.Hits) < 3 || first.Hits[0].UnitID == ids[2] {
		t.Fatalf("first stage: %v %d hits (page 3 must not already lead)", err, len(first.Hits))
	}
	srv := reranktest.New(t, func(_ string, d reranktest.Document) float64 { return 0 })
	page3, err := k.Content.Unit(context.Background(), ids[2])
	if err != nil {
		t.Fatal(err)
	}
	srv.Scoring(func(_ string, d reranktest.Document) float64 {
		if d.Text == page3.Text {
			return 0.99
		}
		return 0.01
	})
	e, err := rerank.NewEndpoint(srv.URL+"/v1", "bge-reranker-v2-m3", rerank.EndpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stage := func(context.Context) (*search.RerankStage, error) {
		return &search.RerankStage{Reranker: e, Depth: 20}, nil
	}

	ask := func(t *testing.T) []agent.Event {
		d := Deps{KB: k, Search: search.New(k, search.Options{Rerank: stage}), PDF: pdf.NewRenderer(c, nil, 2),
			Chat:  modeltest.Replay("<search>"+question+"</search>", "<answer>1100 patients.</answer>"),
			Query: search.Query{Mode: search.BM25}}
		var evs []agent.Event
		_, res, err := Ask(context.Background(), d, 0, agent.Config{Mode: agent.ModeReAct, Model: "m"}, "How many patients?",
			func(ev agent.Event) { evs = append(evs, ev) })
		if err != nil || res.Status != agent.StatusAnswered {
			t.Fatalf("%v %+v", err, res)
		}
		return evs
	}
	results := func(evs []agent.Event) *agent.ResultsInfo {
		for _, ev := range evs {
			if ev.Kind == agent.KindResults {
				return ev.Results
			}
		}
		t.Fatal("no results event")
		return nil
	}

	t.Run("reranked", func(t *testing.T) {
		evs := ask(t)
		res := results(evs)
		h := res.Hits[0]
		want := slices.IndexFunc(first.Hits, func(x search.Hit) bool { return x.UnitID == ids[2] }) + 1
		if h.UnitID != ID(ids[2]) || h.Page != 3 || h.Rerank == nil || *h.Rerank != 0.99 || h.FirstRank != want || !h.Shown {
			t.Errorf("first hit %+v (rerank %v): want page 3 shown, rerank 0.99, first rank %d", h, h.Rerank, want)
		}
		if len(res.Sent) != 1 || res.Sent[0].UnitID != ID(ids[2]) {
			t.Errorf("sent %+v, want page 3", res.Sent)
		}
		for _, ev := range evs {
			if ev.Kind == agent.KindError {
				t.Errorf("error event %+v", ev.Error)
			}
		}
		if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Query != question {
			t.Errorf("rerank requests %+v", reqs)
		}
	})

	t.Run("reranker failing", func(t *testing.T) {
		srv.Fail(http.StatusInternalServerError)
		evs := ask(t)
		res := results(evs)
		if res.Hits[0].UnitID != ID(first.Hits[0].UnitID) || res.Hits[0].Rerank != nil {
			t.Errorf("first hit %+v, want the first stage's first, unscored", res.Hits[0])
		}
		i := slices.IndexFunc(evs, func(ev agent.Event) bool { return ev.Kind == agent.KindError })
		if i < 0 {
			t.Fatalf("no error event: %s", kinds(evs))
		}
		er := evs[i].Error
		if er.Code != "rerank" || !er.Recoverable || !strings.Contains(er.Message, "rerank endpoint bge-reranker-v2-m3") ||
			!strings.Contains(er.Message, "HTTP 500") || !strings.Contains(er.Message, "first-stage order") {
			t.Errorf("error event %+v", er)
		}
	})
}
