package server

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"proofglass/backend/model/modeltest"
)

func TestAskDocumentScope(t *testing.T) {
	f := newFixture(t, modeltest.Always("<think>Seen.</think><answer>done</answer>"))
	cases := map[string]struct {
		documents []any
		status    int
		doc       string // the only document results may come from
		mustFind  bool
	}{
		// The image has no text (no OCR here), so unscoped the question finds only the PDF's pages: scoped to the
		// image, any hit from the PDF would be a leak.
		"image-by-name": {[]any{"bkf_plot.png"}, 200, "bkf_plot.png", false},
		"pdf-by-name":   {[]any{"blood_loss_report.pdf"}, 200, "blood_loss_report.pdf", true},
		"unknown":       {[]any{"nope.pdf"}, 400, "", false},
		"bad-id":        {[]any{99999}, 400, "", false},
		"bad-shape":     {[]any{[]int{1}}, 400, "", false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resp := f.do(t, "POST", "/v1/ask", f.token, map[string]any{"question": "How much blood was lost in the plot?",
				"mode": "vanilla", "model": "scripted", "documents": c.documents})
			if resp.StatusCode != c.status {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, b, c.status)
			}
			if c.status != 200 {
				return
			}
			hits := 0
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				data, ok := strings.CutPrefix(sc.Text(), "data: ")
				if !ok {
					continue
				}
				var ev struct {
					Kind    string `json:"kind"`
					Results *struct {
						Hits []struct {
							DocumentName string `json:"document_name"`
						} `json:"hits"`
					} `json:"results"`
				}
				if err := json.Unmarshal([]byte(data), &ev); err != nil {
					t.Fatal(err)
				}
				if ev.Results == nil {
					continue
				}
				for _, h := range ev.Results.Hits {
					hits++
					if h.DocumentName != c.doc {
						t.Errorf("hit in %s, outside the scope %s", h.DocumentName, c.doc)
					}
				}
			}
			if c.mustFind && hits == 0 {
				t.Error("the scoped run found nothing")
			}
		})
	}
}
