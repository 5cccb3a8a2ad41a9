package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"proofglass/backend/eval"
	"proofglass/backend/model/modeltest"
)

// vimragModel is a scripted OpenAI-compatible VimRAG model: per question it adds search node A (off the root),
// memorizes its first picture, adds a second branch B, closes it with nothing kept, and answers from A alone.
type vimragModel struct {
	qs []eval.Question

	mu    sync.Mutex
	calls map[string]int
}

func (m *vimragModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var q *eval.Question
	for i := range m.qs {
		if strings.Contains(string(body), m.qs[i].Question) {
			q = &m.qs[i]
		}
	}
	if q == nil {
		http.Error(w, "no known question in the request", http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.calls[q.ID]++
	n := m.calls[q.ID]
	m.mu.Unlock()
	qj, _ := json.Marshal(q.Question)
	aj, _ := json.Marshal(q.Answer)
	var name, args string
	switch n {
	case 1:
		name, args = "add_search_node", `{"id": "A", "parent_ids": ["root"], "query": `+string(qj)+`}`
	case 2:
		name, args = "summarize_and_memorize", `{"summarize": "A found it.", "memorize": [{"information_id": "Picture 1", "is_useful": true, "key_timestamp": [], "priority_score": 5}]}`
	case 3:
		name, args = "add_search_node", `{"id": "B", "parent_ids": ["root"], "query": "unrelated detour"}`
	case 4:
		name, args = "summarize_and_memorize", `{"summarize": "Nothing here.", "memorize": []}`
	default:
		name, args = "add_answer_node", `{"parent_ids": ["A"], "answer": `+string(aj)+`}`
	}
	content := "<think>next</think>\n<tool_call>\n{\"name\": \"" + name + "\", \"arguments\": " + args + "}\n</tool_call>"
	modeltest.WriteStream(w, content, 1<<20, nil)
}

func TestEvalAnswersVimRAGNodes(t *testing.T) {
	data := t.TempDir()
	texts, _ := askKB(t, data, "pdf/real/blood_loss_report.pdf")
	word, page := uniqueWord(t, texts)
	q := eval.Question{ID: "v1", Question: "Where is " + word + " discussed?", Answer: word, AnswerFormat: "Str",
		EvidencePages: []int{page}, EvidenceSources: []string{"Figure"}, Doc: "blood_loss_report.pdf"}
	dataset := writeQuestions(t, data, []eval.Question{q})
	hs := httptest.NewServer(&vimragModel{qs: []eval.Question{q}, calls: map[string]int{}})
	defer hs.Close()
	openAIEnv(t, hs.URL)
	ctx := context.Background()
	out, err := cli(ctx, data, "eval", "answers", "--dataset", dataset, "--collection", "papers", "--mode", "vimrag",
		"--provider", "openai", "--model", "scripted-vimrag", "--json", "--per-question")
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	var rep eval.AnswersReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Items) != 1 {
		t.Fatalf("%d items", len(rep.Items))
	}
	it := rep.Items[0]
	if it.Status != "answered" || it.Score != 1 || it.Format != 1 || len(it.Calls) != 5 {
		t.Fatalf("item: status %s score %v format %v, %d calls; error %s", it.Status, it.Score, it.Format, len(it.Calls), it.RunError)
	}
	exp := filepath.Join(data, "jsonl")
	if out, err := cli(ctx, data, "export", "rollouts", fmt.Sprint(rep.Evaluation), "--format", "jsonl", "--out", exp); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	raw, _ := os.ReadFile(filepath.Join(exp, "rollouts.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	want := []struct {
		node string
		on   bool
	}{{"A", true}, {"A", true}, {"B", false}, {"B", false}, {"answer", true}}
	if len(lines) != len(want) {
		t.Fatalf("%d rollouts, want one per model call (%d)", len(lines), len(want))
	}
	for i, l := range lines {
		var r eval.Rollout
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.NodeID != want[i].node || r.OnAnswerPath != want[i].on || int(r.Step) != i+1 {
			t.Errorf("rollout %d: step %d node %q on path %v, want %q %v", i, r.Step, r.NodeID, r.OnAnswerPath, want[i].node, want[i].on)
		}
		// Each call's context was rebuilt: the system prompt, the question with the graph (and, for a summary, the
		// search call with its results), then the reply; only the model's turns are trained on.
		n := len(r.Messages)
		if n < 3 || r.Messages[0].Role != "system" || r.Messages[n-1].Role != "assistant" {
			t.Errorf("rollout %d: %d messages", i, n)
		}
		for j, m := range r.Messages {
			if (m.LossMask == 1) != (m.Role == "assistant") {
				t.Errorf("rollout %d message %d: %s with loss mask %d", i, j, m.Role, m.LossMask)
			}
		}
	}
	// sharegpt keeps the answer-path calls of the successful run: 3 of 5.
	sg := filepath.Join(data, "sg")
	if out, err := cli(ctx, data, "export", "rollouts", fmt.Sprint(rep.Evaluation), "--format", "sharegpt", "--out", sg); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	var recs []eval.ShareGPTRecord
	raw, _ = os.ReadFile(filepath.Join(sg, "sharegpt.json"))
	if err := json.Unmarshal(raw, &recs); err != nil || len(recs) != 3 || recs[0].System == "" {
		t.Fatalf("sharegpt: %d records %v", len(recs), err)
	}
}
