package eval

import (
	"math"
	"strings"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/pagecache"
)

// noTagObservation is the text of VRAG-RL's invalid-action observation (it quotes <search> and <answer> Beijing).
const noTagObservation = "Your previous action is invalid. You must conduct reasoning inside <think> and </think> first every time you get new information. After reasoning, if you want to search, you should put the query between <search> and </search>.\nIf you find no further external knowledge needed, you can directly provide the answer inside <answer> and </answer>, without detailed illustrations. For example, <answer> Beijing </answer>. Please try again.\n"

func text(role, s string) Message { return Message{Role: role, Parts: []Part{{Text: s}}} }

// A run that searched (page 3, then page 1 of the document), once wrote no tag, and answered.
func answeredCall() Call {
	return Call{Step: 3, Messages: []Message{
		text("user", "Answer the given question. … Question: What degree does LEBOUR have?"),
		text("assistant", "<think>look it up</think><search>LEBOUR degree</search>"),
		{Role: "user", Parts: []Part{{Image: "aa"}}},
		text("assistant", "<think>hmm</think>no tag here"),
		text("user", noTagObservation),
	}, Reply: text("assistant", "<think>page says M.A.</think><answer>M.A.</answer>")}
}

// A run that never searched nor answered, and was shown the invalid-action observation.
func lostCall() Call {
	return Call{Step: 2, Messages: []Message{
		text("user", "Answer the given question. … Question: q"),
		text("assistant", "I am not sure"),
		text("user", noTagObservation),
	}, Reply: text("assistant", "still not sure")}
}

// TestPageIDIsTheServedFileName: the reward's page names are the page files serve hands out, less ".jpg", for
// PDFs named as VRAG names them and for images; a name whose file had to be cut is VRAG's whole name, as golden
// lists write it and as serve's items carry it (name).
func TestPageIDIsTheServedFileName(t *testing.T) {
	long := strings.Repeat("长", 100) + ".pdf" // 300 bytes of stem: cut where a file name must be
	for _, tt := range []struct {
		doc   string
		isPDF bool
		want  string
	}{
		{"report.pdf", true, "report_3"},
		{"a.pdf.backup.pdf", true, "a_3"},
		{"report.PDF", true, "report.PDF_3"},
		{"photo.png", false, "photo_3"},
		{"clip.v2.mp4", false, "clip.v2_3"},
		{long, true, ""},
	} {
		got := PageID(tt.doc, 3)
		served := strings.TrimSuffix(pagecache.FileName(tt.doc, tt.isPDF, 3), ".jpg")
		if whole := pagecache.PageName(tt.doc, tt.isPDF, 3); got != whole || (tt.doc != long && got != served) {
			t.Errorf("PageID(%q) = %q; serve names the file %q and the page %q", tt.doc, got, served, whole)
		}
		if tt.doc == long && (got != strings.Repeat("长", 100)+"_3" || len(served) >= len(got)) {
			t.Errorf("PageID of a name past a file name's length = %q (file %q): want the whole name", got, served)
		}
		if tt.want != "" && got != tt.want {
			t.Errorf("PageID(%q) = %q, want %q", tt.doc, got, tt.want)
		}
	}
}

