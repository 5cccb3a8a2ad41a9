package server

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
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

func TestWhere(t *testing.T) {
	f := newFixture(t, modeltest.Always("<think>Seen.</think><answer>done</answer>"))
	// The PDF's extracted facets: a report of 2022; the image has none.
	search := func(t *testing.T, where string, status int) []resultItem {
		t.Helper()
		resp := f.do(t, "POST", "/search", f.token, map[string]any{"queries": []string{"blood loss"}, "top_k": 5, "where": where})
		if resp.StatusCode != status {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("where %q: status %d (%s), want %d", where, resp.StatusCode, b, status)
		}
		if status != 200 {
			return nil
		}
		var out struct {
			Results []queryResult `json:"results"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out.Results[0].Data
	}
	items := search(t, "kind=report,year=2022", 200)
	if len(items) == 0 {
		t.Fatal("kind=report,year=2022 found nothing")
	}
	for _, it := range items {
		if it.Doc != "blood_loss_report.pdf" || !it.Found {
			t.Errorf("where kind=report: %s (found %v)", it.Doc, it.Found)
		}
	}
	// No document passes: an empty list, not pages from outside the filter.
	if items := search(t, "year=1999", 200); len(items) != 0 {
		t.Errorf("year=1999: %d items", len(items))
	}
	search(t, "colour=red", 400)
	if c := f.do(t, "GET", "/search?queries=blood&where=kind%3Dnovel", f.token, nil).StatusCode; c != 400 {
		t.Errorf("GET where kind=novel: %d", c)
	}

	ask := func(where string) *http.Response {
		return f.do(t, "POST", "/v1/ask", f.token, map[string]any{"question": "How much blood was lost?",
			"mode": "vanilla", "model": "scripted", "where": where})
	}
	if resp := ask("org=nobody at all"); resp.StatusCode != 400 {
		t.Errorf("ask where nothing passes: %d", resp.StatusCode)
	}
	if resp := ask("colour=red"); resp.StatusCode != 400 {
		t.Errorf("ask where not a filter: %d", resp.StatusCode)
	}
	resp := ask("kind=report")
	if resp.StatusCode != 200 {
		t.Fatalf("ask where kind=report: %d", resp.StatusCode)
	}
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), `"documents":[`) {
		t.Errorf("ask where kind=report: run_started names no documents:\n%.600s", b)
	}
}
