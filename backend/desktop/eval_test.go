package desktop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A request the window cannot mean is refused before anything runs, and the state stays idle.
func TestEvalStartRejects(t *testing.T) {
	d, ui := start(t)
	ev := d.Eval
	dataset := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(dataset, []byte(`{"question":"q","answer":"a"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := map[string]EvalRequest{
		"no dataset":          {Collection: "c"},
		"no collection":       {Dataset: dataset},
		"relative dataset":    {Dataset: "q.jsonl", Collection: "c"},
		"NUL in dataset":      {Dataset: "/tmp/q\x00.jsonl", Collection: "c"},
		"missing dataset":     {Dataset: filepath.Join(t.TempDir(), "none.jsonl"), Collection: "c"},
		"dataset is a folder": {Dataset: t.TempDir(), Collection: "c"},
		"unknown mode":        {Dataset: dataset, Collection: "c", Mode: "telepathy"},
		"65 samples":          {Dataset: dataset, Collection: "c", Samples: 65},
		"negative limit":      {Dataset: dataset, Collection: "c", Limit: -1},
		"control char model":  {Dataset: dataset, Collection: "c", Model: "m\n"},
		"huge judge name":     {Dataset: dataset, Collection: "c", JudgeProvider: strings.Repeat("j", 300)},
	}
	for name, r := range bad {
		if err := ev.Start(r); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if st := ev.State(); st.Running || st.Error != "" {
		t.Errorf("State after refused starts = %+v", st)
	}
	if evs := ui.named(eventEval); len(evs) != 0 {
		t.Errorf("refused starts emitted %v", evs)
	}
	if _, err := ev.OpenReport(0); err == nil {
		t.Error("OpenReport(0) accepted")
	}
}

// An evaluation that fails in the background goes running → stopped with its error, told as eval:progress events
// and kept in State; a report of an evaluation that does not exist opens nothing.
func TestEvalFailureIsReported(t *testing.T) {
	d, ui := start(t)
	ev := d.Eval
	dataset := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(dataset, []byte("this is not JSON\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ev.Start(EvalRequest{Dataset: dataset, Collection: "papers"}); err != nil {
		t.Fatal(err)
	}
	last := ui.waitFor(t, eventEval, func(e any) bool { return !e.(EvalState).Running }).(EvalState)
	if last.Error == "" || last.Evaluation != 0 {
		t.Errorf("final event = %+v, want an error and no evaluation", last)
	}
	if st := ev.State(); st.Running || st.Error != last.Error {
		t.Errorf("State = %+v, want the final event %+v", st, last)
	}
	ev.Stop() // nothing runs: harmless

	if list, err := ev.Evaluations(); err != nil || len(list) != 0 {
		t.Errorf("Evaluations = %+v, %v", list, err)
	}
	if _, err := ev.OpenReport(12345); err == nil {
		t.Error("OpenReport of an unknown evaluation succeeded")
	}
	if len(ui.urls) != 0 {
		t.Errorf("opened %q", ui.urls)
	}

	ui.file = "/home/u/questions.jsonl"
	if got, err := ev.PickDataset(""); err != nil || got != ui.file || ui.titles[len(ui.titles)-1] != "Evaluation questions" {
		t.Errorf("PickDataset = %q, %v (titles %q)", got, err, ui.titles)
	}
}

// The window's search measurement: a new library has no learned ranker, one with too few documents says why, and
// forgetting a ranker that is not there is no error.
func TestMeasureSearchOnAnEmptyLibrary(t *testing.T) {
	d, _ := start(t)
	if r, err := d.Eval.SearchReport(); err != nil || r != nil {
		t.Errorf("SearchReport of a new library = %+v, %v; want none", r, err)
	}
	if _, err := d.Eval.MeasureSearch(true); err == nil || !strings.Contains(err.Error(), "at least two") {
		t.Errorf("MeasureSearch with no documents: %v, want at least two are needed", err)
	}
	if err := d.Eval.ForgetRanker(); err != nil {
		t.Errorf("ForgetRanker with none: %v", err)
	}
}
