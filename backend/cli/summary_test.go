package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"proofglass/backend/fixture"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/summary"
)

// TestDocumentsSummary adds a real report and prints its outline offline, then a scripted model's summary with
// each figure's mark (the altered 4.8% a mismatch), stored so asking again makes no call; a model that fails
// prints the outline and fails naming the document.
func TestDocumentsSummary(t *testing.T) {
	pdfPath := fixture.Path(t, "pdf/real/blood_loss_report.pdf")
	data := t.TempDir()
	if out, err := run(t, data, "add", "--no-ocr", "--collection", "c", pdfPath); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	out, err := run(t, data, "documents", "summary", "blood_loss_report.pdf", "--outline")
	if err != nil || !strings.Contains(out, "- 2.1 Sample Size Calculation — p. 1") || !strings.Contains(out, "- p. 12 — Figure 4:") {
		t.Fatalf("outline: %v\n%s", err, out)
	}
	out, err = run(t, data, "documents", "summary", "blood_loss_report.pdf", "--outline", "--json")
	var g summary.Glance
	if err != nil || json.Unmarshal([]byte(out), &g) != nil || len(g.Figures) != 7 {
		t.Fatalf("outline --json: %v\n%.400s", err, out)
	}

	srv := &modeltest.Server{Turns: []string{"SUMMARY:\nA PPH-rate of 4.9% was supposed [p. 1].\nKEY FIGURES:\n- 4.8% — the PPH-rate [p. 1]\n"}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	openAIEnv(t, hs.URL)
	out, err = run(t, data, "documents", "summary", "blood_loss_report.pdf", "--provider", "openai", "--model", "m")
	if err != nil || !strings.Contains(out, "✓ 4.9%") || !strings.Contains(out, "✗ 4.8% — the cited page says 4.9%") ||
		!strings.Contains(out, "1 of 2 figures found on the pages cited, 1 differ") || !strings.Contains(out, "## Sections") {
		t.Fatalf("summary: %v\n%s", err, out)
	}
	calls := len(srv.Bodies())
	out, err = run(t, data, "documents", "summary", "blood_loss_report.pdf", "--provider", "openai", "--model", "m", "--json")
	var s summary.Summary
	if err != nil || json.Unmarshal([]byte(out), &s) != nil || !s.Cached || s.Mismatched != 1 || len(srv.Bodies()) != calls {
		t.Fatalf("asking again: %v, cached %v, %d calls then %d\n%.300s", err, s.Cached, calls, len(srv.Bodies()), out)
	}

	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "model exploded", http.StatusInternalServerError)
	}))
	defer failing.Close()
	openAIEnv(t, failing.URL)
	out, err = run(t, data, "documents", "summary", "blood_loss_report.pdf", "--provider", "openai", "--model", "m", "--refresh")
	if err == nil || !strings.Contains(err.Error(), "blood_loss_report.pdf") || !strings.Contains(out, "- 2.1 Sample Size Calculation — p. 1") {
		t.Fatalf("failing model: err %v\n%s", err, out)
	}
	t.Logf("failing model: %v", err)
	if _, err := run(t, data, "documents", "summary", "nope.pdf", "--outline"); err == nil || !strings.Contains(err.Error(), "nope.pdf") {
		t.Fatalf("missing document: %v", err)
	}
}
