package server

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/model/modeltest"
)

// /v1/ask's option calculator reaches the agent; the calculation event is streamed and stored with the run.
func TestAskStreamsACalculation(t *testing.T) {
	f := newFixture(t, modeltest.Replay(
		`<calculate>{"expression": "pp(a, b)", "operands": [{"name": "a", "value": "18.2%", "source": {"page": 41}}, {"name": "b", "value": "15.9%"}]}</calculate>`,
		`<calculate>{"expression": "a / 0", "operands": [{"name": "a", "value": "1"}]}</calculate>`,
		"<answer>2.3 points</answer>"))
	resp := f.do(t, "POST", "/v1/ask", f.token, map[string]any{"question": "By how much?", "mode": "vrag", "model": "scripted", "calculator": true})
	if resp.StatusCode != 200 {
		t.Fatalf("ask: %d", resp.StatusCode)
	}
	var calcs []agent.CalculationInfo
	var runID string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev agent.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("bad data line %q: %v", line, err)
		}
		runID = ev.RunID
		if ev.Kind == agent.KindCalculation {
			calcs = append(calcs, *ev.Calculation)
		}
	}
	if len(calcs) != 2 || calcs[0].Text != "2.3 pp" || calcs[0].Operands[0].Source.Page != 41 || calcs[1].ErrorKind != "division_by_zero" {
		t.Fatalf("calculations %+v", calcs)
	}
	stored := decode[struct {
		Events []agent.Event `json:"events"`
	}](t, f.do(t, "GET", "/v1/runs/"+runID+"/events", f.token, nil))
	n := 0
	for _, ev := range stored.Events {
		if ev.Kind == agent.KindCalculation && ev.Calculation != nil && ev.Calculation.Expression != "" {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d calculation events stored, want 2", n)
	}
}
