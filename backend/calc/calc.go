// Package calc is a safe calculator for the agent: arithmetic, percentages, growth and scale conversion over figures read from documents, with each operand's source, bounded in size and time.
package calc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/parser"
)

// Bounds on what one Evaluate call may be asked to do.
const (
	MaxExpressionBytes = 512
	MaxOperands        = 64
	MaxNodes           = 256
	maxNameBytes       = 64
)

// Error kinds; every error Evaluate or ParseFigure returns wraps one of these.
var (
	ErrTooLong           = errors.New("expression too long")
	ErrTooComplex        = errors.New("expression too complex")
	ErrTooManyOperands   = errors.New("too many operands")
	ErrBadOperand        = errors.New("bad operand")
	ErrBadFigure         = errors.New("not a figure")
	ErrSyntax            = errors.New("syntax error")
	ErrUnknownIdentifier = errors.New("unknown identifier")
	ErrUnknownFunction   = errors.New("unknown function")
	ErrNotAllowed        = errors.New("not allowed")
	ErrType              = errors.New("wrong type")
	ErrArguments         = errors.New("wrong arguments")
	ErrDivisionByZero    = errors.New("division by zero")
	ErrNotFinite         = errors.New("result not finite")
	ErrDeadline          = errors.New("deadline exceeded")
)

// Source says where in the library an operand was read.
type Source struct {
	Document string    `json:"document,omitempty"`
	Page     int       `json:"page,omitempty"`
	UnitID   int64     `json:"unit_id,omitempty"`
	Region   []float64 `json:"region,omitempty"`
	Cell     string    `json:"cell,omitempty"`
}

// Operand is a named figure as the document writes it.
type Operand struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Source Source `json:"source,omitempty"`
}

// ParsedOperand is an operand with the number read from its written value.
type ParsedOperand struct {
	Name    string  `json:"name"`
	Written string  `json:"written"`
	Value   float64 `json:"value"`
	Percent bool    `json:"percent,omitempty"`
	Source  Source  `json:"source,omitempty"`
}

// Result is an evaluated expression with the operands it was given.
type Result struct {
	Expression string          `json:"expression"`
	Operands   []ParsedOperand `json:"operands"`
	Value      float64         `json:"value"`
	Text       string          `json:"text"`
	Unit       string          `json:"unit,omitempty"` // "%" for a percentage, "pp" for percentage points
}

var nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reserved are expr's keywords; an operand by one of these names could not be referred to.
var reserved = []string{"true", "false", "nil", "and", "or", "not", "in", "let", "if", "else", "matches", "contains", "startsWith", "endsWith"}

// Evaluate computes expression over operands. Only the operands' names and
// the calculator's functions may appear in it; see Functions.
func Evaluate(ctx context.Context, expression string, operands []Operand) (Result, error) {
	res := Result{Expression: expression}
	if err := deadline(ctx); err != nil {
		return res, err
	}
	if len(expression) > MaxExpressionBytes {
		return res, fmt.Errorf("%w: %d bytes, at most %d; split the calculation into steps", ErrTooLong, len(expression), MaxExpressionBytes)
	}
	if strings.TrimSpace(expression) == "" {
		return res, fmt.Errorf("%w: the expression is empty", ErrSyntax)
	}
	if len(operands) > MaxOperands {
		return res, fmt.Errorf("%w: %d, at most %d; split the calculation into steps", ErrTooManyOperands, len(operands), MaxOperands)
	}
	env := make(map[string]any, len(operands))
	percent := make(map[string]bool, len(operands))
	for _, op := range operands {
		if err := checkName(op.Name, env); err != nil {
			return res, err
		}
		v, isPct, err := ParseFigure(op.Value)
		if err != nil {
			return res, fmt.Errorf("operand %s: %w", op.Name, err)
		}
		env[op.Name] = v
		percent[op.Name] = isPct
		res.Operands = append(res.Operands, ParsedOperand{Name: op.Name, Written: op.Value, Value: v, Percent: isPct, Source: op.Source})
	}

	opts := []expr.Option{
		expr.Env(env),
		expr.DisableAllBuiltins(),
		expr.MaxNodes(MaxNodes),
		// Division and powers go through checked functions so that x/0 is an
		// error rather than +Inf.
		expr.Patch(checkedOperators{}),
	}
	for name, f := range functions {
		fn := f.fn
		opts = append(opts, expr.Function(name, func(args ...any) (any, error) {
			if err := deadline(ctx); err != nil {
				return nil, err
			}
			var nums []float64
			var strs []string
			for _, a := range args {
				if n, ok := toFloat(a); ok {
					nums = append(nums, n)
					continue
				}
				// Only scale's units are strings; the validator placed them.
				if s, isStr := a.(string); isStr && name == "scale" {
					strs = append(strs, s)
					continue
				}
				return nil, fmt.Errorf("%w: %s got %T where a number is wanted", ErrType, name, a)
			}
			return fn(nums, strs)
		}))
	}
	// Parse once with the same options as Compile (its functions override
	// expr's predicates such as sum) to validate the tree before compiling.
	cfg := conf.CreateNew()
	for _, op := range opts {
		op(cfg)
	}
	tree, err := parser.ParseWithConfig(expression, cfg)
	if err != nil {
		if strings.Contains(err.Error(), "maximum allowed nodes") {
			return res, fmt.Errorf("%w: more than %d terms; split the calculation into steps", ErrTooComplex, MaxNodes)
		}
		return res, fmt.Errorf("%w: %v", ErrSyntax, firstLine(err))
	}
	v := validator{env: env}
	if err := v.check(tree.Node, false); err != nil {
		return res, err
	}

	program, err := expr.Compile(expression, opts...)
	if err != nil {
		return res, fmt.Errorf("%w: %v", ErrSyntax, firstLine(err))
	}

	type outcome struct {
		out any
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		out, err := expr.Run(program, env)
		done <- outcome{out, err}
	}()
	var o outcome
	select {
	case <-ctx.Done():
		return res, deadline(ctx)
	case o = <-done:
	}
	if o.err != nil {
		for _, kind := range []error{ErrDivisionByZero, ErrNotFinite, ErrDeadline, ErrType, ErrArguments} {
			if errors.Is(o.err, kind) {
				return res, fmt.Errorf("evaluating %q: %w", expression, unwrapVM(o.err, kind))
			}
		}
		return res, fmt.Errorf("%w: evaluating %q: %v", ErrType, expression, firstLine(o.err))
	}
	val, ok := toFloat(o.out)
	if !ok {
		return res, fmt.Errorf("%w: the expression gives %T, not a number", ErrType, o.out)
	}
	if math.IsNaN(val) || math.IsInf(val, 0) {
		return res, fmt.Errorf("%w: %q gives %v; check the operands and that no root of a negative number is taken", ErrNotFinite, expression, val)
	}
	res.Value = clean(val)
	res.Unit = unitOf(tree.Node, percent)
	res.Text = Format(res.Value, res.Unit)
	return res, nil
}

