package calc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestEvaluateFunctions(t *testing.T) {
	ops := []Operand{
		{Name: "old", Value: "15.9%", Source: Source{Document: "report.pdf", Page: 3}},
		{Name: "new", Value: "18.2%"},
		{Name: "rev", Value: "$4.1 billion"},
		{Name: "loss", Value: "(12.3)"},
	}
	tests := []struct {
		expr string
		want float64
		text string
		unit string
	}{
		{"pct(25, 200)", 12.5, "12.5%", "%"},
		{"pct_change(15.9, 18.2)", 14.4654088050, "14.47%", "%"},
		{"pct_change(old, new)", 14.4654088050, "14.47%", "%"},
		{"pct_change(-10, -5)", 50, "50%", "%"},
		{"pp(18.2, 15.9)", 2.3, "2.3 pp", "pp"},
		{"pp(new, old)", 2.3, "2.3 pp", "pp"},
		{"growth(80, 100)", 25, "25%", "%"},
		{"cagr(100, 121, 2)", 10, "10%", "%"},
		{"sum(1, 2, 3.5)", 6.5, "6.5", ""},
		{"avg(2, 4, 9)", 5, "5", ""},
		{"min(3, -1, 2)", -1, "-1", ""},
		{"max(3, -1, 2)", 3, "3", ""},
		{"max(old, new)", 18.2, "18.2%", "%"},
		{"abs(loss)", 12.3, "12.3", ""},
		{"round(2.34567, 2)", 2.35, "2.35", ""},
		{"round(2.5)", 3, "3", ""},
		{`scale(4100, "million", "billion")`, 4.1, "4.1", ""},
		{`scale(3.2, "亿", "万")`, 32000, "32000", ""},
		{`scale(rev, "one", "billion")`, 4.1, "4.1", ""},
		{`scale(12, "percent", "one")`, 0.12, "0.12", ""},
		{`scale(2, "trillion", "thousand")`, 2e9, "2000000000", ""},
		{"0.1 + 0.2", 0.3, "0.3", ""},
		{"(1 + 2) * 3 - 4 / 8", 8.5, "8.5", ""},
		{"2 ^ 10", 1024, "1024", ""},
		{"-loss + 1", 13.3, "13.3", ""},
		{"1 / 3", 0.333333333333, "0.3333", ""},
		{"new - old", 2.3, "2.3%", "%"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			r, err := Evaluate(context.Background(), tt.expr, ops)
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			if d := r.Value - tt.want; d > 1e-9 || d < -1e-9 {
				t.Errorf("value = %v, want %v", r.Value, tt.want)
			}
			if r.Text != tt.text || r.Unit != tt.unit {
				t.Errorf("text, unit = %q, %q; want %q, %q", r.Text, r.Unit, tt.text, tt.unit)
			}
		})
	}
}

