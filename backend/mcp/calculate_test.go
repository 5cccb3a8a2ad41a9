package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"proofglass/backend/model/modeltest"
)

// MCP's ask passes calculator on to the agent and returns the run's calculations, in the result and its text.
func TestAskWithTheCalculator(t *testing.T) {
	l := newLibrary(t)
	lib := l.open(t)
	chat := modeltest.Replay("<search>"+l.word+"</search>",
		`<calculate>{"expression": "growth(a, b)", "operands": [{"name": "a", "value": "350.0", "source": {"page": 2}}, {"name": "b", "value": "500.0", "source": {"page": 2}}]}</calculate>`,
		"<answer>42.86% more.</answer>")
	cs := connectInMemory(t, lib, Options{Chat: chat})
	text, isErr, structured := callText(t, cs, "ask", map[string]any{"question": "How much more?", "mode": "vrag", "calculator": true})
	if isErr {
		t.Fatalf("ask: %s", text)
	}
	var out AskOut
	b, _ := json.Marshal(structured)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Calculations) != 1 || out.Calculations[0].Text != "42.86%" || out.Calculations[0].Expression != "growth(a, b)" ||
		len(out.Calculations[0].Operands) != 2 {
		t.Fatalf("calculations %s", b)
	}
	if !strings.Contains(text, "Calculations:\n- calc-1: growth(a, b) = 42.86%, with a = 350.0 (page 2), b = 500.0 (page 2)") {
		t.Fatalf("text %s", text)
	}
	if reqs := chat.Requests(); !strings.Contains(reqs[0].Messages[len(reqs[0].Messages)-1].Text(), "<calculate>") {
		t.Fatal("the prompt does not offer the calculator")
	}
	// Without the argument the prompt is the reference's and no calculation is made.
	chat = modeltest.Replay("<answer>x</answer>")
	cs = connectInMemory(t, lib, Options{Chat: chat})
	if text, isErr, _ := callText(t, cs, "ask", map[string]any{"question": "How much more?", "mode": "vrag"}); isErr {
		t.Fatalf("ask: %s", text)
	}
	if strings.Contains(chat.Requests()[0].Messages[len(chat.Requests()[0].Messages)-1].Text(), "<calculate>") {
		t.Fatal("the calculator is offered without the argument")
	}
}