func checkName(name string, seen map[string]any) error {
	switch {
	case len(name) > maxNameBytes || !nameRE.MatchString(name):
		return fmt.Errorf("%w: name %q must be letters, digits and _ (not starting with a digit), at most %d bytes", ErrBadOperand, name, maxNameBytes)
	case slices.Contains(reserved, name):
		return fmt.Errorf("%w: name %q is a reserved word; choose another", ErrBadOperand, name)
	case functions[name].fn != nil:
		return fmt.Errorf("%w: name %q is a function's; choose another", ErrBadOperand, name)
	}
	if _, dup := seen[name]; dup {
		return fmt.Errorf("%w: name %q is given twice", ErrBadOperand, name)
	}
	return nil
}

func deadline(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: the calculation was stopped: %w", ErrDeadline, err)
	}
	return nil
}

// unwrapVM keeps our own error's message: the VM's wrapper adds the source
// position, which the model does not need.
func unwrapVM(err, kind error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if errors.Is(e, kind) && !strings.Contains(e.Error(), "\n") {
			return e
		}
	}
	return fmt.Errorf("%w: %v", kind, firstLine(err))
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

func toFloat(a any) (float64, bool) {
	switch n := a.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// clean drops float noise (0.30000000000000004) by keeping 12 significant
// digits, more than any document figure carries.
func clean(v float64) float64 {
	c, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	if err != nil {
		return v
	}
	return c
}

// Format writes v for display: percentages and points with up to 2
// decimals, other numbers with up to 4 (or 4 significant digits below 1).
func Format(v float64, unit string) string {
	var s string
	switch unit {
	case "%", "pp":
		s = trimZeros(strconv.FormatFloat(v, 'f', 2, 64))
	default:
		decimals := 4
		if a := math.Abs(v); a > 0 && a < 1 {
			// Small numbers keep 4 significant digits rather than vanishing to 0.
			decimals = 3 - int(math.Floor(math.Log10(a)))
		}
		s = trimZeros(strconv.FormatFloat(v, 'f', decimals, 64))
	}
	if s == "-0" {
		s = "0"
	}
	switch unit {
	case "%":
		return s + "%"
	case "pp":
		return s + " pp"
	}
	return s
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}

// validator admits only numbers, the operands, + - * / ^, and calls of the
// calculator's functions; everything else expr can parse is refused here,
// before compiling, so the message names what was wrong.
type validator struct {
	env map[string]any
}

func (v validator) names() string {
	names := make([]string, 0, len(v.env))
	for n := range v.env {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func (v validator) check(node ast.Node, unitArg bool) error {
	switch n := node.(type) {
	case *ast.IntegerNode, *ast.FloatNode:
		return nil
	case *ast.IdentifierNode:
		if _, ok := v.env[n.Value]; !ok {
			return fmt.Errorf("%w: %q is not an operand; the operands are %s", ErrUnknownIdentifier, n.Value, v.names())
		}
		return nil
	case *ast.StringNode:
		if unitArg {
			if _, ok := units[n.Value]; !ok {
				return fmt.Errorf("%w: unknown unit %q; use one of %s", ErrArguments, n.Value, unitNames())
			}
			return nil
		}
		return fmt.Errorf("%w: the string %q is where a number is wanted; strings are only scale's units", ErrType, n.Value)
	case *ast.UnaryNode:
		if n.Operator != "-" && n.Operator != "+" {
			return fmt.Errorf("%w: operator %q; use + - * / ^ and parentheses", ErrNotAllowed, n.Operator)
		}
		return v.check(n.Node, false)
	case *ast.BinaryNode:
		switch n.Operator {
		case "+", "-", "*", "/", "^", "**":
		default:
			return fmt.Errorf("%w: operator %q; use + - * / ^ and parentheses", ErrNotAllowed, n.Operator)
		}
		if err := v.check(n.Left, false); err != nil {
			return err
		}
		return v.check(n.Right, false)
	case *ast.CallNode:
		id, ok := n.Callee.(*ast.IdentifierNode)
		if !ok {
			return fmt.Errorf("%w: only the calculator's functions can be called: %s", ErrNotAllowed, functionNames())
		}
		f, ok := functions[id.Value]
		if !ok || id.Value == divName || id.Value == powName {
			return fmt.Errorf("%w: %q; the functions are %s", ErrUnknownFunction, id.Value, functionNames())
		}
		if len(n.Arguments) < f.minArgs || (f.maxArgs >= 0 && len(n.Arguments) > f.maxArgs) {
			return fmt.Errorf("%w: %s takes %s; usage: %s", ErrArguments, id.Value, f.arity(), f.usage)
		}
		for i, a := range n.Arguments {
			if err := v.check(a, id.Value == "scale" && i > 0); err != nil {
				return err
			}
			if id.Value == "scale" && i > 0 {
				if _, isStr := a.(*ast.StringNode); !isStr {
					return fmt.Errorf("%w: scale's units must be quoted words, e.g. scale(x, \"million\", \"billion\")", ErrArguments)
				}
			}
		}
		return nil
	case *ast.BuiltinNode:
		return fmt.Errorf("%w: %q; the functions are %s", ErrUnknownFunction, n.Name, functionNames())
	case *ast.MemberNode, *ast.ChainNode, *ast.SliceNode:
		return fmt.Errorf("%w: member access and indexing (a.b, a[0]); refer to operands by name", ErrNotAllowed)
	case *ast.BoolNode, *ast.NilNode:
		return fmt.Errorf("%w: %s; only numbers and operands", ErrNotAllowed, node.String())
	default:
		return fmt.Errorf("%w: %q is not arithmetic; use numbers, operands, + - * / ^, parentheses and %s", ErrNotAllowed, node.String(), functionNames())
	}
}

// checkedOperators rewrites a/b and a^b into calls of checked functions.
// ast.Walk visits children first, so nested operators are rewritten too.
type checkedOperators struct{}

func (checkedOperators) Visit(node *ast.Node) {
	b, ok := (*node).(*ast.BinaryNode)
	if !ok {
		return
	}
	var name string
	switch b.Operator {
	case "/":
		name = divName
	case "^", "**":
		name = powName
	default:
		return
	}
	ast.Patch(node, &ast.CallNode{Callee: &ast.IdentifierNode{Value: name}, Arguments: []ast.Node{b.Left, b.Right}})
}

// unitOf says whether the expression's value is a percentage or points.
// Sums and differences of like units keep them; anything else is a plain number.
func unitOf(node ast.Node, percent map[string]bool) string {
	switch n := node.(type) {
	case *ast.IdentifierNode:
		if percent[n.Value] {
			return "%"
		}
	case *ast.UnaryNode:
		return unitOf(n.Node, percent)
	case *ast.CallNode:
		id, _ := n.Callee.(*ast.IdentifierNode)
		if id == nil {
			return ""
		}
		switch id.Value {
		case "pct", "pct_change", "growth", "cagr":
			return "%"
		case "pp":
			return "pp"
		case "sum", "avg", "min", "max", "abs", "round":
			args := n.Arguments
			if id.Value == "round" && len(args) > 0 {
				args = args[:1]
			}
			return commonUnit(args, percent)
		}
	case *ast.BinaryNode:
		switch n.Operator {
		case "+", "-":
			return commonUnit([]ast.Node{n.Left, n.Right}, percent)
		case "/":
			// A percentage divided by a literal stays a percentage (x% / 2).
			if unitOf(n.Right, percent) == "" && isLiteral(n.Right) {
				return unitOf(n.Left, percent)
			}
		case "*":
			// Scaling a percentage by a literal keeps it one (2 * x%).
			l, r := unitOf(n.Left, percent), unitOf(n.Right, percent)
			if l != "" && r == "" && isLiteral(n.Right) {
				return l
			}
			if r != "" && l == "" && isLiteral(n.Left) {
				return r
			}
		}
	}
	return ""
}

func commonUnit(nodes []ast.Node, percent map[string]bool) string {
	if len(nodes) == 0 {
		return ""
	}
	u := unitOf(nodes[0], percent)
	for _, n := range nodes[1:] {
		if unitOf(n, percent) != u {
			return ""
		}
	}
	return u
}

func isLiteral(n ast.Node) bool {
	switch n.(type) {
	case *ast.IntegerNode, *ast.FloatNode:
		return true
	}
	return false
}
