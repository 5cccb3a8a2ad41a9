package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"proofglass/backend/eval"
	"proofglass/backend/fixture"
)

// TestEvalAnswersE2EOllama runs the whole pipeline against the real Ollama of ../shared/tools/ollama-e2e: the agent
// on tiny-vision (random weights), the judge on tiny-bigram, the HTML report and a verl export. The models say
// nothing meaningful, so accuracy near zero is the honest result; the test checks that every stage ran and that
// what was stored is consistent, never what the models said.
func TestEvalAnswersE2EOllama(t *testing.T) {
	fixture.OllamaHost(t)
	data := t.TempDir()
	texts, _ := askKB(t, data, "pdf/real/blood_loss_report.pdf")
	word, page := uniqueWord(t, texts)
	qs := []eval.Question{
		{ID: "o1", Question: "Which page discusses " + word + "?", Answer: word, AnswerFormat: "Str",
			EvidencePages: []int{page}, EvidenceSources: []string{"Table"}, Doc: "blood_loss_report.pdf"},
		{ID: "o2", Question: "What is the capital of Atlantis?", Answer: "Not answerable", AnswerFormat: "None",
			EvidencePages: []int{}, Doc: "blood_loss_report.pdf"},
	}
	dataset := writeQuestions(t, data, qs)
	t.Setenv("PROOFGLASS_PROVIDER", "")
	t.Setenv("PROOFGLASS_MODEL", "")
	ctx := context.Background()
	report := filepath.Join(data, "report.html")
	out, err := cli(ctx, data, "eval", "answers", "--dataset", dataset, "--collection", "papers", "--mode", "vanilla,vrag",
		"--provider", "ollama", "--model", "tiny-vision", "--judge-provider", "ollama", "--judge-model", "tiny-bigram",
		"--json", "--per-question", "--report", report)
	if err != nil {
		t.Fatalf("eval answers: %v\n%s", err, out)
	}
	var rep eval.AnswersReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Items) != 4 || rep.Judge != "ollama/tiny-bigram" {
		t.Fatalf("%d items (want 2 questions × 2 modes), judge %q", len(rep.Items), rep.Judge)
	}
	for _, it := range rep.Items {
		if it.RunID == 0 || it.Cost.ModelCalls == 0 {
			t.Errorf("%s/%s: run %d, %d model calls", it.QuestionID, it.Mode, it.RunID, it.Cost.ModelCalls)
		}
		// A judge that never writes <judge>…</judge> is recorded as such and counts as wrong, not as right.
		if it.JudgeError != "" && it.Judge != 0 {
			t.Errorf("%s/%s: judge error %q with verdict %v", it.QuestionID, it.Mode, it.JudgeError, it.Judge)
		}
		t.Logf("%s/%s: status %s, answer %.40q, score %.2f, judge %.0f (reply %.40q), reward %.3f, %d calls, %d images, %d ms",
			it.QuestionID, it.Mode, it.Status, it.Answer, it.Score, it.Judge, it.JudgeReply, it.Reward, it.Cost.ModelCalls,
			it.Cost.Images, it.Cost.WallMS)
	}
	for _, m := range rep.Modes {
		o := rep.Overall[m]
		t.Logf("%s: accuracy %.3f, judge %.3f, reward %.3f, NDCG %.3f (random-weight models: near zero is expected)",
			m, o.Accuracy, o.JudgeAcc, o.Reward, o.NDCG)
	}
	if b, err := os.ReadFile(report); err != nil || !strings.Contains(string(b), "<svg") {
		t.Fatalf("report: %v", err)
	}
	exp := filepath.Join(data, "verl")
	if out, err := cli(ctx, data, "export", "rollouts", fmt.Sprint(rep.Evaluation), "--format", "verl", "--out", exp); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	rows, err := parquet.ReadFile[eval.Rollout](filepath.Join(exp, "rollouts.parquet"))
	if err != nil || len(rows) == 0 {
		t.Fatalf("parquet: %d rows, %v", len(rows), err)
	}
	for _, r := range rows {
		for _, img := range r.Images {
			if _, err := os.Stat(filepath.Join(exp, img)); err != nil {
				t.Errorf("row %s: image %s: %v", r.ID, img, err)
			}
		}
	}
}
