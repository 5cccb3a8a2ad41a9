package eval

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"strings"
	"sync"

	"proofglass/backend/agent"
)

// RunOutput is what one agent run gives the evaluation: the stored run, its events and its model calls.
type RunOutput struct {
	RunID  int64
	Status agent.Status
	Answer string // the answer event's text ("" without one)
	Events []agent.Event
	Calls  []Call
	Usage  agent.Usage
}

// RunFunc runs the agent on a question in one mode (sample numbers a GRPO group's members, from 0).
type RunFunc func(ctx context.Context, q Question, mode string, sample int) (RunOutput, error)

// Cost is what an answer cost.
type Cost struct {
	ModelCalls       int   `json:"model_calls"`
	PromptTokens     int   `json:"prompt_tokens"`
	CompletionTokens int   `json:"completion_tokens"`
	Images           int   `json:"images"`
	VisualTokens     int   `json:"visual_tokens"`
	Steps            int   `json:"steps"` // tool steps: searches, crops, memorize calls
	WallMS           int64 `json:"wall_ms"`
	JudgeCalls       int   `json:"judge_calls,omitempty"`
	JudgeTokens      int   `json:"judge_tokens,omitempty"`
}

// ItemResult is one scored answer, as stored with the evaluation.
type ItemResult struct {
	QuestionID string  `json:"question_id"`
	Mode       string  `json:"mode"`
	Sample     int     `json:"sample"`
	RunID      int64   `json:"run_id,omitempty"`
	Status     string  `json:"status"` // the run's: answered | no_answer | failed | cancelled
	RunError   string  `json:"run_error,omitempty"`
	Answer     string  `json:"answer"`
	Short      string  `json:"short"` // the short answer the rules compared
	Score      float64 `json:"score"` // rule-based, 0..1
	// Judge is the verdict (1/0) of the LLM judge on the run's answer, or, without a judge, the rule-based score
	// rounded at 0.5 (JudgeKind says which). JudgeError is set when the judge never gave a readable verdict.
	Judge      float64  `json:"judge"`
	JudgeKind  string   `json:"judge_kind"` // llm | rule
	JudgeReply string   `json:"judge_reply,omitempty"`
	JudgeError string   `json:"judge_error,omitempty"`
	Format     float64  `json:"format"`
	NDCG       float64  `json:"ndcg"`
	Reward     float64  `json:"reward"`
	Shown      []string `json:"shown"` // pages shown to the model, as page ids
	Cost       Cost     `json:"cost"`
	// Grounding is the grounding pass over the answer (nil when the run made none: no answer, or an older run).
	Grounding *ItemGrounding `json:"grounding,omitempty"`
	// ToolCalls are the run's tool calls in order (searches, crops, memorize calls, calculations), one line each;
	// nil for an item scored before they were recorded (Cost.Steps counts them).
	ToolCalls []string `json:"tool_calls,omitempty"`
	// Calls is the trajectory: for vimrag every model call (each is one node's context and reply); for the other
	// modes the last call, whose context holds the whole conversation.
	Calls []Call `json:"calls,omitempty"`
}

// ItemGrounding is what the grounding pass found of an answer's checkable claims (figures, dates, quotations,
// names).
type ItemGrounding struct {
	Claims  int    `json:"claims"`
	InCited int    `json:"in_cited"` // found in the cited evidence (a zoomed region or a cited page)
	Summary string `json:"summary"`
}

// Checked reports whether the answer had a checkable claim.
func (g *ItemGrounding) Checked() bool { return g != nil && g.Claims > 0 }

// Grounded reports whether every checkable claim of the answer was found in its cited evidence.
func (g *ItemGrounding) Grounded() bool { return g.Checked() && g.InCited == g.Claims }

// GroundingOf reads the grounding event of a run's events; nil when there is none.
func GroundingOf(evs []agent.Event) *ItemGrounding {
	for i := len(evs) - 1; i >= 0; i-- {
		if g := evs[i].Grounding; evs[i].Kind == agent.KindGrounding && g != nil {
			return &ItemGrounding{Claims: len(g.Claims), InCited: g.FiguresGrounded + g.NamesGrounded, Summary: g.Summary}
		}
	}
	return nil
}

// AnswerOptions configure an evaluation.
type AnswerOptions struct {
	Modes       []string
	Samples     int // runs per question and mode (a GRPO group); 1 if 0
	Concurrency int // 1 if 0
	// Judge is the LLM judge; nil judges by the rule-based score.
	Judge *Judge
	// OriginalStrip reproduces the reference's user-span handling (it strips nothing, errata §1) in the format
	// check and in what the judge of the reward sees.
	OriginalStrip bool
	// Done lists the items already scored (resume); they are not run again.
	Done map[ItemKey]bool
	// Store keeps each scored item before the next is counted done.
	Store func(ctx context.Context, r ItemResult) error
	// Progress is told after each item: scored so far (done ones included) and the total.
	Progress func(done, total int)
	Log      *slog.Logger
}

