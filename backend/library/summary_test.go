package library

import (
	"context"
	"net/http/httptest"
	"testing"

	"proofglass/backend/fixture"
	"proofglass/backend/model/modeltest"
)

// With ingest.summarize_after on and a chat model configured, a batch's new ready documents are summarised in the
// background and stored (one model call each); off (the default), none is.
func TestSummariesAfterIngest(t *testing.T) {
	srv := &modeltest.Server{Turns: []string{"SUMMARY:\nA PPH-rate of 4.9% was supposed [p. 1].\n"}}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	t.Setenv("OPENAI_BASE_URL", hs.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("PROOFGLASS_PROVIDER", "openai")
	t.Setenv("PROOFGLASS_MODEL", "m")
	ctx := context.Background()
	for _, on := range []bool{false, true} {
		lib, err := Open(ctx, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		lib.Config.Settings.Ingest.SummarizeAfter = on
		passes := make(chan int, 4)
		lib.summaries.passed = func(n int) { passes <- n }
		in := lib.Ingester(IngestOptions{NoOCR: true, Workers: 1})
		res, err := in.Add(ctx, "docs", []string{fixture.Path(t, "pdf/real/blood_loss_report.pdf")}, nil)
		if err != nil || res[0].Error != "" {
			t.Fatalf("ingest: %v %+v", err, res)
		}
		id := res[0].Document.ID
		if on {
			if n := <-passes; n != 1 {
				t.Fatalf("the pass summarised %d documents, want 1", n)
			}
			s, ok, err := lib.StoredSummary(ctx, id)
			if err != nil || !ok || s.Model != "m" || s.Grounded != 1 {
				t.Fatalf("stored after ingest: %v %v %+v", ok, err, s)
			}
		} else if _, ok, _ := lib.StoredSummary(ctx, id); ok {
			t.Fatal("summarised with summarize_after off")
		}
		lib.Close()
	}
	if n := srv.Calls(); n != 1 {
		t.Errorf("%d model calls, want 1 (only with the setting on)", n)
	}
}
