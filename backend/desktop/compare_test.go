package desktop

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"proofglass/backend/compare"
	"proofglass/backend/fixture"
	"proofglass/backend/ingest"
	"proofglass/backend/model/modeltest"
)

// The Compare view's service: two real documents compared on two items through the real agent loop (a scripted
// OpenAI-compatible model), the table streamed as compare:progress until it ends with every cell answered from its own
// document, then saved as CSV where the save dialog said; bad requests are refused before anything runs.
func TestCompareService(t *testing.T) {
	items := []string{"blood loss", "analysis of variance"}
	srv := &modeltest.Server{Reply: func(_ int, body []byte) (string, error) {
		item := ""
		for _, it := range items {
			if bytes.Contains(body, []byte(it)) && len(it) > len(item) {
				item = it
			}
		}
		if bytes.Contains(body, []byte(`"role":"assistant"`)) {
			return "<answer>On " + item + ".</answer>", nil
		}
		return "<search>" + item + "</search>", nil
	}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	t.Setenv("OPENAI_BASE_URL", hs.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("PROOFGLASS_PROVIDER", "")
	t.Setenv("PROOFGLASS_MODEL", "")
	d, ui := start(t)
	names := []string{"blood_loss_report.pdf", "hsaur3-Ch_analysis_of_variance.pdf"}
	if err := d.Library.AddPaths("docs", []string{fixture.Path(t, "pdf/real/"+names[0]), fixture.Path(t, "pdf/real/"+names[1])}); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	eventually(t, "both documents ingested", func() bool {
		for _, e := range ui.named(eventIngest) {
			if p, _ := stageOf(e); p.Stage == ingest.StageDone {
				ids[p.Name] = p.DocumentID
			}
		}
		return len(ids) == 2
	})
	docs := []int64{ids[names[0]], ids[names[1]]}

	for name, r := range map[string]CompareRequest{
		"one document":   {Items: items, Documents: docs[:1]},
		"a bad id":       {Items: items, Documents: []int64{docs[0], -1}},
		"an unknown id":  {Items: items, Documents: []int64{docs[0], 99999}},
		"no item":        {Documents: docs},
		"a bad filter":   {Items: items, Documents: docs[:1], Where: []string{"year=soon"}},
		"a bad mode":     {Items: items, Documents: docs, Mode: "oracle"},
		"too many":       {Items: items, Documents: make([]int64, 100000)},
		"too many items": {Items: make([]string, 100000), Documents: docs},
	} {
		if _, err := d.Compare.Start(r); err == nil {
			t.Errorf("%s: started", name)
		}
	}
	if n := srv.Calls(); n != 0 {
		t.Fatalf("refused comparisons called the model %d times", n)
	}

	first, err := d.Compare.Start(CompareRequest{Items: items, Documents: docs, Mode: "vrag", Provider: "openai", Model: "m", Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !first.Running || len(first.Table.Cells) != 2 || first.Table.Columns[0].Label != "blood_loss_report.pdf" {
		t.Fatalf("first state %+v", first)
	}
	end := ui.waitFor(t, eventCompare, func(e any) bool { return !e.(CompareState).Running }).(CompareState)
	for _, e := range ui.named(eventCompare) {
		if st := e.(CompareState); st.Seq > end.Seq {
			t.Errorf("a state (seq %d, running %v) numbered after the last one (seq %d)", st.Seq, st.Running, end.Seq)
		}
	}
	if end.Error != "" {
		t.Fatalf("comparison failed: %s", end.Error)
	}
	for i, row := range end.Table.Cells {
		for j, c := range row {
			if c.State != compare.StateDone || c.Answer != "On "+items[i]+"." {
				t.Errorf("cell %d,%d: %+v", i, j, c)
			}
			for _, ci := range c.Citations {
				if ci.DocumentID != fmt.Sprint(docs[j]) {
					t.Errorf("cell %d,%d cites %s", i, j, ci.DocumentName)
				}
			}
		}
	}
	if len(end.Table.Cells[0][0].Citations) == 0 {
		t.Error("blood loss × blood_loss_report.pdf cites nothing")
	}
	if got := d.Compare.State(); got.Running || len(got.Table.Cells) != 2 {
		t.Errorf("state after the end %+v", got)
	}

	path := filepath.Join(t.TempDir(), "cmp.csv")
	ui.mu.Lock()
	ui.save = path
	ui.mu.Unlock()
	got, err := d.Compare.Save("csv", "Save comparison")
	if err != nil || got != path {
		t.Fatalf("save: %q %v", got, err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil || len(rows) != 3 || rows[1][1] != "On blood loss." || !strings.HasPrefix(rows[2][5], "hsaur3-Ch_analysis_of_variance.pdf p. ") {
		t.Errorf("saved CSV %q %v", rows, err)
	}
	if _, err := d.Compare.Save("exe", ""); err == nil {
		t.Error("an unknown format was saved")
	}
}

// Stop ends the window's comparison: the running cell ends cancelled, no other starts, and a new one may begin.
func TestCompareServiceStop(t *testing.T) {
	var calls atomic.Int32
	srv := &modeltest.Server{OnCall: func(_ int, _ http.ResponseWriter, r *http.Request) bool {
		calls.Add(1)
		<-r.Context().Done() // the model thinks until the run is cancelled
		return true
	}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	t.Setenv("OPENAI_BASE_URL", hs.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("PROOFGLASS_PROVIDER", "")
	t.Setenv("PROOFGLASS_MODEL", "")
	d, ui := start(t)
	names := []string{"blood_loss_report.pdf", "hsaur3-Ch_analysis_of_variance.pdf"}
	if err := d.Library.AddPaths("docs", []string{fixture.Path(t, "pdf/real/"+names[0]), fixture.Path(t, "pdf/real/"+names[1])}); err != nil {
		t.Fatal(err)
	}
	var docs []int64
	eventually(t, "both documents ingested", func() bool {
		docs = docs[:0]
		for _, e := range ui.named(eventIngest) {
			if p, _ := stageOf(e); p.Stage == ingest.StageDone {
				docs = append(docs, p.DocumentID)
			}
		}
		return len(docs) == 2
	})
	req := CompareRequest{Items: []string{"blood loss", "variance"}, Documents: docs, Mode: "vrag", Provider: "openai", Model: "m", Parallel: 1}
	if _, err := d.Compare.Start(req); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the first cell's model call", func() bool { return calls.Load() == 1 })
	if _, err := d.Compare.Start(req); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("a second comparison while one runs: %v", err)
	}
	d.Compare.Stop()
	end := ui.waitFor(t, eventCompare, func(e any) bool { return !e.(CompareState).Running }).(CompareState)
	for _, row := range end.Table.Cells {
		for _, c := range row {
			if c.State != compare.StateCancelled {
				t.Errorf("cell %d,%d is %s (%s), want cancelled", c.Item, c.Column, c.State, c.Error)
			}
		}
	}
	if !strings.Contains(end.Error, "canceled") {
		t.Errorf("the comparison's error %q does not say it was cancelled", end.Error)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d model calls, want the one that was running", n)
	}
}
