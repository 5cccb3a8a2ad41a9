package grounding

import (
	"testing"

	"proofglass/backend/agent"
)

// A derived figure matches a calculation's result as the answer rounds it, in the calculation's unit.
func TestDerivedFigureMatchesAsRounded(t *testing.T) {
	cases := []struct {
		answer string
		value  float64
		unit   string
		match  bool
	}{
		{"up 42.86%", 42.8571428571, "%", true},
		{"up 42.9%", 42.8571428571, "%", true},
		{"up 43%", 42.8571428571, "%", true},
		{"up 42.8%", 42.8571428571, "%", false}, // 42.857 rounds to 42.9
		{"up 42.86", 42.8571428571, "%", false}, // a plain number is not a percentage
		{"margin rose 2.3 points", 2.3, "pp", true},
		{"margin rose 2.3 pp", 2.3, "pp", true},
		{"$14.7 billion", 14.694e9, "", true}, // rounded at its scale word
		{"$14.6 billion", 14.694e9, "", false},
		{"1,234.5 ml", 1234.5, "", true},
		{"1,234.5%", 1234.5, "", false},
	}
	for _, c := range cases {
		claims := Extract(c.answer)
		if len(claims) == 0 {
			t.Fatalf("%q: no claim", c.answer)
		}
		cl := claims[0]
		diff := 1e300
		for _, v := range cl.Values {
			if d := v - c.value; d*d < diff*diff {
				diff = d
			}
		}
		if diff < 0 {
			diff = -diff
		}
		got := sameUnit(cl, c.unit) && diff <= roundingOf(cl, c.value)
		if got != c.match {
			t.Errorf("%q (%+v) against %v %s: match %v, want %v", c.answer, cl, c.value, c.unit, got, c.match)
		}
	}
}

// Without operands found in the cited evidence, no figure is computed; a failed calculation supports nothing.
func TestNoComputedWithoutGroundedOperands(t *testing.T) {
	v := 42.8571428571
	answer := "It is 42.86% higher."
	ev := Evidence{Calculations: []agent.CalculationInfo{
		{ID: "calc-1", Expression: "growth(a, b)", Text: "42.86%", Value: &v, Unit: "%",
			Operands: []agent.CalcOperand{{Name: "a", Value: "350.0"}, {Name: "b", Value: "500.0"}}},
		{ID: "calc-2", Expression: "a / b", Error: "division by zero", ErrorKind: "division_by_zero"},
	}}
	info, err := Check(t.Context(), answer, ev)
	if err != nil {
		t.Fatal(err)
	}
	c := info.Claims[0]
	if c.Status != agent.GroundNotFound || c.Calculation != "" || c.Note == "" {
		t.Fatalf("claim %+v", c)
	}
	// Near but different: a mismatch naming the calculation's value, even with nothing cited.
	info, err = Check(t.Context(), "It is 45.2% higher.", ev)
	if err != nil {
		t.Fatal(err)
	}
	if c := info.Claims[0]; c.Status != agent.GroundMismatch || c.Calculation != "calc-1" ||
		c.Note != "45.2% — calculation calc-1 (growth(a, b)) gives 42.86%" {
		t.Fatalf("claim %+v", c)
	}
	// Far from any result: not the calculation's business.
	info, err = Check(t.Context(), "It is 90% higher.", ev)
	if err != nil {
		t.Fatal(err)
	}
	if c := info.Claims[0]; c.Status != agent.GroundNotFound || c.Calculation != "" {
		t.Fatalf("claim %+v", c)
	}
}
