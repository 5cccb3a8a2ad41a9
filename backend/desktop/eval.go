package desktop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"proofglass/backend/agent"
	"proofglass/backend/evalrun"
	"proofglass/backend/kb"
	"proofglass/backend/learnrank"
)

// EvalService is the window's answer evaluation: pick a dataset, start an evaluation, watch its progress, open its
// report. One evaluation runs at a time; it uses the same code as `proofglass eval answers` and resumes the same way.
// Its progress arrives as eval:progress events (EvalState).
type EvalService struct {
	c *core

	mu     sync.Mutex
	cancel context.CancelFunc
	state  EvalState

	teaching sync.Mutex // one measurement of search at a time
}

// EvalRequest is what the window asks to evaluate. Empty provider and model mean the settings' defaults.
type EvalRequest struct {
	Dataset       string `json:"dataset"`
	Collection    string `json:"collection"`
	Mode          string `json:"mode"`
	Provider      string `json:"provider"`
	Model         string `json:"model"`
	JudgeProvider string `json:"judge_provider"`
	JudgeModel    string `json:"judge_model"`
	Samples       int    `json:"samples"`
	Limit         int    `json:"limit"`
}

// EvalState is the progress of the window's evaluation.
type EvalState struct {
	Running    bool   `json:"running"`
	Evaluation int64  `json:"evaluation"`
	Done       int    `json:"done"`
	Total      int    `json:"total"`
	Resumed    int    `json:"resumed"`
	Error      string `json:"error,omitempty"`
}

// PickDataset asks for a questions file (JSON lines) in a dialog titled in the window's language.
func (s *EvalService) PickDataset(title string) (string, error) {
	if err := s.c.ready(); err != nil {
		return "", err
	}
	ui := s.c.window()
	if ui == nil {
		return "", errNoWindow
	}
	return ui.OpenFile(dialogTitle(title, "Evaluation questions"), []FileFilter{{DisplayName: "Questions (*.jsonl)", Pattern: "*.jsonl;*.json"}})
}

// Start begins an evaluation in the background; progress arrives as eval:progress events.
func (s *EvalService) Start(r EvalRequest) error {
	if err := s.c.ready(); err != nil {
		return err
	}
	if r.Dataset == "" || r.Collection == "" {
		return errors.New("choose a questions file and a collection")
	}
	if err := checkPaths([]string{r.Dataset}); err != nil {
		return fmt.Errorf("questions file: %w", err)
	}
	for what, v := range map[string]string{"collection": r.Collection, "provider": r.Provider, "model": r.Model,
		"judge provider": r.JudgeProvider, "judge model": r.JudgeModel} {
		if err := checkName(what, v); err != nil {
			return err
		}
	}
	if r.Mode != "" && !slices.Contains(agent.Modes, agent.Mode(r.Mode)) {
		return fmt.Errorf("unknown mode %q", r.Mode)
	}
	if r.Samples < 0 || r.Samples > 64 || r.Limit < 0 {
		return errors.New("samples must be 1–64 and limit 0 or more")
	}
	if st, err := os.Stat(r.Dataset); err != nil || st.IsDir() {
		return fmt.Errorf("questions file %s cannot be read", r.Dataset)
	}
	spec := evalrun.Spec{Dataset: r.Dataset, Collection: r.Collection, Provider: r.Provider, Model: r.Model,
		JudgeProvider: r.JudgeProvider, JudgeModel: r.JudgeModel, Samples: max(r.Samples, 1), Limit: r.Limit,
		Think: s.c.lib.Config.Current().Agent.Think, Concurrency: 1}
	if r.Mode != "" {
		spec.Modes = []string{r.Mode}
	}
	if spec.Samples > 1 {
		t := 1.0 // a GRPO group, as the CLI's --samples
		spec.Temperature = &t
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Running {
		return errors.New("an evaluation is already running")
	}
	ctx, cancel := context.WithCancel(s.c.ctx)
	s.cancel = cancel
	s.state = EvalState{Running: true}
	go func() {
		defer cancel()
		id, err := evalrun.Run(ctx, s.c.lib, spec, func(done, total, resumed int) {
			s.update(func(st *EvalState) { st.Done, st.Total, st.Resumed = done, total, resumed })
		}, nil)
		s.update(func(st *EvalState) {
			st.Running, st.Evaluation = false, id
			if err != nil {
				st.Error = err.Error()
			}
		})
	}()
	return nil
}

func (s *EvalService) update(f func(*EvalState)) {
	s.mu.Lock()
	f(&s.state)
	st := s.state
	s.mu.Unlock()
	s.c.emit(eventEval, st)
}

// Stop cancels the running evaluation; what was scored stays, and starting it again resumes.
func (s *EvalService) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

// State is the current evaluation's progress.
func (s *EvalService) State() EvalState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// Evaluations lists stored evaluations, newest first.
func (s *EvalService) Evaluations() ([]kb.Evaluation, error) {
	if err := s.c.ready(); err != nil {
		return nil, err
	}
	return s.c.lib.KB.History.Evaluations(s.c.ctx)
}

// OpenReport writes evaluation id's HTML report into the data directory and opens it in the browser; it returns the
// file's path.
func (s *EvalService) OpenReport(id int64) (string, error) {
	if err := checkID("evaluation", id); err != nil {
		return "", err
	}
	if err := s.c.ready(); err != nil {
		return "", err
	}
	rep, err := evalrun.Report(s.c.ctx, s.c.lib.KB, id)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(s.c.lib.Config.DataDir, "reports")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	path := filepath.Join(dir, fmt.Sprintf("evaluation-%d.html", id))
	f, err := os.Create(path)
	if err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	if err := rep.WriteHTML(f); err != nil {
		f.Close()
		return "", fmt.Errorf("report %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("report %s: %w", path, err)
	}
	if ui := s.c.window(); ui != nil {
		ui.OpenURL("file://" + path)
	}
	return path, nil
}

// SearchReport is how well search finds this library's pages, as last measured when its ranker was trained; nil
// when the library has no learned ranker.
func (s *EvalService) SearchReport() (*learnrank.Report, error) {
	if err := s.c.ready(); err != nil {
		return nil, err
	}
	return s.c.lib.RankerReport(s.c.ctx)
}

// MeasureSearch writes questions from the library's own pages and measures search on those of the documents it
// holds out, as `proofglass eval library` does; with train it also trains a ranker on the others' questions and
// saves it when it does no worse. It returns the report when done.
func (s *EvalService) MeasureSearch(train bool) (*learnrank.Report, error) {
	if err := s.c.ready(); err != nil {
		return nil, err
	}
	if !s.teaching.TryLock() {
		return nil, errors.New("search is already being measured")
	}
	defer s.teaching.Unlock()
	return s.c.lib.TeachRanker(s.c.ctx, learnrank.Options{Train: train, Seed: 1})
}

// ForgetRanker deletes the library's learned ranker: searches go back to the hand-set weights.
func (s *EvalService) ForgetRanker() error {
	if err := s.c.ready(); err != nil {
		return err
	}
	return s.c.lib.ForgetRanker(s.c.ctx)
}
