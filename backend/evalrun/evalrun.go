// Package evalrun runs answer evaluations against a library: the agent per question, each run stored and linked to
// the evaluation, resumable, scored by backend/eval.
package evalrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"proofglass/backend/agent"
	"proofglass/backend/config"
	"proofglass/backend/eval"
	"proofglass/backend/kb"
	"proofglass/backend/library"
)

// Spec is what an evaluation runs: the same Spec resumes the same unfinished evaluation.
type Spec struct {
	Dataset       string   `json:"dataset"` // path of the questions file
	Collection    string   `json:"collection"`
	Modes         []string `json:"modes"`
	Provider      string   `json:"provider"` // profile ("" = settings' default)
	Model         string   `json:"model"`
	JudgeProvider string   `json:"judge_provider,omitempty"`
	JudgeModel    string   `json:"judge_model,omitempty"`
	Samples       int      `json:"samples"`
	// Temperature of the agent's model; nil keeps each policy's own (greedy for vrag). Set for GRPO groups.
	Temperature   *float64 `json:"temperature,omitempty"`
	Think         bool     `json:"think"`
	Limit         int      `json:"limit,omitempty"` // first N questions; 0 = all
	PerDoc        bool     `json:"per_doc"`         // search only the question's own document
	OriginalStrip bool     `json:"original_strip"`
	Concurrency   int      `json:"-"`
	New           bool     `json:"-"` // start afresh even when an unfinished evaluation matches
}

// Stored is what an evaluation row's config holds: the spec as resolved, the judge used and the questions asked,
// so reports and exports never need the dataset file again.
type Stored struct {
	Spec
	ProviderName string          `json:"provider_name"`
	ModelName    string          `json:"model_name"`
	Judge        string          `json:"judge"` // "rule" or provider/model
	DatasetSHA   string          `json:"dataset_sha256"`
	Questions    []eval.Question `json:"questions"`
}

// Progress reports items scored (resumed ones included) out of the total; resumed says how many were already done
// when this invocation started.
type Progress func(done, total, resumed int)

