package ingest

import (
	"context"
	"testing"
)

// Progress events carry increasing sequence numbers, and the last one of a document is its done event, so a
// consumer that receives them out of order can still tell the final state.
func TestProgressSeq(t *testing.T) {
	in, _ := newIngester(t, Options{NoOCR: true})
	var evs []Progress
	_, err := in.Add(context.Background(), "c", []string{testdata(t, "pdf", "real", "blood_loss_report.pdf"),
		testdata(t, "images", "charts", "bkf_plot.png")}, func(p Progress) { evs = append(evs, p) })
	if err != nil {
		t.Fatal(err)
	}
	last := map[int64]Progress{}
	for i, p := range evs {
		if i > 0 && p.Seq <= evs[i-1].Seq {
			t.Fatalf("event %d: seq %d after %d", i, p.Seq, evs[i-1].Seq)
		}
		if p.Seq > last[p.DocumentID].Seq {
			last[p.DocumentID] = p
		}
	}
	if len(last) != 2 {
		t.Fatalf("events for %d documents", len(last))
	}
	for id, p := range last {
		if p.Stage != StageDone {
			t.Errorf("document %d: highest-seq event is %s", id, p.Stage)
		}
	}
}
