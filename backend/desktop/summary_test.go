package desktop

import (
	"strings"
	"testing"

	"proofglass/backend/fixture"
)

// The library view's "At a glance": a real report's outline with its pages, no summary before one is asked for;
// asking with no chat model reachable fails clearly and leaves nothing stored; bad ids are refused.
func TestDocumentGlance(t *testing.T) {
	t.Setenv("OLLAMA_HOST", "http://127.0.0.1:1") // no model answers here
	d, ui := start(t)
	done := addAndWait(t, d, ui, "reports", fixture.Path(t, "pdf/real/blood_loss_report.pdf"))
	g, err := d.Library.DocumentGlance(done.DocumentID)
	if err != nil || g.Cached || len(g.Outline.Figures) != 7 || len(g.Outline.Sections) < 6 {
		t.Fatalf("glance: %v, cached %v, %d figures, %d sections", err, g.Cached, len(g.Outline.Figures), len(g.Outline.Sections))
	}
	if s := g.Outline.Sections[2]; s.Number != "2.1" || s.Page != 1 || s.Region == nil {
		t.Errorf("third section %+v, want 2.1 on page 1 with its region", s)
	}
	if _, err := d.Library.SummarizeDocument(done.DocumentID, false); err == nil || !strings.Contains(err.Error(), "blood_loss_report.pdf") {
		t.Errorf("summarize with no model: %v, want an error naming the document", err)
	}
	if g, err := d.Library.DocumentGlance(done.DocumentID); err != nil || g.Cached {
		t.Errorf("after a failed summary: %v, cached %v", err, g.Cached)
	}
	for _, id := range []int64{0, -4} {
		if _, err := d.Library.DocumentGlance(id); err == nil {
			t.Errorf("id %d accepted", id)
		}
	}
	if _, err := d.Library.DocumentGlance(99999); err == nil || !strings.Contains(err.Error(), "99999") {
		t.Errorf("missing document: %v", err)
	}
}