// Run evaluates spec, resuming an unfinished evaluation of the same spec unless spec.New. It returns the
// evaluation's id, also when the evaluation stopped early (cancelled, or a store error).
func Run(ctx context.Context, lib *library.Library, spec Spec, progress Progress, log *slog.Logger) (int64, error) {
	if log == nil {
		log = slog.Default()
	}
	if len(spec.Modes) == 0 {
		spec.Modes = []string{lib.Config.Current().Agent.Mode}
	}
	for _, m := range spec.Modes {
		if !slices.Contains(agent.Modes, agent.Mode(m)) {
			return 0, fmt.Errorf("unknown mode %q (want vrag, vimrag, vanilla or react)", m)
		}
	}
	spec.Samples = max(spec.Samples, 1)
	qs, sum, err := readDataset(spec.Dataset)
	if err != nil {
		return 0, err
	}
	if spec.Limit > 0 && spec.Limit < len(qs) {
		qs = qs[:spec.Limit]
	}
	if _, err := lib.KB.Docs.CollectionByName(ctx, spec.Collection); err != nil {
		return 0, fmt.Errorf("collection %q: %w", spec.Collection, err)
	}
	chat, prov, modelName, err := lib.Chat(spec.Provider, spec.Model)
	if err != nil {
		return 0, err
	}
	var judge *eval.Judge
	judgeName := "rule"
	if spec.JudgeProvider != "" || spec.JudgeModel != "" {
		jc, jp, jm, err := lib.Chat(spec.JudgeProvider, spec.JudgeModel)
		if err != nil {
			return 0, fmt.Errorf("judge: %w", err)
		}
		judge = &eval.Judge{Chat: jc, Model: jm}
		judgeName = jp.Name + "/" + jm
	}
	st := Stored{Spec: spec, ProviderName: prov.Name, ModelName: modelName, Judge: judgeName, DatasetSHA: sum, Questions: qs}
	keySpec := spec
	keySpec.Dataset = "" // the content counts, not where the file lies
	keyJSON, _ := json.Marshal(struct {
		Spec
		ProviderName, ModelName, Judge, DatasetSHA string
	}{keySpec, prov.Name, modelName, judgeName, sum})
	k := sha256.Sum256(keyJSON)
	key := hex.EncodeToString(k[:])
	ev, err := lib.KB.History.UnfinishedEvaluation(ctx, key)
	switch {
	case err == nil && !spec.New:
		log.Info("resuming evaluation", "evaluation", ev.ID, "scored", ev.Items)
	case err == nil || errors.Is(err, kb.ErrNotFound):
		cfg, _ := json.Marshal(st)
		if ev, err = lib.KB.History.CreateEvaluation(ctx, kb.Evaluation{Dataset: spec.Dataset, Collection: spec.Collection,
			ConfigKey: key, Config: cfg}); err != nil {
			return 0, err
		}
	default:
		return 0, err
	}
	items, err := lib.KB.History.EvalItems(ctx, ev.ID)
	if err != nil {
		return ev.ID, err
	}
	// Items whose run failed (a model server down, a crash) are run again on resume; wrong answers are not.
	done := map[eval.ItemKey]bool{}
	for _, it := range items {
		var r struct {
			RunError string `json:"run_error"`
		}
		if json.Unmarshal(it.Result, &r) == nil && r.RunError == "" {
			done[eval.ItemKey{QuestionID: it.QuestionID, Mode: it.Mode, Sample: it.Sample}] = true
		}
	}
	var docIDs map[string]int64
	if spec.PerDoc {
		if docIDs, err = lib.KB.Docs.DocumentIDsByName(ctx, spec.Collection); err != nil {
			return ev.ID, err
		}
	}
	runOne := func(ctx context.Context, q eval.Question, mode string, sample int) (eval.RunOutput, error) {
		rec := &eval.CallRecorder{Next: chat}
		scope := library.Scope{Collection: spec.Collection}
		if spec.PerDoc {
			id, ok := docIDs[q.Doc]
			if !ok {
				return eval.RunOutput{Status: agent.StatusFailed}, fmt.Errorf("document %s of question %s is not in collection %q", q.Doc, q.ID, spec.Collection)
			}
			scope.Documents = []int64{id}
		}
		// Settings' defaults and limits apply as in every face; the evaluation's own choices override them.
		think := spec.Think
		var evs []agent.Event
		t, err := lib.Ask(ctx, library.AskRequest{Question: q.Question, RunOnly: true, Scope: scope, Chat: rec, Log: log,
			Options: library.RunOptions{Mode: mode, Provider: prov.Name, Model: modelName, Think: &think,
				Sampling: config.Sampling{Temperature: spec.Temperature}}}, func(e agent.Event) { evs = append(evs, e) })
		runID, res := t.RunID, t.Result
		out := eval.RunOutput{RunID: runID, Status: res.Status, Events: evs, Calls: rec.Calls(), Usage: res.Usage}
		if res.Answer != nil {
			out.Answer = res.Answer.Text
		}
		return out, err
	}
	resumed := len(done)
	opts := eval.AnswerOptions{Modes: spec.Modes, Samples: spec.Samples, Concurrency: spec.Concurrency, Judge: judge,
		OriginalStrip: spec.OriginalStrip, Done: done, Log: log,
		Store: func(ctx context.Context, r eval.ItemResult) error {
			b, err := json.Marshal(r)
			if err != nil {
				return err
			}
			return lib.KB.History.PutEvalItem(context.WithoutCancel(ctx), ev.ID, kb.EvalItem{QuestionID: r.QuestionID, Mode: r.Mode,
				Sample: r.Sample, RunID: r.RunID, Result: b})
		},
		Progress: func(d, t int) {
			if progress != nil {
				progress(d, t, resumed)
			}
		},
	}
	if err := eval.EvaluateAnswers(ctx, qs, opts, runOne); err != nil {
		return ev.ID, err
	}
	return ev.ID, lib.KB.History.FinishEvaluation(ctx, ev.ID)
}

// Load reads an evaluation's stored configuration and scored items.
func Load(ctx context.Context, k *kb.KB, id int64) (kb.Evaluation, Stored, []eval.ItemResult, error) {
	ev, err := k.History.Evaluation(ctx, id)
	if err != nil {
		return ev, Stored{}, nil, err
	}
	var st Stored
	if err := json.Unmarshal(ev.Config, &st); err != nil {
		return ev, st, nil, fmt.Errorf("evaluation %d: config: %w", id, err)
	}
	rows, err := k.History.EvalItems(ctx, id)
	if err != nil {
		return ev, st, nil, err
	}
	items := make([]eval.ItemResult, len(rows))
	for i, r := range rows {
		if err := json.Unmarshal(r.Result, &items[i]); err != nil {
			return ev, st, nil, fmt.Errorf("evaluation %d item %s: %w", id, r.QuestionID, err)
		}
	}
	return ev, st, items, nil
}

// Report summarises a stored evaluation.
func Report(ctx context.Context, k *kb.KB, id int64) (*eval.AnswersReport, error) {
	_, st, items, err := Load(ctx, k, id)
	if err != nil {
		return nil, err
	}
	return eval.Summarize(id, st.Questions, items, st.Modes, st.Judge), nil
}

func readDataset(path string) ([]eval.Question, string, error) {
	qs, err := eval.ReadQuestions(path)
	if err != nil {
		return nil, "", err
	}
	h := sha256.New()
	for _, q := range qs {
		b, _ := json.Marshal(q)
		h.Write(b)
	}
	return qs, hex.EncodeToString(h.Sum(nil)), nil
}
