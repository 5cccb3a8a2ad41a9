package kbagent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/pdf"
	"proofglass/backend/search"
)

// TestAskGroundsACalculation asks a two-cell growth question of blood_loss_report.pdf through the real agent loop
// with the calculator on. Table 1 (page 2), row "measured blood loss ml Med (IQR)": 350.0 (300.0-500.0) after
// vaginal delivery, 500.0 (400.0-600.0) after a planned cesarean: growth(350.0, 500.0) = 42.86%.
func TestAskGroundsACalculation(t *testing.T) {
	k, c, _ := withTestPDF(t)
	const question = "Feto-maternal perinatal characteristics stratified: by what percent is the median measured blood loss higher after a planned cesarean than after vaginal delivery?"
	calculate := func(planned string) string {
		return `<calculate>{"expression": "growth(vaginal, planned)", "operands": [
			{"name": "vaginal", "value": "350.0", "source": {"page": 2, "cell": "measured blood loss, Vaginal delivery"}},
			{"name": "planned", "value": "` + planned + `", "source": {"page": 2, "cell": "measured blood loss, Planned Cesarean"}}]}</calculate>`
	}
	cases := []struct {
		name, calc, answer string
		status             string // of the derived figure
		note               string // a part of its note
		figure             string
	}{
		{"computed", calculate("500.0"), "The median measured blood loss is 42.86% higher after a planned cesarean (500.0 ml) than after vaginal delivery (350.0 ml).", agent.GroundComputed,
			"computed by calc-1: growth(vaginal, planned) = 42.86% from 350.0 (page 2) and 500.0 (page 2)", "42.86%"},
		{"rounded by the answer", calculate("500.0"), "The median measured blood loss is about 42.9% higher after a planned cesarean.", agent.GroundComputed, "computed by calc-1", "42.9%"},
		{"a wrong result", calculate("500.0"), "The median measured blood loss is 45.2% higher after a planned cesarean (500.0 ml) than after vaginal delivery (350.0 ml).", agent.GroundMismatch,
			"45.2% — calculation calc-1 (growth(vaginal, planned)) gives 42.86%", "45.2%"},
		{"an operand on no cited page", calculate("517.3"), "The median measured blood loss is 47.8% higher after a planned cesarean.", agent.GroundNotFound,
			"equals calculation calc-1 (growth(vaginal, planned) = 47.8%), but its operands were not found", "47.8%"},
		{"no calculation", "", "The median measured blood loss is 42.86% higher after a planned cesarean (500.0 ml) than after vaginal delivery (350.0 ml).", agent.GroundNotFound, "not found", "42.86%"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			var reqs []model.Request
			chat := modeltest.Func(func(req model.Request) (string, error) {
				reqs = append(reqs, req)
				n++
				switch {
				case n == 1:
					return "<search>feto-maternal perinatal characteristics stratified</search>", nil
				case n == 2 && tc.calc != "":
					return tc.calc, nil
				}
				return "<answer>" + tc.answer + "</answer>", nil
			})
			d := Deps{KB: k, Search: search.New(k, search.Options{}), PDF: pdf.NewRenderer(c, nil, 2), Chat: chat,
				Query: search.Query{Mode: search.BM25}}
			var evs []agent.Event
			runID, res, err := Ask(context.Background(), d, 0, agent.Config{Mode: agent.ModeVRAG, Model: "m", Calculator: true},
				question, func(ev agent.Event) { evs = append(evs, ev) })
			if err != nil || res.Status != agent.StatusAnswered {
				t.Fatalf("run %d: %v %+v", runID, err, res)
			}
			var calc *agent.CalculationInfo
			var g *agent.GroundingInfo
			for _, ev := range evs {
				switch ev.Kind {
				case agent.KindResults:
					if p := ev.Results.Hits[0].Page; p != 2 {
						t.Fatalf("the search showed page %d first, want 2 (Table 1)", p)
					}
				case agent.KindCalculation:
					calc = ev.Calculation
				case agent.KindGrounding:
					g = ev.Grounding
				}
			}
			if tc.calc != "" {
				if calc == nil || calc.Error != "" {
					t.Fatalf("calculation %+v", calc)
				}
				for _, op := range calc.Operands {
					if op.Source == nil || op.Source.Page != 2 || op.Source.UnitID == "" {
						t.Fatalf("operand %s source %+v: want page 2 resolved to its unit", op.Name, op.Source)
					}
				}
				// The model saw the result in its next request.
				last := reqs[2].Messages[len(reqs[2].Messages)-1].Text()
				if want := fmt.Sprintf("Calculator result: growth(vaginal, planned) = %s", calc.Text); last != want {
					t.Fatalf("model told %q, want %q", last, want)
				}
			}
			if g == nil {
				t.Fatal("no grounding event")
			}
			var claim *agent.GroundedClaim
			for i := range g.Claims {
				if g.Claims[i].Text == tc.figure {
					claim = &g.Claims[i]
				}
				if txt := g.Claims[i].Text; (txt == "500.0" || txt == "350.0") && g.Claims[i].Status != agent.GroundCitedPage {
					t.Errorf("operand figure %s: %+v, want cited_page", txt, g.Claims[i])
				}
			}
			if claim == nil {
				t.Fatalf("no claim %q in %+v", tc.figure, g.Claims)
			}
			if claim.Status != tc.status || !strings.Contains(claim.Note, tc.note) {
				t.Fatalf("%s: %s %q, want %s %q", tc.figure, claim.Status, claim.Note, tc.status, tc.note)
			}
			wantCalc := ""
			if tc.status == agent.GroundComputed || tc.status == agent.GroundMismatch {
				wantCalc = "calc-1"
			}
			if claim.Calculation != wantCalc {
				t.Fatalf("claim names calculation %q, want %q", claim.Calculation, wantCalc)
			}
			if tc.status == agent.GroundComputed {
				if claim.Found == nil || claim.Found.Page != 2 || claim.Found.Text != "350.0" {
					t.Fatalf("computed claim's evidence %+v", claim.Found)
				}
				if !strings.Contains(g.Summary, "1 computed from cited figures") {
					t.Fatalf("summary %q", g.Summary)
				}
			}
		})
	}
}