func TestRewardHandComputed(t *testing.T) {
	golden := []string{PageID("fd76bbefe469561966e5387aa709c482.pdf", 1)}
	evs := []agent.Event{{Kind: agent.KindResults, Results: &agent.ResultsInfo{
		Hits: []agent.Hit{{UnitID: "7", DocumentName: "fd76bbefe469561966e5387aa709c482.pdf", Page: 3, Shown: true},
			{UnitID: "5", DocumentName: "fd76bbefe469561966e5387aa709c482.pdf", Page: 1}},
		Sent: []agent.SentImage{{UnitID: "7"}}}}, {Kind: agent.KindResults, Results: &agent.ResultsInfo{
		Hits: []agent.Hit{{UnitID: "5", DocumentName: "fd76bbefe469561966e5387aa709c482.pdf", Page: 1, Shown: true}},
		Sent: []agent.SentImage{{UnitID: "5"}}}}}
	shown := ShownPages(evs)
	if strings.Join(shown, ",") != "fd76bbefe469561966e5387aa709c482_3,fd76bbefe469561966e5387aa709c482_1" {
		t.Fatalf("ShownPages = %v", shown)
	}
	// rel = [0, 1]: DCG = 1/log2(3); ideal [1, 0]: IDCG = 1.
	wantNDCG := 1 / math.Log2(3)
	if got := NDCG(shown, golden); math.Abs(got-wantNDCG) > 1e-12 {
		t.Fatalf("NDCG = %v, want %v", got, wantNDCG)
	}
	cases := map[string]struct {
		call       Call
		original   bool
		wantFormat float64
		wantAnswer string
		judge      float64
		ndcg       float64
		wantReward float64
	}{
		"answered, intended": {answeredCall(), false, 1, "M.A.", 1, wantNDCG, 0.7 + 0.1 + 0.2*wantNDCG},
		"answered, original": {answeredCall(), true, 1, "M.A.", 1, wantNDCG, 0.7 + 0.1 + 0.2*wantNDCG},
		"lost, intended":     {lostCall(), false, 0, noAnswer, 0, 0, 0},
		// The reference's regex strips nothing: the observation's own tags pass the format check and its example
		// answer is what the judge sees.
		"lost, original": {lostCall(), true, 1, " Beijing ", 0, 0, 0.1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resp := TrajectoryOf(c.call).Response()
			if f := FormatScore(resp, c.original); f != c.wantFormat {
				t.Errorf("FormatScore = %v, want %v\nresponse: %q", f, c.wantFormat, resp)
			}
			if a := GeneratedAnswer(resp, c.original); a != c.wantAnswer {
				t.Errorf("GeneratedAnswer = %q, want %q", a, c.wantAnswer)
			}
			if r := Reward(c.judge, FormatScore(resp, c.original), c.ndcg); math.Abs(r-c.wantReward) > 1e-12 {
				t.Errorf("Reward = %v, want %v", r, c.wantReward)
			}
		})
	}
}

func TestResponseRendering(t *testing.T) {
	tr := TrajectoryOf(answeredCall())
	if len(tr.Prompt) != 1 || len(tr.Turns) != 5 {
		t.Fatalf("prompt %d turns %d, want 1 and 5", len(tr.Prompt), len(tr.Turns))
	}
	want := "<think>look it up</think><search>LEBOUR degree</search><|im_end|>" +
		"\n<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|><|im_end|>\n<|im_start|>assistant\n" +
		"<think>hmm</think>no tag here<|im_end|>" +
		"\n<|im_start|>user\n" + noTagObservation + "<|im_end|>\n<|im_start|>assistant\n" +
		"<think>page says M.A.</think><answer>M.A.</answer><|im_end|>"
	if got := tr.Response(); got != want {
		t.Fatalf("Response =\n%q\nwant\n%q", got, want)
	}
	if p := tr.PromptText(); !strings.HasPrefix(p, "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nAnswer") ||
		!strings.HasSuffix(p, "<|im_end|>\n<|im_start|>assistant\n") {
		t.Fatalf("PromptText = %q", p)
	}
}

func TestNDCGEdges(t *testing.T) {
	cases := map[string]struct {
		retrieved, golden []string
		want              float64
	}{
		"nothing retrieved":        {nil, []string{"a_1"}, 0},
		"no golden pages":          {[]string{"a_1"}, nil, 0},
		"perfect":                  {[]string{"a_1", "a_2"}, []string{"a_2", "a_1"}, 1},
		"more golden than shown":   {[]string{"a_1"}, []string{"a_1", "a_2"}, 1 / (1 + 1/math.Log2(3))},
		"repeat counts again":      {[]string{"a_1", "a_1"}, []string{"a_1"}, (1 + 1/math.Log2(3)) / 1},
		"other document same page": {[]string{"b_1"}, []string{"a_1"}, 0},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := NDCG(c.retrieved, c.golden); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("NDCG = %v, want %v", got, c.want)
			}
		})
	}
}

func TestAdvantages(t *testing.T) {
	cases := map[string]struct {
		rewards, want []float64
	}{
		"three":        {[]float64{1, 0, 0.5}, []float64{0.5 / (0.5 + 1e-6), -0.5 / (0.5 + 1e-6), 0}},
		"group of one": {[]float64{0.8}, []float64{0.8 / (1 + 1e-6)}},
		"all equal":    {[]float64{0.3, 0.3}, []float64{0, 0}},
		"empty":        {nil, []float64{}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := Advantages(c.rewards)
			if len(got) != len(c.want) {
				t.Fatalf("len %d, want %d", len(got), len(c.want))
			}
			for i := range got {
				if math.Abs(got[i]-c.want[i]) > 1e-9 {
					t.Errorf("advantage %d = %v, want %v", i, got[i], c.want[i])
				}
			}
		})
	}
}