func TestEvaluateKeepsOperands(t *testing.T) {
	src := Source{Document: "a.pdf", Page: 2, UnitID: 7, Region: []float64{1, 2, 3, 4}, Cell: "B3"}
	r, err := Evaluate(context.Background(), "a * 2", []Operand{{Name: "a", Value: "1,234.5", Source: src}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Expression != "a * 2" || r.Value != 2469 || len(r.Operands) != 1 {
		t.Fatalf("result = %+v", r)
	}
	p := r.Operands[0]
	if p.Name != "a" || p.Written != "1,234.5" || p.Value != 1234.5 || p.Source.Cell != "B3" || p.Source.UnitID != 7 {
		t.Errorf("operand = %+v", p)
	}
}

func TestParseFigure(t *testing.T) {
	tests := []struct {
		in      string
		want    float64
		percent bool
	}{
		{"1,234.5", 1234.5, false},
		{"42", 42, false},
		{"(12.3)", -12.3, false},
		{"−4.1", -4.1, false},
		{"-4.1", -4.1, false},
		{"18.2%", 18.2, true},
		{"(2.5%)", -2.5, true},
		{"$4.1 billion", 4.1e9, false},
		{"-$4.1bn", -4.1e9, false},
		{"€3.2m", 3.2e6, false},
		{"£12k", 12000, false},
		{"US$1.5 million", 1.5e6, false},
		{"7 thousand", 7000, false},
		{"3.2亿", 3.2e8, false},
		{"12 万", 120000, false},
		{"1 234 567", 1234567, false},
		{"2.5 trillion", 2.5e12, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			v, pct, err := ParseFigure(tt.in)
			if err != nil {
				t.Fatalf("ParseFigure: %v", err)
			}
			if d := v - tt.want; d > 1e-6 || d < -1e-6 || pct != tt.percent {
				t.Errorf("= %v, %v; want %v, %v", v, pct, tt.want, tt.percent)
			}
		})
	}
}

func TestParseFigureRejects(t *testing.T) {
	for _, in := range []string{"", "abc", "12x", "1e5", "NaN", "m", "5% million", "$", "1.2.3"} {
		t.Run(in, func(t *testing.T) {
			if _, _, err := ParseFigure(in); !errors.Is(err, ErrBadFigure) {
				t.Errorf("err = %v, want ErrBadFigure", err)
			}
		})
	}
}

func TestEvaluateErrors(t *testing.T) {
	ab := []Operand{{Name: "a", Value: "1"}, {Name: "b", Value: "0"}}
	many := make([]Operand, MaxOperands+1)
	for i := range many {
		many[i] = Operand{Name: fmt.Sprintf("x%d", i), Value: "1"}
	}
	tests := []struct {
		name string
		expr string
		ops  []Operand
		want error
	}{
		{"too long", strings.Repeat("1+", MaxExpressionBytes/2) + "1", nil, ErrTooLong},
		{"too complex", strings.Repeat("a+", 200) + "a", ab, ErrTooComplex},
		{"too many operands", "x0", many, ErrTooManyOperands},
		{"unknown identifier", "a + c", ab, ErrUnknownIdentifier},
		{"unknown function", "sqrt(a)", ab, ErrUnknownFunction},
		{"builtin disabled", "len(a)", ab, ErrUnknownFunction},
		{"internal operator by name", "_div(a, b)", ab, ErrUnknownFunction},
		{"member access", "a.b", ab, ErrNotAllowed},
		{"index", "a[0]", ab, ErrNotAllowed},
		{"comparison", "a > b", ab, ErrNotAllowed},
		{"modulo", "a % 2", ab, ErrNotAllowed},
		{"closure", "map([1], # * 2)", ab, ErrUnknownFunction},
		{"let", "let y = 1; y", ab, ErrNotAllowed},
		{"string as number", `pct("10", a)`, ab, ErrType},
		{"string alone", `"10"`, ab, ErrType},
		{"unit not a string", "scale(a, b, b)", ab, ErrArguments},
		{"unknown unit", `scale(a, "lakh", "one")`, ab, ErrArguments},
		{"arity", "pct(a)", ab, ErrArguments},
		{"division by zero", "a / b", ab, ErrDivisionByZero},
		{"pct of zero", "pct(a, b)", ab, ErrDivisionByZero},
		{"growth from zero", "growth(b, a)", ab, ErrDivisionByZero},
		{"not finite", "(0 - 8) ^ 0.5", ab, ErrNotFinite},
		{"overflow", "10 ^ 400", ab, ErrNotFinite},
		{"bad cagr", "cagr(0, 10, 2)", ab, ErrArguments},
		{"syntax", "a +", ab, ErrSyntax},
		{"empty", " ", ab, ErrSyntax},
		{"bad figure", "a", []Operand{{Name: "a", Value: "n/a"}}, ErrBadFigure},
		{"duplicate operand", "a", []Operand{{Name: "a", Value: "1"}, {Name: "a", Value: "2"}}, ErrBadOperand},
		{"operand named like a function", "1", []Operand{{Name: "pct", Value: "1"}}, ErrBadOperand},
		{"operand name not an identifier", "1", []Operand{{Name: "a.b", Value: "1"}}, ErrBadOperand},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Evaluate(context.Background(), tt.expr, tt.ops)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("message spans lines: %q", err)
			}
		})
	}
}

func TestEvaluateDeadline(t *testing.T) {
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err := Evaluate(ctx, "1 + 1", nil)
	if !errors.Is(err, ErrDeadline) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrDeadline wrapping context.DeadlineExceeded", err)
	}
}

// TestOnlyNamedOperands: the same expression works with the operand given
// and fails without it, so nothing outside the operands can be read.
func TestOnlyNamedOperands(t *testing.T) {
	if _, err := Evaluate(context.Background(), "revenue * 2", []Operand{{Name: "revenue", Value: "5"}}); err != nil {
		t.Fatalf("with operand: %v", err)
	}
	for _, e := range []string{"revenue * 2", "env", "$env", "ctx", "Operands"} {
		if _, err := Evaluate(context.Background(), e, []Operand{{Name: "other", Value: "5"}}); !errors.Is(err, ErrUnknownIdentifier) && !errors.Is(err, ErrNotAllowed) && !errors.Is(err, ErrSyntax) {
			t.Errorf("%s: err = %v, want it refused", e, err)
		}
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		v    float64
		unit string
		want string
	}{
		{12.499999999999, "", "12.5"},
		{0.30000000000000004, "", "0.3"},
		{14.4654, "%", "14.47%"},
		{2.2999999999, "pp", "2.3 pp"},
		{0.000123456, "", "0.0001235"},
		{-0.00001, "%", "0%"},
		{1234567.891234, "", "1234567.8912"},
	}
	for _, tt := range tests {
		if got := Format(tt.v, tt.unit); got != tt.want {
			t.Errorf("Format(%v, %q) = %q, want %q", tt.v, tt.unit, got, tt.want)
		}
	}
}
