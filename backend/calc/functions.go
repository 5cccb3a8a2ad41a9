package calc

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Names of the checked operators the patcher calls; not callable by name.
const (
	divName = "_div"
	powName = "_pow"
)

type function struct {
	fn      func(nums []float64, units []string) (any, error)
	minArgs int
	maxArgs int // -1: any number
	usage   string
}

func (f function) arity() string {
	switch {
	case f.maxArgs < 0:
		return fmt.Sprintf("at least %d argument(s)", f.minArgs)
	case f.minArgs == f.maxArgs:
		return fmt.Sprintf("%d argument(s)", f.minArgs)
	}
	return fmt.Sprintf("%d to %d arguments", f.minArgs, f.maxArgs)
}

// units are scale's multipliers, each relative to "one".
var units = map[string]float64{
	"one": 1, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12,
	"万": 1e4, "亿": 1e8, "percent": 1e-2,
}

func unitNames() string {
	names := make([]string, 0, len(units))
	for u := range units {
		names = append(names, fmt.Sprintf("%q", u))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func functionNames() string {
	names := make([]string, 0, len(functions))
	for n, f := range functions {
		if n != divName && n != powName {
			names = append(names, f.usage)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func divide(a, b float64, what string) (float64, error) {
	if b == 0 {
		return 0, fmt.Errorf("%w: %s is zero; check the operand", ErrDivisionByZero, what)
	}
	return a / b, nil
}

var functions map[string]function

func init() {
	// Assigned in init because functionNames, used in messages, reads the map.
	functions = map[string]function{
		divName: {minArgs: 2, maxArgs: 2, usage: "a / b", fn: func(n []float64, _ []string) (any, error) {
			return divide(n[0], n[1], fmt.Sprintf("the divisor in %v / %v", n[0], n[1]))
		}},
		powName: {minArgs: 2, maxArgs: 2, usage: "a ^ b", fn: func(n []float64, _ []string) (any, error) {
			return finite(math.Pow(n[0], n[1]), fmt.Sprintf("%v ^ %v", n[0], n[1]))
		}},
		"pct": {minArgs: 2, maxArgs: 2, usage: "pct(a, b)", fn: func(n []float64, _ []string) (any, error) {
			r, err := divide(n[0], n[1], "pct's whole b")
			return r * 100, err
		}},
		// pct_change divides by |old| so a loss shrinking from -10 to -5 reads as +50%.
		"pct_change": {minArgs: 2, maxArgs: 2, usage: "pct_change(old, new)", fn: func(n []float64, _ []string) (any, error) {
			r, err := divide(n[1]-n[0], math.Abs(n[0]), "pct_change's old value")
			return r * 100, err
		}},
		"pp": {minArgs: 2, maxArgs: 2, usage: "pp(a, b)", fn: func(n []float64, _ []string) (any, error) {
			return n[0] - n[1], nil
		}},
		"growth": {minArgs: 2, maxArgs: 2, usage: "growth(old, new)", fn: func(n []float64, _ []string) (any, error) {
			r, err := divide(n[1], n[0], "growth's old value")
			return (r - 1) * 100, err
		}},
		"cagr": {minArgs: 3, maxArgs: 3, usage: "cagr(start, end, years)", fn: func(n []float64, _ []string) (any, error) {
			start, end, years := n[0], n[1], n[2]
			if years <= 0 {
				return nil, fmt.Errorf("%w: cagr's years must be positive, got %v", ErrArguments, years)
			}
			if start <= 0 || end < 0 {
				return nil, fmt.Errorf("%w: cagr needs a positive start and a non-negative end, got %v and %v", ErrArguments, start, end)
			}
			return (math.Pow(end/start, 1/years) - 1) * 100, nil
		}},
		"sum": {minArgs: 1, maxArgs: -1, usage: "sum(a, ...)", fn: func(n []float64, _ []string) (any, error) {
			t := 0.0
			for _, x := range n {
				t += x
			}
			return t, nil
		}},
		"avg": {minArgs: 1, maxArgs: -1, usage: "avg(a, ...)", fn: func(n []float64, _ []string) (any, error) {
			t := 0.0
			for _, x := range n {
				t += x
			}
			return t / float64(len(n)), nil
		}},
		"min": {minArgs: 1, maxArgs: -1, usage: "min(a, ...)", fn: func(n []float64, _ []string) (any, error) {
			m := n[0]
			for _, x := range n[1:] {
				m = math.Min(m, x)
			}
			return m, nil
		}},
		"max": {minArgs: 1, maxArgs: -1, usage: "max(a, ...)", fn: func(n []float64, _ []string) (any, error) {
			m := n[0]
			for _, x := range n[1:] {
				m = math.Max(m, x)
			}
			return m, nil
		}},
		"abs": {minArgs: 1, maxArgs: 1, usage: "abs(x)", fn: func(n []float64, _ []string) (any, error) {
			return math.Abs(n[0]), nil
		}},
		"round": {minArgs: 1, maxArgs: 2, usage: "round(x, n)", fn: func(n []float64, _ []string) (any, error) {
			places := 0.0
			if len(n) == 2 {
				places = n[1]
			}
			if places != math.Trunc(places) || places < 0 || places > 12 {
				return nil, fmt.Errorf("%w: round's places must be a whole number from 0 to 12, got %v", ErrArguments, places)
			}
			p := math.Pow(10, places)
			return math.Round(n[0]*p) / p, nil
		}},
		"scale": {minArgs: 3, maxArgs: 3, usage: `scale(x, "from", "to")`, fn: func(n []float64, u []string) (any, error) {
			if len(n) != 1 || len(u) != 2 {
				return nil, fmt.Errorf("%w: scale takes a number and two quoted units, e.g. scale(x, \"million\", \"billion\")", ErrArguments)
			}
			from, ok1 := units[u[0]]
			to, ok2 := units[u[1]]
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("%w: scale's units are %s", ErrArguments, unitNames())
			}
			return n[0] * from / to, nil
		}},
	}
}

func finite(v float64, what string) (float64, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: %s gives %v", ErrNotFinite, what, v)
	}
	return v, nil
}