func TestJudgePromptAndVerdict(t *testing.T) {
	p := JudgePrompt("Q?", "M.A.", "{query} M.A.")
	if !strings.HasPrefix(p, "You are an expert evaluation system for a question answering chatbot.\n\n") ||
		!strings.Contains(p, "## Query\nQ?\n\n## Reference Answer\nM.A.\n\n## Generated Answer\n{query} M.A.\n\n") ||
		!strings.HasSuffix(p, "may contain additional information beyond the reference answer.") {
		t.Fatalf("JudgePrompt = %q", p)
	}
	cases := map[string]struct {
		reply string
		want  float64
		err   bool
	}{
		"true":       {"<judge>True</judge>", 1, false},
		"false":      {"<judge>False</judge>", 0, false},
		"lower true": {"ok <judge>true</judge>", 1, false},
		"spaces":     {"<judge> True </judge>", 1, false},
		"missing":    {"True", 0, true},
		"other word": {"<judge>Maybe</judge>", 0, true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseVerdict(c.reply)
			if (err != nil) != c.err || got != c.want {
				t.Errorf("ParseVerdict(%q) = %v, %v", c.reply, got, err)
			}
		})
	}
}

func TestMarkNodesAnswerPath(t *testing.T) {
	// root → s1 → s2 → answer, and s3 (a branch off root) not on the answer's path. Calls: 1 add s1, 2 memorize s1,
	// 3 add s3, 4 memorize s3, 5 add s2, 6 memorize s2, 7 answer.
	evs := []agent.Event{
		{Step: 1, Kind: agent.KindSearch, Search: &agent.SearchInfo{NodeID: "s1"}},
		{Step: 2, Kind: agent.KindMemorize, Memorize: &agent.MemorizeInfo{NodeID: "s1"}},
		{Step: 3, Kind: agent.KindSearch, Search: &agent.SearchInfo{NodeID: "s3"}},
		{Step: 4, Kind: agent.KindMemorize, Memorize: &agent.MemorizeInfo{NodeID: "s3"}},
		{Step: 5, Kind: agent.KindSearch, Search: &agent.SearchInfo{NodeID: "s2"}},
		{Step: 6, Kind: agent.KindMemorize, Memorize: &agent.MemorizeInfo{NodeID: "s2"}},
		{Step: 7, Kind: agent.KindGraph, Graph: &agent.GraphInfo{Nodes: []agent.GraphNode{
			{ID: "root", Type: "root"}, {ID: "s1", Parents: []string{"root"}}, {ID: "s3", Parents: []string{"root"}},
			{ID: "s2", Parents: []string{"s1"}}, {ID: "answer", Type: "answer", Parents: []string{"s2"}}}}},
		{Step: 7, Kind: agent.KindAnswer, Answer: &agent.AnswerInfo{Text: "x"}},
	}
	calls := make([]Call, 7)
	for i := range calls {
		calls[i].Step = i + 1
	}
	MarkNodes(calls, evs)
	want := []struct {
		node string
		on   bool
	}{{"s1", true}, {"s1", true}, {"s3", false}, {"s3", false}, {"s2", true}, {"s2", true}, {"answer", true}}
	for i, w := range want {
		if calls[i].NodeID != w.node || calls[i].OnAnswerPath != w.on {
			t.Errorf("call %d: node %q on path %v, want %q %v", i+1, calls[i].NodeID, calls[i].OnAnswerPath, w.node, w.on)
		}
	}
}

func TestToolReward(t *testing.T) {
	for _, c := range []struct {
		judge, format, ndcg float64
		calls               int
		w                   float64
		n                   int
		want                float64
	}{
		{1, 1, 0.5, 3, 0, 4, Reward(1, 1, 0.5)},              // W = 0: VRAG-RL's reward exactly
		{1, 1, 0.5, 3, 0.2, 4, 0.8*(0.7+0.1+0.1) + 0.2*0.25}, // one call left of four
		{1, 1, 0.5, 9, 0.2, 4, 0.8 * 0.9},                    // over budget: no efficiency
		{0, 1, 1, 1, 0.5, 4, 0.5 * 0.3},                      // a wrong answer gains nothing from few calls
		{1, 0, 1, 1, 0.5, 4, 0.5 * 0.75},                     // failed format: the base is 0
	} {
		if got := ToolReward(c.judge, c.format, c.ndcg, c.calls, c.w, c.n); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ToolReward(%v, %v, %v, %d calls, W %v, N %d) = %v, want %v", c.judge, c.format, c.ndcg, c.calls, c.w, c.n, got, c.want)
		}
	}
	if (RolloutOptions{ToolWeight: 1.5}).Check() == nil || (RolloutOptions{ToolWeight: 0.3}).Check() == nil || (RolloutOptions{}).Check() != nil {
		t.Error("RolloutOptions.Check")
	}
}