// ItemKey names an item of an evaluation.
type ItemKey struct {
	QuestionID string
	Mode       string
	Sample     int
}

// EvaluateAnswers runs every question not yet done in every mode Samples times, scores each answer and stores it.
// A failed run is scored (as wrong) and stored like any other; only a cancelled context or a failing store stops
// the evaluation.
func EvaluateAnswers(ctx context.Context, qs []Question, opts AnswerOptions, run RunFunc) error {
	samples := max(opts.Samples, 1)
	workers := max(opts.Concurrency, 1)
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	type task struct {
		q      Question
		mode   string
		sample int
	}
	var todo []task
	total := 0
	for _, q := range qs {
		for _, m := range opts.Modes {
			for s := range samples {
				total++
				if !opts.Done[ItemKey{q.ID, m, s}] {
					todo = append(todo, task{q, m, s})
				}
			}
		}
	}
	done := total - len(todo)
	if opts.Progress != nil {
		opts.Progress(done, total)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	tasks := make(chan task)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(workers, max(len(todo), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range tasks {
				res, err := scoreOne(ctx, t.q, t.mode, t.sample, opts, run)
				if err != nil {
					cancel(err)
					return
				}
				if ctx.Err() != nil {
					return // a run cut short by cancellation is not a result
				}
				if err := opts.Store(ctx, res); err != nil {
					cancel(err)
					return
				}
				mu.Lock()
				done++
				if opts.Progress != nil {
					opts.Progress(done, total)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, t := range todo {
		select {
		case tasks <- t:
		case <-ctx.Done():
			break feed
		}
	}
	close(tasks)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return nil
}

// scoreOne runs and scores one item. Errors are only those that must stop the evaluation.
func scoreOne(ctx context.Context, q Question, mode string, sample int, opts AnswerOptions, run RunFunc) (ItemResult, error) {
	out, runErr := run(ctx, q, mode, sample)
	if ctx.Err() != nil {
		return ItemResult{}, nil
	}
	r := ItemResult{QuestionID: q.ID, Mode: mode, Sample: sample, RunID: out.RunID, Status: string(out.Status),
		Answer: out.Answer, Calls: out.Calls}
	if runErr != nil {
		r.RunError = runErr.Error()
		if r.Status == "" {
			r.Status = string(agent.StatusFailed)
		}
	}
	u := out.Usage
	r.Cost = Cost{ModelCalls: u.Steps, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens,
		Images: u.Images, VisualTokens: u.VisualTokens, Steps: u.ToolSteps, WallMS: u.WallMS}
	r.Grounding = GroundingOf(out.Events)
	r.ToolCalls = ToolCallsOf(out.Events)
	r.Short = ExtractAnswer(out.Answer, q.AnswerFormat)
	if out.Answer == "" {
		r.Short = NotAnswerable
	}
	r.Score = ScoreAnswer(q.Answer, r.Short, q.AnswerFormat)

	// The reward's parts, from the trajectory as the reference sees it.
	golden := make([]string, len(q.EvidencePages))
	for i, p := range q.EvidencePages {
		golden[i] = PageID(q.Doc, p)
	}
	r.Shown = ShownPages(out.Events)
	if r.Shown == nil {
		r.Shown = []string{}
	}
	r.NDCG = NDCG(r.Shown, golden)
	generated := out.Answer
	switch mode {
	case string(agent.ModeVRAG), string(agent.ModeReAct):
		var resp string
		if n := len(out.Calls); n > 0 {
			resp = TrajectoryOf(out.Calls[n-1]).Response()
		}
		r.Format = FormatScore(resp, opts.OriginalStrip)
		generated = GeneratedAnswer(resp, opts.OriginalStrip)
	case string(agent.ModeVimRAG):
		// Tool calls instead of tags: the format is met by a search node and an answer node.
		r.Format = b2f(hasKind(out.Events, agent.KindSearch) && out.Answer != "" && out.Status == agent.StatusAnswered)
	default:
		// vanilla retrieves without being asked: an answer is the whole format.
		r.Format = b2f(out.Answer != "" && out.Status == agent.StatusAnswered)
	}
	if generated == "" {
		generated = noAnswer
	}
	if mode == string(agent.ModeVimRAG) {
		MarkNodes(r.Calls, out.Events)
	} else if n := len(r.Calls); n > 1 {
		r.Calls = r.Calls[n-1:]
	}

	if opts.Judge == nil {
		r.JudgeKind = "rule"
		r.Judge = b2f(r.Score >= 0.5)
	} else {
		r.JudgeKind = "llm"
		if generated == noAnswer && out.Answer == "" {
			r.Judge = 0 // nothing to judge: the reference would ask about "Please Judge False"
		} else {
			v, err := opts.Judge.Judge(ctx, q.Question, q.Answer, generated)
			if ctx.Err() != nil {
				return ItemResult{}, nil
			}
			r.Judge, r.JudgeReply = v.Score, v.Reply
			r.Cost.JudgeCalls, r.Cost.JudgeTokens = v.Calls, v.PromptTokens+v.CompletionTokens
			if err != nil {
				r.JudgeError = err.Error()
			}
		}
	}
	r.Reward = Reward(r.Judge, r.Format, r.NDCG)
	return r, nil
}

func hasKind(evs []agent.Event, k agent.Kind) bool {
	for _, ev := range evs {
		if ev.Kind == k {
			return true
		}
	}
	return false
}

// Stats are the averages of a group of scored answers.
type Stats struct {
	N          int     `json:"n"`
	Accuracy   float64 `json:"accuracy"`    // mean rule-based score
	F1         float64 `json:"f1"`          // generalised F1 (answerable vs not)
	JudgeAcc   float64 `json:"judge_acc"`   // mean judge verdict
	Reward     float64 `json:"reward"`      // mean VRAG-RL reward
	NDCG       float64 `json:"ndcg"`        // mean NDCG of pages shown
	Format     float64 `json:"format"`      // share passing the format check
	Answered   float64 `json:"answered"`    // share of runs that ended with an answer
	ModelCalls float64 `json:"model_calls"` // means per answer from here on
	Tokens     float64 `json:"tokens"`
	Images     float64 `json:"images"`
	VisualTok  float64 `json:"visual_tokens"`
	Steps      float64 `json:"steps"`
	WallMS     float64 `json:"wall_ms"`
	// Checked is the share of answers with a checkable claim; Grounded the share of those whose every claim was
	// found in the cited evidence. JudgeGrounded and JudgeUngrounded are the mean judge verdicts of the checked
	// answers that were and were not grounded (NGrounded and NUngrounded of them): how much the check is worth.
	Checked         float64 `json:"checked"`
	Grounded        float64 `json:"grounded"`
	NGrounded       int     `json:"n_grounded"`
	NUngrounded     int     `json:"n_ungrounded"`
	JudgeGrounded   float64 `json:"judge_grounded"`
	JudgeUngrounded float64 `json:"judge_ungrounded"`
}

// AnswersReport is an evaluation's results: overall and per evidence source and answer format, each per mode.
type AnswersReport struct {
	Evaluation int64                       `json:"evaluation"`
	Modes      []string                    `json:"modes"`
	Questions  int                         `json:"questions"`
	Samples    int                         `json:"samples"`
	Judge      string                      `json:"judge"`
	Overall    map[string]Stats            `json:"overall"`   // mode → stats
	BySource   map[string]map[string]Stats `json:"by_source"` // short source name → mode → stats
	ByFormat   map[string]map[string]Stats `json:"by_format"` // answer format → mode → stats
	Items      []ReportItem                `json:"items,omitempty"`
	JudgeErrs  int                         `json:"judge_errors"`
	RunErrs    int                         `json:"run_errors"`
}

// ReportItem is one scored answer with its question and group advantage.
type ReportItem struct {
	ItemResult
	Question     string   `json:"question"`
	Reference    string   `json:"reference"`
	AnswerFormat string   `json:"answer_format"`
	Sources      []string `json:"sources"`
	Advantage    float64  `json:"advantage"`
}

// SourceName shortens the dataset's evidence-source names: "Pure-text (Plain-text)" → "text", "Generalized-text
// (Layout)" → "layout", "Table" → "table"; an empty list is "none".
func SourceName(s string) string {
	switch {
	case strings.HasPrefix(s, "Pure-text"):
		return "text"
	case strings.HasPrefix(s, "Generalized-text"):
		return "layout"
	}
	return strings.ToLower(shortSource(s))
}

// Summarize builds the report from stored items; questions without items are left out, items of questions no
// longer in the dataset are ignored. Advantages are computed per group (question × mode).
func Summarize(evalID int64, qs []Question, items []ItemResult, modes []string, judge string) *AnswersReport {
	byID := map[string]Question{}
	for _, q := range qs {
		byID[q.ID] = q
	}
	rep := &AnswersReport{Evaluation: evalID, Modes: modes, Judge: judge, Overall: map[string]Stats{},
		BySource: map[string]map[string]Stats{}, ByFormat: map[string]map[string]Stats{}}
	groups := map[[2]string][]int{}
	questions := map[string]bool{}
	maxSample := 0
	for _, it := range items {
		q, ok := byID[it.QuestionID]
		if !ok {
			continue
		}
		questions[q.ID] = true
		maxSample = max(maxSample, it.Sample+1)
		k := [2]string{it.QuestionID, it.Mode}
		groups[k] = append(groups[k], len(rep.Items))
		rep.Items = append(rep.Items, ReportItem{ItemResult: it, Question: q.Question, Reference: q.Answer,
			AnswerFormat: q.AnswerFormat, Sources: q.EvidenceSources})
		if it.JudgeError != "" {
			rep.JudgeErrs++
		}
		if it.RunError != "" {
			rep.RunErrs++
		}
	}
	for _, idx := range groups {
		rs := make([]float64, len(idx))
		for i, j := range idx {
			rs[i] = rep.Items[j].Reward
		}
		for i, a := range Advantages(rs) {
			rep.Items[idx[i]].Advantage = a
		}
	}
	rep.Questions, rep.Samples = len(questions), maxSample
	type acc struct {
		xs []ScoredAnswer
		it []ItemResult
	}
	all := map[string]*acc{}
	src := map[string]map[string]*acc{}
	fmts := map[string]map[string]*acc{}
	add := func(m map[string]*acc, mode string, q Question, it ItemResult) {
		a := m[mode]
		if a == nil {
			a = &acc{}
			m[mode] = a
		}
		a.xs = append(a.xs, ScoredAnswer{Answerable: Answerable(q), Predicted: it.Short, Score: it.Score})
		a.it = append(a.it, it)
	}
	for _, ri := range rep.Items {
		q := byID[ri.QuestionID]
		add(all, ri.Mode, q, ri.ItemResult)
		sources := q.EvidenceSources
		if len(sources) == 0 {
			sources = []string{"none"}
		}
		seen := map[string]bool{}
		for _, s := range sources {
			name := SourceName(s)
			if seen[name] {
				continue
			}
			seen[name] = true
			if src[name] == nil {
				src[name] = map[string]*acc{}
			}
			add(src[name], ri.Mode, q, ri.ItemResult)
		}
		f := q.AnswerFormat
		if fmts[f] == nil {
			fmts[f] = map[string]*acc{}
		}
		add(fmts[f], ri.Mode, q, ri.ItemResult)
	}
	stats := func(a *acc) Stats {
		af := AccAndF1(a.xs)
		s := Stats{N: af.N, Accuracy: af.Accuracy, F1: af.F1}
		for _, it := range a.it {
			s.JudgeAcc += it.Judge
			s.Reward += it.Reward
			s.NDCG += it.NDCG
			s.Format += it.Format
			s.Answered += b2f(it.Status == string(agent.StatusAnswered))
			s.ModelCalls += float64(it.Cost.ModelCalls)
			s.Tokens += float64(it.Cost.PromptTokens + it.Cost.CompletionTokens)
			s.Images += float64(it.Cost.Images)
			s.VisualTok += float64(it.Cost.VisualTokens)
			s.Steps += float64(it.Cost.Steps)
			s.WallMS += float64(it.Cost.WallMS)
		}
		for _, it := range a.it {
			switch {
			case it.Grounding.Grounded():
				s.NGrounded++
				s.JudgeGrounded += it.Judge
			case it.Grounding.Checked():
				s.NUngrounded++
				s.JudgeUngrounded += it.Judge
			}
		}
		if checked := s.NGrounded + s.NUngrounded; checked > 0 {
			s.Checked = float64(checked) / float64(len(a.it))
			s.Grounded = float64(s.NGrounded) / float64(checked)
		}
		if s.NGrounded > 0 {
			s.JudgeGrounded /= float64(s.NGrounded)
		}
		if s.NUngrounded > 0 {
			s.JudgeUngrounded /= float64(s.NUngrounded)
		}
		n := float64(max(len(a.it), 1))
		for _, p := range []*float64{&s.JudgeAcc, &s.Reward, &s.NDCG, &s.Format, &s.Answered, &s.ModelCalls, &s.Tokens,
			&s.Images, &s.VisualTok, &s.Steps, &s.WallMS} {
			*p /= n
		}
		return s
	}
	for m, a := range all {
		rep.Overall[m] = stats(a)
	}
	for name, bm := range src {
		rep.BySource[name] = map[string]Stats{}
		for m, a := range bm {
			rep.BySource[name][m] = stats(a)
		}
	}
	for name, bm := range fmts {
		rep.ByFormat[name] = map[string]Stats{}
		for m, a := range bm {
			rep.ByFormat[name][m] = stats(a)
		}
	}
	sort.SliceStable(rep.Items, func(i, j int) bool {
		a, b := rep.Items[i], rep.Items[j]
		if a.QuestionID != b.QuestionID {
			return a.QuestionID < b.QuestionID
		}
		if a.Mode != b.Mode {
			return a.Mode < b.Mode
		}
		return a.Sample < b.Sample
	})
	return rep
}

// sortedKeys lists a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ErrNoItems means an evaluation has nothing scored yet.
var ErrNoItems = errors.New("evaluation has no scored answers yet")
