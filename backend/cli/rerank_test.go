package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"proofglass/backend/eval"
	"proofglass/backend/rerank/reranktest"
)

// TestSearchReranked configures a reranker from the CLI (a scripted /rerank server behind the openai profile) and
// searches: the page the server favours comes first with its rerank score and first-stage rank in --json and in
// the table; with the server failing, the search still answers in first-stage order with a warning; --no-rerank
// and `rerank off` skip it.
func TestSearchReranked(t *testing.T) {
	data := t.TempDir()
	texts, units := askKB(t, data, "pdf/real/blood_loss_report.pdf")
	const favoured = 3 // 1-based page the scripted reranker knows is right
	srv := reranktest.New(t, func(_ string, d reranktest.Document) float64 {
		if d.Text == texts[favoured-1] || strings.Contains(d.Text, "capital of France") {
			return 0.95
		}
		return 0.05
	})
	openAIEnv(t, srv.URL)
	ctx := context.Background()

	out, err := run(t, data, "rerank", "set", "endpoint", "--model", "bge-reranker-v2-m3", "--candidates", "12")
	if err != nil || !strings.Contains(out, "reranker: endpoint") || !strings.Contains(out, "candidates: 12") {
		t.Fatalf("rerank set: %v\n%s", err, out)
	}
	if out, err = run(t, data, "rerank", "test"); err != nil || !strings.Contains(out, "ranked the answering sample first") {
		t.Errorf("rerank test: %v\n%s", err, out)
	}

	lines := func(out string) []searchLine {
		var ls []searchLine
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var sl searchLine
			if err := json.Unmarshal([]byte(l), &sl); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			ls = append(ls, sl)
		}
		return ls
	}
	const query = "blood loss patients sample size"
	plain, err := cli(ctx, data, "search", "--json", "--no-rerank", query)
	if err != nil {
		t.Fatal(err)
	}
	first := lines(plain)
	if first[0].UnitID == units[favoured-1] || first[0].Rerank != nil {
		t.Fatalf("the first stage already puts page %d first, or reranked with --no-rerank: %+v", favoured, first[0])
	}
	out, err = cli(ctx, data, "search", "--json", query)
	if err != nil {
		t.Fatal(err)
	}
	got := lines(out)
	if got[0].UnitID != units[favoured-1] || got[0].Rerank == nil || *got[0].Rerank != 0.95 || got[0].FirstRank < 2 {
		t.Errorf("reranked first line %+v (rerank %v)", got[0], got[0].Rerank)
	}
	out, err = run(t, data, "search", query)
	if err != nil || !strings.Contains(out, "RERANK") || !strings.Contains(out, "note: reranked the first") {
		t.Errorf("table: %v\n%s", err, out)
	}

	// doctor runs the reranker once.
	doctorRerank := func() (ok, optional bool, detail string) {
		t.Helper()
		out, _ := run(t, data, "doctor", "--json") // the default provider may be down here; only the reranker's line counts
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var c struct {
				Name, Detail string
				OK, Optional bool
			}
			if json.Unmarshal([]byte(l), &c) == nil && c.Name == "reranker" {
				return c.OK, c.Optional, c.Detail
			}
		}
		t.Fatalf("no reranker check in doctor:\n%s", out)
		return
	}
	if ok, _, detail := doctorRerank(); !ok || !strings.Contains(detail, "rerank endpoint bge-reranker-v2-m3") {
		t.Errorf("doctor reranker: %v %s", ok, detail)
	}

	// eval retrieval --rerank measures the reranked ranking; without it, the first stage's.
	ds := filepath.Join(t.TempDir(), "q.jsonl")
	line, _ := json.Marshal(eval.Question{ID: "q1", Question: query, Answer: "x", AnswerFormat: "Str",
		EvidencePages: []int{favoured}, Doc: "blood_loss_report.pdf"})
	if err := os.WriteFile(ds, append(line, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	recall1 := func(args ...string) float64 {
		t.Helper()
		out, err := cli(ctx, data, append([]string{"eval", "retrieval", "--dataset", ds, "--collection", "papers", "--json"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		var rep eval.RetrievalReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		return rep.Overall["hybrid"].Recall1
	}
	if r := recall1(); r != 0 {
		t.Errorf("first-stage hybrid recall@1 %v, want 0 (page %d is not first)", r, favoured)
	}
	if r := recall1("--rerank"); r != 1 {
		t.Errorf("reranked hybrid recall@1 %v, want 1", r)
	}

	srv.Fail(500)
	if ok, optional, detail := doctorRerank(); ok || !optional || !strings.Contains(detail, "HTTP 500") {
		t.Errorf("doctor with a failing reranker: ok %v optional %v %s", ok, optional, detail)
	}
	if _, err := cli(ctx, data, "eval", "retrieval", "--dataset", ds, "--collection", "papers", "--rerank"); err == nil ||
		!strings.Contains(err.Error(), "HTTP 500") {
		t.Errorf("eval with a failing reranker: %v", err)
	}
	out, err = run(t, data, "search", "--json", query)
	if err != nil || !strings.Contains(out, "warning: the reranker failed, so these results are in first-stage order") ||
		!strings.Contains(out, "HTTP 500") {
		t.Errorf("failing reranker: %v\n%s", err, out)
	}
	if out, err = cli(ctx, data, "search", "--json", query); err != nil || lines(out)[0].UnitID != first[0].UnitID {
		t.Errorf("failing reranker: want the first stage's order, got %v %s", err, out)
	}
	if _, err := run(t, data, "rerank", "test"); err == nil || !strings.Contains(err.Error(), "HTTP 500") {
		t.Errorf("rerank test against a failing server: %v", err)
	}

	if out, err = run(t, data, "rerank", "off"); err != nil || !strings.Contains(out, "reranker: off") {
		t.Errorf("rerank off: %v %s", err, out)
	}
	n := len(srv.Requests())
	if _, err := cli(ctx, data, "search", "--json", query); err != nil || len(srv.Requests()) != n {
		t.Errorf("search after rerank off: %v, %d requests", err, len(srv.Requests())-n)
	}
	if _, err := run(t, data, "rerank", "set", "magic"); err == nil || !strings.Contains(err.Error(), "rerank.kind") {
		t.Errorf("unknown kind: %v", err)
	}
}
