package kbagent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/grounding"
	"proofglass/backend/kb"
	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/ocr"
	"proofglass/backend/pdf"
	"proofglass/backend/search"
)

// TestAskGroundsTheAnswer runs scripted models through Ask on blood_loss_report.pdf and checks the grounding event:
// after the answer, before done, stored with the run and replayed. Table 1 (page 2) has the neonatal weight row
// "3370.0 (3090.0-3650.0) 3200.0 (2890.0-3510.0) …".
func TestAskGroundsTheAnswer(t *testing.T) {
	k, c, ids := withTestPDF(t)
	p2, err := k.Content.Unit(context.Background(), ids[1])
	if err != nil {
		t.Fatal(err)
	}
	var row [2]float64 // the neonatal weight row, 0..1 of the page height
	for _, w := range p2.Words {
		if w.Text == "3370.0" {
			row = [2]float64{w.Y0 / p2.Height, w.Y1 / p2.Height}
		}
	}
	if row[1] == 0 {
		t.Fatal("page 2 has no 3370.0")
	}
	const answer = "The median neonatal weight was 3370.0 g after vaginal delivery and 3250.0 g after a planned cesarean."
	cases := []struct {
		mode   agent.Mode
		script func(shown *agent.ResultsInfo) func(model.Request) (string, error)
		first  string // the status of 3370.0
	}{
		{agent.ModeVRAG, func(shown *agent.ResultsInfo) func(model.Request) (string, error) {
			n := 0
			return func(model.Request) (string, error) {
				n++
				switch n {
				case 1:
					return "<search>feto-maternal perinatal characteristics stratified</search>", nil
				case 2:
					// Zoom into the neonatal weight row of the page shown, in the frame the model saw it in.
					s := shown.Sent[0]
					return fmt.Sprintf("<bbox>[0, %d, %d, %d]</bbox>", int(row[0]*float64(s.EncoderH)), s.EncoderW,
						int(row[1]*float64(s.EncoderH))), nil
				}
				return "<answer>" + answer + "</answer>", nil
			}
		}, agent.GroundRegion},
		{agent.ModeVanilla, func(*agent.ResultsInfo) func(model.Request) (string, error) {
			return func(model.Request) (string, error) { return answer, nil }
		}, agent.GroundCitedPage},
	}
	for _, tc := range cases {
		t.Run(string(tc.mode), func(t *testing.T) {
			shown := &agent.ResultsInfo{}
			d := Deps{KB: k, Search: search.New(k, search.Options{}), PDF: pdf.NewRenderer(c, nil, 2),
				Chat: modeltest.Func(tc.script(shown)), Query: search.Query{Mode: search.BM25}}
			var evs []agent.Event
			runID, res, err := Ask(context.Background(), d, 0, agent.Config{Mode: tc.mode, Model: "m"},
				"Feto-maternal perinatal characteristics stratified: what was the median neonatal weight?", func(ev agent.Event) {
					if ev.Kind == agent.KindResults && len(ev.Results.Sent) > 0 && len(shown.Sent) == 0 {
						*shown = *ev.Results
					}
					evs = append(evs, ev)
				})
			if err != nil || res.Status != agent.StatusAnswered {
				t.Fatalf("run %d: %v %+v", runID, err, res)
			}
			n := len(evs)
			if n < 3 || evs[n-3].Kind != agent.KindAnswer || evs[n-2].Kind != agent.KindGrounding || evs[n-1].Kind != agent.KindDone {
				t.Fatalf("last events %s, want answer, grounding, done", kinds(evs))
			}
			g := evs[n-2].Grounding
			if shown.Hits[0].Page != 2 {
				t.Fatalf("the search showed page %d first, want 2 (Table 1)", shown.Hits[0].Page)
			}
			status := map[string]agent.GroundedClaim{}
			for _, cl := range g.Claims {
				status[cl.Text] = cl
			}
			if got := status["3370.0"]; got.Status != tc.first || got.Found == nil || got.Found.Page != 2 {
				t.Errorf("3370.0: %+v, want %s on page 2", got, tc.first)
			}
			if got := status["3250.0"]; got.Status != agent.GroundMismatch || got.Found == nil || got.Found.Text != "3200.0" {
				t.Errorf("3250.0: %+v, want a mismatch naming 3200.0", got)
			} else if !strings.Contains(got.Note, "says 3200.0") {
				t.Errorf("3250.0 note %q", got.Note)
			}
			if g.Figures != 2 || g.FiguresGrounded != 1 || !strings.HasPrefix(g.Summary, "1 of 2 figures found in the cited evidence") {
				t.Errorf("summary %q (%d of %d)", g.Summary, g.FiguresGrounded, g.Figures)
			}
			stored, err := Events(context.Background(), k, runID)
			if err != nil {
				t.Fatal(err)
			}
			st, err := agent.Replay(stored)
			if err != nil {
				t.Fatal(err)
			}
			if st.Grounding == nil || st.Grounding.Summary != g.Summary || len(st.Grounding.Claims) != len(g.Claims) {
				t.Fatalf("replayed grounding %+v, want %+v", st.Grounding, g)
			}
		})
	}
}

