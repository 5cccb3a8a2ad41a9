package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"proofglass/backend/agent"
	"proofglass/backend/eval"
	"proofglass/backend/fixture"
	"proofglass/backend/kb"
	"proofglass/backend/kbagent"
	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/pdf"
)

// childArgsEnv makes the test binary run the CLI with these (JSON) arguments instead of the tests, so a test can
// kill -9 a real evaluation process.
const childArgsEnv = "PROOFGLASS_TEST_CLI_ARGS"

func init() {
	raw := os.Getenv(childArgsEnv)
	if raw == "" || (len(os.Args) > 1 && os.Args[1] == pdf.WorkerCommand) {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		fmt.Fprintln(os.Stderr, "bad", childArgsEnv, err)
		os.Exit(2)
	}
	os.Exit(Execute(context.Background(), args))
}

// devKB stores the documents of ../shared/eval/dev in collection "dev" as ingest does (original blob, one unit per
// page with MuPDF's text layer) and returns the questions.
func devKB(t *testing.T, data string) (string, []eval.Question) {
	t.Helper()
	dev := filepath.Join(fixture.Dir(t), "..", "eval", "dev")
	dataset := filepath.Join(dev, "questions.jsonl")
	qs, err := eval.ReadQuestions(dataset)
	if err != nil {
		t.Skipf("development set not found: %v", err)
	}
	ctx := context.Background()
	k := openData(t, data)
	defer k.Close()
	col, err := k.Docs.EnsureCollection(ctx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	c := pdf.NewClient(pdf.Options{})
	defer c.Close()
	docs, _ := filepath.Glob(filepath.Join(dev, "docs", "*.pdf"))
	if len(docs) != 10 {
		t.Fatalf("%d documents in %s, want 10", len(docs), dev)
	}
	for _, path := range docs {
		storePDF(t, k, c, col.ID, path)
	}
	return dataset, qs
}

// evalModel is a scripted OpenAI-compatible server playing both the agent's model and the judge. As the agent it
// searches for the question, then answers: the reference answer for the questions in right, a wrong one otherwise.
// As the judge it says True exactly when the generated answer equals the reference.
type evalModel struct {
	byText map[string]eval.Question
	right  map[string]bool
	// alternate: right on a question's 1st, 3rd, … run and wrong on the others, instead of by right.
	alternate bool

	temps  []any // the temperature of every agent call
	nAsked map[string]int

	mu     sync.Mutex
	asked  []string // question ids, in the order their first agent call arrived
	judged int
}

var (
	questionRe = regexp.MustCompile(`(?s)Question: (.*)$`)
	judgeRe    = regexp.MustCompile(`(?s)## Reference Answer\n(.*)\n\n## Generated Answer\n(.*)\n\nYour response should`)
)

func (m *evalModel) reply(first string, assistantTurns int) (string, error) {
	if strings.HasPrefix(first, "You are an expert evaluation system") {
		g := judgeRe.FindStringSubmatch(first)
		if g == nil {
			return "", fmt.Errorf("judge prompt not recognised: %q", first)
		}
		m.mu.Lock()
		m.judged++
		m.mu.Unlock()
		return fmt.Sprintf("<judge>%v</judge>", strings.TrimSpace(g[1]) == strings.TrimSpace(g[2])), nil
	}
	qm := questionRe.FindStringSubmatch(first)
	if qm == nil {
		return "", fmt.Errorf("no question in %q", first)
	}
	q, ok := m.byText[strings.TrimSpace(qm[1])]
	if !ok {
		return "", fmt.Errorf("unknown question %q", qm[1])
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if assistantTurns == 0 {
		m.asked = append(m.asked, q.ID)
		if m.nAsked == nil {
			m.nAsked = map[string]int{}
		}
		m.nAsked[q.ID]++
		return "<think>I need the page.</think>\n<search>" + q.Question + "</search>", nil
	}
	ans := "zzz qqq"
	if m.right[q.ID] && !m.alternate || m.alternate && m.nAsked[q.ID]%2 == 1 {
		ans = q.Answer
	}
	return "<think>The page says so.</think>\n<answer>" + ans + "</answer>", nil
}

func (m *evalModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Temperature any `json:"temperature"`
		Messages    []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	text := func(raw json.RawMessage) string {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(raw, &parts)
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	turns := 0
	for _, msg := range req.Messages {
		if msg.Role == "assistant" {
			turns++
		}
	}
	// The prompt: the first message after any system line (vrag sends Qwen's default one).
	first := text(req.Messages[0].Content)
	for _, msg := range req.Messages {
		if msg.Role != "system" {
			first = text(msg.Content)
			break
		}
	}
	if !strings.HasPrefix(first, "You are an expert evaluation system") {
		m.mu.Lock()
		m.temps = append(m.temps, req.Temperature)
		m.mu.Unlock()
	}
	content, err := m.reply(first, turns)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	modeltest.WriteStream(w, content, 1<<20, &model.Usage{PromptTokens: 500, CompletionTokens: 20})
}

// idcg is the best DCG of n relevant pages, by hand: Σ 1/log2(i+1).
func idcg(n int) float64 {
	s := 0.0
	for i := 1; i <= n; i++ {
		s += 1 / math.Log2(float64(i)+1)
	}
	return s
}

func TestEvalAnswersDevEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests the 640 pages of the development set")
	}
	data := t.TempDir()
	dataset, qs := devKB(t, data)
	m := &evalModel{byText: map[string]eval.Question{}, right: map[string]bool{}}
	for i, q := range qs {
		m.byText[strings.TrimSpace(q.Question)] = q
		if i%3 == 0 { // the known subset the model answers right: 22 of 66
			m.right[q.ID] = true
		}
	}
	hs := httptest.NewServer(m)
	defer hs.Close()
	openAIEnv(t, hs.URL)
	args := []string{"--data", data, "eval", "answers", "--dataset", dataset, "--collection", "dev", "--mode", "vrag",
		"--provider", "openai", "--model", "scripted-vl", "--judge-provider", "openai", "--judge-model", "scripted-judge",
		"--concurrency", "2"}

	// 1. A real process, killed with SIGKILL after some answers were scored.
	argsJSON, _ := json.Marshal(args)
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childArgsEnv+"="+string(argsJSON))
	child.Stderr = io.Discard
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill() })
	fixture.WaitFor(t, 3*time.Minute, func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.judged >= 12
	}, "the evaluation to judge 12 answers")
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	ctx := context.Background()
	k, err := kb.Open(ctx, filepath.Join(data, "proofglass.db"), filepath.Join(data, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	evs, err := k.History.Evaluations(ctx)
	if err != nil || len(evs) != 1 || evs[0].Status != "running" {
		t.Fatalf("after kill -9: evaluations %+v, %v", evs, err)
	}
	before, err := k.History.EvalItems(ctx, evs[0].ID)
	if err != nil || len(before) == 0 || len(before) >= len(qs) {
		t.Fatalf("after kill -9: %d items stored (%v)", len(before), err)
	}
	scored := map[string]bool{}
	for _, it := range before {
		scored[it.QuestionID] = true
	}
	m.mu.Lock()
	askedBefore := len(m.asked)
	m.mu.Unlock()
	k.Close()

	// 2. The same command again resumes: nothing already scored is asked again.
	out, err := cli(ctx, data, append(args[2:], "--json", "--per-question", "--report", filepath.Join(data, "report.html"))...)
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	m.mu.Lock()
	for _, id := range m.asked[askedBefore:] {
		if scored[id] {
			t.Errorf("question %s was scored before the kill and was run again", id)
		}
	}
	m.mu.Unlock()
	t.Logf("killed after %d scored answers; the resumed evaluation ran %d more", len(before), len(qs)-len(before))

	var rep eval.AnswersReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out)
	}
	for _, it := range rep.Items {
		if it.RunError != "" {
			t.Errorf("%s: run %d: %s", it.QuestionID, it.RunID, it.RunError)
		}
	}
	if rep.Evaluation != evs[0].ID || len(rep.Items) != len(qs) || rep.RunErrs != 0 || rep.JudgeErrs != 0 {
		t.Fatalf("report: evaluation %d (want %d), %d items, %d run errors, %d judge errors", rep.Evaluation, evs[0].ID,
			len(rep.Items), rep.RunErrs, rep.JudgeErrs)
	}

	// 3. The numbers, by hand: 22 right of 66; per source, the right ones among the questions citing it.
	k, err = kb.Open(ctx, filepath.Join(data, "proofglass.db"), filepath.Join(data, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	byID := map[string]eval.Question{}
	for _, q := range qs {
		byID[q.ID] = q
	}
	wantReward := map[string]float64{}
	var rewardSum float64
	for _, it := range rep.Items {
		q := byID[it.QuestionID]
		right := m.right[q.ID]
		wantScore := 0.0
		if right {
			wantScore = 1
		}
		if it.Score != wantScore || it.Judge != wantScore || it.Format != 1 {
			t.Errorf("%s: score %v judge %v format %v, want %v, %v, 1", q.ID, it.Score, it.Judge, it.Format, wantScore, wantScore)
		}
		// The page the run showed, from its stored events; NDCG of one page at rank 1 is rel / IDCG(#evidence).
		stored, err := kbagent.Events(ctx, k, it.RunID)
		if err != nil {
			t.Fatal(err)
		}
		var shown []agent.Hit
		for _, ev := range stored {
			if ev.Kind == agent.KindResults {
				for _, h := range ev.Results.Hits {
					if h.Shown {
						shown = append(shown, h)
					}
				}
			}
		}
		if len(shown) != 1 {
			t.Fatalf("%s: run %d showed %d pages, want 1", q.ID, it.RunID, len(shown))
		}
		// The stored item carries its run's grounding pass (every answered run makes one).
		if g := eval.GroundingOf(stored); it.Status == "answered" && (it.Grounding == nil || g == nil || *it.Grounding != *g) {
			t.Errorf("%s: item grounding %+v, run's %+v", q.ID, it.Grounding, g)
		}
		ndcg := 0.0
		for _, p := range q.EvidencePages {
			if shown[0].DocumentName == q.Doc && shown[0].Page == p {
				ndcg = 1 / idcg(len(q.EvidencePages))
			}
		}
		want := 0.7*wantScore + 0.1 + 0.2*ndcg
		wantReward[q.ID] = want
		rewardSum += want
		if math.Abs(it.Reward-want) > 1e-9 || math.Abs(it.NDCG-ndcg) > 1e-9 {
			t.Errorf("%s: reward %v NDCG %v, want %v and %v", q.ID, it.Reward, it.NDCG, want, ndcg)
		}
		r, err := k.History.Run(ctx, it.RunID)
		if err != nil || r.Status != "done" || r.Question != q.Question {
			t.Errorf("%s: linked run %d: %+v %v", q.ID, it.RunID, r, err)
		}
	}
	o := rep.Overall["vrag"]
	t.Logf("overall: accuracy %.4f F1 %.4f judge %.4f reward %.4f NDCG %.4f", o.Accuracy, o.F1, o.JudgeAcc, o.Reward, o.NDCG)
	if o.N != 66 || math.Abs(o.Accuracy-22.0/66) > 1e-12 || math.Abs(o.JudgeAcc-22.0/66) > 1e-12 ||
		math.Abs(o.Reward-rewardSum/66) > 1e-12 {
		t.Errorf("overall %+v, want n 66, accuracy and judge 22/66, reward %v", o, rewardSum/66)
	}
	// Generalised F1: recall = right answerable / answerable; precision = right answerable / predictions that are not
	// "Not answerable" (the right answers to unanswerable questions are the only refusals).
	var answerable, rightAnswerable, refusals float64
	for _, q := range qs {
		switch {
		case q.AnswerFormat != "None":
			answerable++
			if m.right[q.ID] {
				rightAnswerable++
			}
		case m.right[q.ID]:
			refusals++
		}
	}
	rec, prec := rightAnswerable/answerable, rightAnswerable/(66-refusals)
	if wantF1 := 2 * rec * prec / (rec + prec); math.Abs(o.F1-wantF1) > 1e-12 {
		t.Errorf("F1 %v, want %v", o.F1, wantF1)
	}
	sourceName := map[string]string{"Pure-text (Plain-text)": "text", "Table": "table", "Chart": "chart",
		"Figure": "figure", "Generalized-text (Layout)": "layout"}
	n, right := map[string]int{}, map[string]int{}
	for _, q := range qs {
		srcs := map[string]bool{}
		for _, s := range q.EvidenceSources {
			srcs[sourceName[s]] = true
		}
		if len(srcs) == 0 {
			srcs["none"] = true
		}
		for s := range srcs {
			n[s]++
			if m.right[q.ID] {
				right[s]++
			}
		}
	}
	for s, cnt := range n {
		got := rep.BySource[s]["vrag"]
		if got.N != cnt || math.Abs(got.JudgeAcc-float64(right[s])/float64(cnt)) > 1e-12 {
			t.Errorf("source %s: %+v, want n %d judge %d/%d", s, got, cnt, right[s], cnt)
		}
		t.Logf("source %-6s n=%2d right=%2d judge=%.3f", s, cnt, right[s], got.JudgeAcc)
	}
	html, err := os.ReadFile(filepath.Join(data, "report.html"))
	if err != nil || !strings.Contains(string(html), "<svg") || !strings.Contains(string(html), fmt.Sprintf(`href="#run-%d"`, rep.Items[0].RunID)) ||
		strings.Contains(string(html), "<script") || strings.Contains(string(html), `src="http`) ||
		strings.Contains(string(html), `href="http`) {
		t.Errorf("report: self-contained with charts and run links? %v", err)
	}

	// 4. Rollouts as verl Parquet, read back with parquet-go into a separate row type.
	exp := filepath.Join(data, "verl")
	if out, err := cli(ctx, data, "export", "rollouts", fmt.Sprint(rep.Evaluation), "--format", "verl", "--out", exp); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	type turn struct {
		Role     string `parquet:"role"`
		Content  string `parquet:"content"`
		LossMask int32  `parquet:"loss_mask"`
	}
	type row struct {
		ID        string   `parquet:"id"`
		RunID     int64    `parquet:"run_id"`
		Question  string   `parquet:"question_id"`
		Reward    float64  `parquet:"reward"`
		Advantage float64  `parquet:"advantage"`
		Messages  []turn   `parquet:"messages,list"`
		Images    []string `parquet:"images,list"`
		Extra     struct {
			FileName      string  `parquet:"file_name"`
			ReferencePage []int32 `parquet:"reference_page,list"`
		} `parquet:"extra_info"`
	}
	rows, err := parquet.ReadFile[row](filepath.Join(exp, "rollouts.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(qs) {
		t.Fatalf("%d parquet rows, want %d", len(rows), len(qs))
	}
	runOf := map[string]int64{}
	for _, it := range rep.Items {
		runOf[it.QuestionID] = it.RunID
	}
	for _, r := range rows {
		q := byID[r.Question]
		if r.RunID != runOf[q.ID] || math.Abs(r.Reward-wantReward[q.ID]) > 1e-12 || r.Advantage != r.Reward/(1+1e-6) ||
			r.Extra.FileName != q.Doc || len(r.Extra.ReferencePage) != len(q.EvidencePages) {
			t.Errorf("row %s: run %d reward %v advantage %v extra %+v", r.ID, r.RunID, r.Reward, r.Advantage, r.Extra)
			continue
		}
		// Qwen's default system line (vrag sends it, as the chat template would add it), user prompt, search turn, page
		// image (environment), answer turn.
		roles := []string{"system", "user", "assistant", "user", "assistant"}
		masks := []int32{0, 0, 1, 0, 1}
		if len(r.Messages) != 5 || len(r.Images) != 1 || r.Messages[0].Content != "You are a helpful assistant." || r.Messages[3].Content != "<image>" {
			t.Errorf("row %s: messages %+v images %v", r.ID, r.Messages, r.Images)
			continue
		}
		for i, mm := range r.Messages {
			if mm.Role != roles[i] || mm.LossMask != masks[i] {
				t.Errorf("row %s message %d: %s mask %d", r.ID, i, mm.Role, mm.LossMask)
			}
		}
		if !strings.HasSuffix(r.Messages[2].Content, "<search>"+q.Question+"</search>") {
			t.Errorf("row %s: search turn %q", r.ID, r.Messages[2].Content)
		}
		// The image file is the page the stored run sent.
		img, err := os.ReadFile(filepath.Join(exp, r.Images[0]))
		if err != nil {
			t.Fatal(err)
		}
		stored, _ := kbagent.Events(ctx, k, r.RunID)
		var sentBlob string
		for _, ev := range stored {
			if ev.Kind == agent.KindResults && len(ev.Results.Sent) > 0 {
				sentBlob = ev.Results.Sent[0].Image.Blob
			}
		}
		sum := sha256.Sum256(img)
		if hex.EncodeToString(sum[:]) != sentBlob {
			t.Errorf("row %s: image file is not the page the run sent", r.ID)
		}
	}

	// 5. sharegpt keeps the successful trajectories only: the 22 right ones.
	sg := filepath.Join(data, "sharegpt")
	if out, err := cli(ctx, data, "export", "rollouts", fmt.Sprint(rep.Evaluation), "--format", "sharegpt", "--out", sg); err != nil {
		t.Fatalf("export sharegpt: %v\n%s", err, out)
	}
	var recs []eval.ShareGPTRecord
	b, _ := os.ReadFile(filepath.Join(sg, "sharegpt.json"))
	if err := json.Unmarshal(b, &recs); err != nil || len(recs) != 22 {
		t.Fatalf("sharegpt: %d records (%v), want 22", len(recs), err)
	}
}

func TestEvalAnswersGRPOGroups(t *testing.T) {
	data := t.TempDir()
	texts, _ := askKB(t, data, "pdf/real/blood_loss_report.pdf")
	word, page := uniqueWord(t, texts)
	qs := []eval.Question{
		{ID: "g1", Question: "Which page discusses " + word + "?", Answer: word, AnswerFormat: "Str",
			EvidencePages: []int{page}, EvidenceSources: []string{"Table"}, Doc: "blood_loss_report.pdf"},
		{ID: "g2", Question: "How many times is " + word + " mentioned?", Answer: "1", AnswerFormat: "Int",
			EvidencePages: []int{page}, EvidenceSources: []string{"Pure-text (Plain-text)"}, Doc: "blood_loss_report.pdf"},
	}
	dataset := writeQuestions(t, data, qs)
	m := &evalModel{byText: map[string]eval.Question{}, alternate: true}
	for _, q := range qs {
		m.byText[q.Question] = q
	}
	hs := httptest.NewServer(m)
	defer hs.Close()
	openAIEnv(t, hs.URL)
	ctx := context.Background()
	out, err := cli(ctx, data, "eval", "answers", "--dataset", dataset, "--collection", "papers", "--mode", "vrag",
		"--provider", "openai", "--model", "scripted-vl", "--samples", "3", "--json", "--per-question")
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	for _, temp := range m.temps {
		if temp != 1.0 {
			t.Fatalf("agent call temperature %v, want 1.0 for a GRPO group", temp)
		}
	}
	var rep eval.AnswersReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Items) != 6 || rep.Samples != 3 || rep.Judge != "rule" {
		t.Fatalf("%d items, %d samples, judge %s", len(rep.Items), rep.Samples, rep.Judge)
	}
	// Per question the rewards are [a, a−0.7, a] (right, wrong, right; same page shown): mean a−0.7/3, sample std
	// 0.7/√3, so the advantages are 1/√3, −2/√3, 1/√3.
	want := []float64{1 / math.Sqrt(3), -2 / math.Sqrt(3), 1 / math.Sqrt(3)}
	for _, it := range rep.Items {
		if math.Abs(it.Advantage-want[it.Sample]) > 1e-5 {
			t.Errorf("%s sample %d: reward %v advantage %v, want %v", it.QuestionID, it.Sample, it.Reward, it.Advantage, want[it.Sample])
		}
	}
	// jsonl export carries the same rewards and advantages, one trajectory per run.
	exp := filepath.Join(data, "jsonl")
	if out, err := cli(ctx, data, "export", "rollouts", fmt.Sprint(rep.Evaluation), "--format", "jsonl", "--out", exp); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(exp, "rollouts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(rows) != 6 {
		t.Fatalf("%d jsonl rows, want 6", len(rows))
	}
	for _, l := range rows {
		var r eval.Rollout
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Advantage-want[r.Sample]) > 1e-5 || !strings.HasPrefix(r.Text, "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nAnswer the given question.") {
			t.Errorf("row %s: advantage %v, text %.80q", r.ID, r.Advantage, r.Text)
		}
	}
	// --tool-weight 0 is the reward above exactly; --tool-weight W --tool-budget N weighs each run's recorded tool
	// calls: (1−W)·reward + W·judge·max(0, 1 − calls/N).
	readRows := func(dir string) []eval.Rollout {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, "rollouts.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		var out []eval.Rollout
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r eval.Rollout
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	base := map[string]eval.Rollout{}
	for _, r := range readRows(exp) {
		base[r.ID] = r
	}
	w0 := filepath.Join(data, "w0")
	if out, err := cli(ctx, data, "export", "rollouts", fmt.Sprint(rep.Evaluation), "--format", "jsonl", "--out", w0, "--tool-weight", "0", "--tool-budget", "3"); err != nil {
		t.Fatalf("export W=0: %v\n%s", err, out)
	}
	for _, r := range readRows(w0) {
		if b := base[r.ID]; r.Reward != b.Reward || r.Advantage != b.Advantage {
			t.Errorf("W=0 row %s: reward %v advantage %v, want %v %v", r.ID, r.Reward, r.Advantage, b.Reward, b.Advantage)
		}
	}
	w := filepath.Join(data, "w")
	if out, err := cli(ctx, data, "export", "rollouts", fmt.Sprint(rep.Evaluation), "--format", "jsonl", "--out", w, "--tool-weight", "0.5", "--tool-budget", "4"); err != nil {
		t.Fatalf("export W=0.5: %v\n%s", err, out)
	}
	for _, r := range readRows(w) {
		b := base[r.ID]
		if r.NumToolCalls == 0 || int(r.NumToolCalls) != len(r.ToolCalls) || !strings.HasPrefix(r.ToolCalls[0], "search: ") {
			t.Fatalf("row %s tool calls %d %q", r.ID, r.NumToolCalls, r.ToolCalls)
		}
		want := 0.5*b.Reward + 0.5*r.Judge*math.Max(0, 1-float64(r.NumToolCalls)/4)
		if math.Abs(r.Reward-want) > 1e-12 {
			t.Errorf("row %s: reward %v with %d tool calls, want %v", r.ID, r.Reward, r.NumToolCalls, want)
		}
	}
	if _, err := cli(ctx, data, "export", "rollouts", fmt.Sprint(rep.Evaluation), "--out", w, "--tool-weight", "0.5"); err == nil || !strings.Contains(err.Error(), "tool budget") {
		t.Errorf("--tool-weight without --tool-budget: %v", err)
	}
	// compare prints the difference of an evaluation with itself as zero change.
	cmp, err := cli(ctx, data, "eval", "compare", fmt.Sprint(rep.Evaluation), fmt.Sprint(rep.Evaluation))
	if err != nil || !strings.Contains(cmp, "(+0.000)") || !strings.Contains(cmp, "vrag: 0 fixed") {
		t.Fatalf("compare: %v\n%s", err, cmp)
	}
}
