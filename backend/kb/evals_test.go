package kb

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

func TestEvaluationsResumeAndItems(t *testing.T) {
	k := openTest(t)
	ctx := context.Background()
	if _, err := k.History.UnfinishedEvaluation(ctx, "key"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("no evaluation yet: %v", err)
	}
	e, err := k.History.CreateEvaluation(ctx, Evaluation{Dataset: "q.jsonl", Collection: "dev", ConfigKey: "key", Config: json.RawMessage(`{"a":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	run, err := k.History.CreateRun(ctx, Run{Question: "q?", Mode: "vrag"})
	if err != nil {
		t.Fatal(err)
	}
	put := func(q string, sample int, result string) {
		t.Helper()
		if err := k.History.PutEvalItem(ctx, e.ID, EvalItem{QuestionID: q, Mode: "vrag", Sample: sample, RunID: run.ID, Result: json.RawMessage(result)}); err != nil {
			t.Fatal(err)
		}
	}
	put("q1", 0, `{"score":0}`)
	put("q1", 1, `{"score":1}`)
	put("q1", 0, `{"score":0.5}`) // a failed run scored again replaces its item
	got, err := k.History.UnfinishedEvaluation(ctx, "key")
	if err != nil || got.ID != e.ID || got.Items != 2 || string(got.Config) != `{"a":1}` {
		t.Fatalf("unfinished %+v %v", got, err)
	}
	items, err := k.History.EvalItems(ctx, e.ID)
	if err != nil || len(items) != 2 || items[0].RunID != run.ID {
		t.Fatalf("items %+v %v", items, err)
	}
	for _, it := range items {
		if it.Sample == 0 && string(it.Result) != `{"score":0.5}` {
			t.Errorf("sample 0 result %s", it.Result)
		}
	}
	if err := k.History.FinishEvaluation(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := k.History.UnfinishedEvaluation(ctx, "key"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a finished evaluation is not resumed: %v", err)
	}
	// Deleting the run keeps the scored item, unlinked.
	if _, err := k.db.ExecContext(ctx, `DELETE FROM runs WHERE id = ?`, run.ID); err != nil {
		t.Fatal(err)
	}
	items, _ = k.History.EvalItems(ctx, e.ID)
	if len(items) != 2 || items[0].RunID != 0 {
		t.Fatalf("after deleting the run: %+v", items)
	}
}
