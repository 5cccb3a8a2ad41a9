package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"proofglass/backend/compare"
	"proofglass/backend/fixture"
	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/library"
	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
)

// twoDocuments is a library of two real PDFs, ingested (text layer, no OCR).
func twoDocuments(t *testing.T) (*library.Library, []kb.Document) {
	t.Helper()
	ctx := context.Background()
	lib, err := library.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	in := ingest.New(lib.KB, lib.Config, ingest.Options{NoOCR: true, Workers: 1})
	defer in.Close()
	var docs []kb.Document
	for _, rel := range []string{"pdf/real/blood_loss_report.pdf", "pdf/real/hsaur3-Ch_analysis_of_variance.pdf"} {
		res, err := in.Add(ctx, "reports", []string{fixture.Path(t, rel)}, nil)
		if err != nil || len(res) != 1 || res[0].Error != "" {
			t.Fatalf("ingest %s: %v %+v", rel, err, res)
		}
		docs = append(docs, res[0].Document)
	}
	return lib, docs
}

// The compare tool answers every item of every document through the real agent loop: a column per document, each
// cell citing its own document only, the table as Markdown text too.
func TestCompareTool(t *testing.T) {
	lib, docs := twoDocuments(t)
	items := []string{"blood loss", "analysis of variance"}
	chat := modeltest.Func(func(req model.Request) (string, error) {
		item := ""
		for _, it := range items {
			if strings.Contains(req.Messages[1].Text(), it) && len(it) > len(item) {
				item = it
			}
		}
		for _, m := range req.Messages {
			if m.Role == model.RoleAssistant {
				return "<answer>On " + item + ".</answer>", nil
			}
		}
		return "<search>" + item + "</search>", nil
	})
	// One run slot for two runs at once: the cells queue for it instead of failing busy.
	cs := connectInMemory(t, lib, Options{Chat: chat, RunSlot: runSlots(1)})
	text, isErr, structured := callText(t, cs, "compare", map[string]any{"items": items,
		"document_ids": []int64{docs[0].ID, docs[1].ID}, "mode": "vrag", "parallel": 2})
	if isErr {
		t.Fatalf("compare: %s", text)
	}
	var out compare.Table
	b, _ := json.Marshal(structured)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Cells) != 2 || len(out.Columns) != 2 || out.Columns[0].Label != docs[0].Name || out.Columns[1].Label != docs[1].Name {
		t.Fatalf("table %s", b)
	}
	for i, row := range out.Cells {
		for j, c := range row {
			if c.State != compare.StateDone || c.Answer != "On "+items[i]+"." {
				t.Errorf("cell %d,%d: %+v", i, j, c)
			}
			if i == j && len(c.Citations) == 0 {
				t.Errorf("cell %d,%d cites nothing", i, j)
			}
			for _, ci := range c.Citations {
				if ci.DocumentID != fmt.Sprint(docs[j].ID) {
					t.Errorf("cell %d,%d (%s) cites %s", i, j, docs[j].Name, ci.DocumentName)
				}
			}
		}
	}
	if !strings.Contains(text, "| item | "+strings.ReplaceAll(docs[0].Name, "_", `\_`)+" |") {
		t.Errorf("text:\n%s", text)
	}

	many := make([]string, compare.MaxItems+1)
	for i := range many {
		many[i] = "q"
	}
	two := []int64{docs[0].ID, docs[1].ID}
	for name, c := range map[string]struct {
		args map[string]any
		want string
	}{
		"no items":        {map[string]any{"document_ids": two}, "items"},
		"too many items":  {map[string]any{"items": many, "document_ids": two}, "at most"},
		"an empty item":   {map[string]any{"items": []string{" "}, "document_ids": two}, "empty"},
		"one document":    {map[string]any{"items": items, "document_ids": two[:1]}, "at least 2"},
		"too many":        {map[string]any{"items": items, "document_ids": []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}}, "at most"},
		"a bad id":        {map[string]any{"items": items, "document_ids": []int64{docs[0].ID, -4}}, "-4"},
		"an unknown id":   {map[string]any{"items": items, "document_ids": []int64{docs[0].ID, 999}}, "999"},
		"a bad filter":    {map[string]any{"items": items, "document_ids": two[:1], "where": []string{"year=soon"}}, "year"},
		"parallel":        {map[string]any{"items": items, "document_ids": two, "parallel": 50}, "parallel"},
		"an unknown mode": {map[string]any{"items": items, "document_ids": two, "mode": "oracle"}, "mode"},
	} {
		t.Run(name, func(t *testing.T) {
			calls := len(chat.Requests())
			text, isErr, _ := callText(t, cs, "compare", c.args)
			if !isErr || !strings.Contains(text, c.want) {
				t.Errorf("error %v %q, want one naming %q", isErr, text, c.want)
			}
			if n := len(chat.Requests()) - calls; n != 0 {
				t.Errorf("a refused comparison called the model %d times", n)
			}
		})
	}
}
