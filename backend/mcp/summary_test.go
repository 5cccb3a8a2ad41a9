package mcp

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/model/modeltest"
)

// summarize_document on a real report: the outline alone, a scripted model's summary with its figures grounded
// (the altered one a mismatch), and each bad input refused by name.
func TestSummarizeDocumentTool(t *testing.T) {
	l := newLibrary(t)
	hs := httptest.NewServer(&modeltest.Server{Turns: []string{
		"SUMMARY:\nThe study assumed a PPH-rate of 4.9% [p. 1].\nKEY FIGURES:\n- 4.8% — PPH-rate supposed [p. 1]\n"}})
	t.Cleanup(hs.Close)
	t.Setenv("OPENAI_BASE_URL", hs.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("PROOFGLASS_PROVIDER", "openai")
	t.Setenv("PROOFGLASS_MODEL", "m")
	cs := connectInMemory(t, l.open(t), Options{})
	decode := func(v any, into any) {
		t.Helper()
		b, _ := json.Marshal(v)
		if err := json.Unmarshal(b, into); err != nil {
			t.Fatal(err)
		}
	}

	text, isErr, st := callText(t, cs, "summarize_document", map[string]any{"document_id": l.doc.ID, "outline_only": true})
	var out SummaryOut
	decode(st, &out)
	if isErr || out.Summary != nil || len(out.Outline.Figures) != 7 || !strings.Contains(text, "2.1 Sample Size Calculation — p. 1") {
		t.Fatalf("outline only: %v %+v\n%s", isErr, out, text)
	}

	text, isErr, st = callText(t, cs, "summarize_document", map[string]any{"document_id": l.doc.ID})
	out = SummaryOut{}
	decode(st, &out)
	if isErr || out.Summary == nil || len(out.Outline.Sections) == 0 {
		t.Fatalf("summary: %v %+v\n%s", isErr, out, text)
	}
	statuses := map[string]string{}
	for _, st := range append(out.Summary.Sentences, out.Summary.KeyFigures...) {
		for _, c := range st.Claims {
			statuses[c.Text] = c.Status
		}
	}
	if statuses["4.9%"] != agent.GroundCitedPage || statuses["4.8%"] != agent.GroundMismatch || !strings.Contains(text, "✗ 4.8%") {
		t.Errorf("statuses %v\n%s", statuses, text)
	}

	for name, c := range map[string]struct {
		args map[string]any
		want string
	}{
		"nothing named": {map[string]any{}, "missing properties"},
		"negative id":   {map[string]any{"document_id": -1}, "give document_id"},
		"no such doc":   {map[string]any{"document_id": 999999, "outline_only": true}, "999999"},
		"model spaces":  {map[string]any{"document_id": l.doc.ID, "model": "a b"}, "without spaces"},
		"model long":    {map[string]any{"document_id": l.doc.ID, "model": strings.Repeat("m", 300)}, "at most 200"},
		"wrong type":    {map[string]any{"document_id": "one"}, ""},
	} {
		text, isErr, _ := callText(t, cs, "summarize_document", c.args)
		if !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%s: error %v %q, want %q", name, isErr, text, c.want)
		}
	}
}