func kinds(evs []agent.Event) string {
	var out []string
	for _, ev := range evs[max(0, len(evs)-5):] {
		out = append(out, string(ev.Kind))
	}
	return strings.Join(out, ", ")
}

// TestAskGroundsEveryMode checks that runs of the other modes end answer, grounding, done too.
func TestAskGroundsEveryMode(t *testing.T) {
	k := openKB(t)
	c := pdfClient(t)
	_, _ = addPDF(t, k, c, "papers", testdata(t, testPDF))
	for _, tc := range []struct {
		mode   agent.Mode
		script []string
	}{
		{agent.ModeVimRAG, vimragScript},
		{agent.ModeReAct, []string{"<search>sample size calculation</search>", "<answer>1100 patients were needed.</answer>"}},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			d := Deps{KB: k, Search: search.New(k, search.Options{}), PDF: pdf.NewRenderer(c, nil, 2),
				Chat: modeltest.Replay(tc.script...), Query: search.Query{Mode: search.BM25}}
			var evs []agent.Event
			_, res, err := Ask(context.Background(), d, 0, agent.Config{Mode: tc.mode, Model: "m"}, "How many patients were needed?",
				func(ev agent.Event) { evs = append(evs, ev) })
			if err != nil || res.Status != agent.StatusAnswered {
				t.Fatalf("%v %+v", err, res)
			}
			n := len(evs)
			if evs[n-3].Kind != agent.KindAnswer || evs[n-2].Kind != agent.KindGrounding || evs[n-1].Kind != agent.KindDone {
				t.Fatalf("last events %s, want answer, grounding, done", kinds(evs))
			}
			if g := evs[n-2].Grounding; g.Summary == "" || len(g.Claims) != g.Figures+g.Names {
				t.Fatalf("grounding %+v", g)
			}
		})
	}
}

// countingOCR counts the regions read.
type countingOCR struct {
	inner grounding.RegionOCR
	n     int
}

func (c *countingOCR) RegionWords(ctx context.Context, u kb.Unit, region [4]float64) ([]kb.Word, error) {
	c.n++
	return c.inner.RegionWords(ctx, u, region)
}

// TestGroundingOCRsARegionOnDemand grounds an answer citing a region of a scan stored without any text (linn.pdf
// without OCR at ingest): the region is OCRed once, its words found with their boxes, and a second answer about the
// same region reads it from the cache.
func TestGroundingOCRsARegionOnDemand(t *testing.T) {
	k := openKB(t)
	c := pdfClient(t)
	_, ids := addPDF(t, k, c, "scans", testdata(t, "pdf/scanned/linn.pdf"))
	u, err := k.Content.Unit(context.Background(), ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Words) != 0 || strings.TrimSpace(u.Text) != "" {
		t.Fatalf("the scan has a text layer (%d words): the test needs a page without text", len(u.Words))
	}
	ocrs := &countingOCR{inner: &RegionReader{Renderer: &Renderer{KB: k, PDF: pdf.NewRenderer(c, nil, 2)}, OCR: ocr.New(ocr.Options{Languages: []string{"eng"}})}}
	g := &grounding.Grounder{KB: k.Content, OCR: ocrs}
	region := [4]float64{0, 0, 1, 0.5} // the top half: the title and the feature list ("holds over 110,000 notes")
	cite := []agent.Citation{{UnitID: ID(u.ID), DocumentName: "linn.pdf", Page: 1, Region: &region}}
	for i, tc := range []struct{ answer, status string }{
		{"The disk drive holds over 110,000 notes per disk.", agent.GroundRegion},
		{"The disk drive holds over 120,000 notes per disk.", agent.GroundMismatch},
	} {
		info, err := g.Ground(context.Background(), agent.AnswerInfo{Text: tc.answer, Citations: cite}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(info.Claims) != 1 || info.Claims[0].Status != tc.status || info.Claims[0].Found == nil {
			t.Fatalf("answer %d: %+v, want %s", i, info.Claims, tc.status)
		}
		f := info.Claims[0].Found
		if !strings.HasPrefix(f.Text, "110,000") || len(f.Boxes) != 1 || f.Boxes[0][3] > 0.5 || f.Boxes[0][1] <= 0 {
			t.Errorf("answer %d: found %q at %v, want 110,000 inside the top half", i, f.Text, f.Boxes)
		}
	}
	if ocrs.n != 1 {
		t.Errorf("the region was OCRed %d times, want once", ocrs.n)
	}
}
