package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"proofglass/backend/calc"
	"proofglass/backend/model"
)

// The calculator (Config.Calculator): an opt-in tool the model calls with an expression over named operands, each
// a figure as the document writes it with where it was read. A calculator error is a tool result the model reads
// in its next turn, never a failed run.

// Bounds on one calculator call, before package calc's own.
const (
	maxCalcBody     = 16 << 10 // bytes of the call's JSON
	maxOperandBytes = 256      // bytes of an operand's name or value
	calcTimeout     = 2 * time.Second
	calcToolName    = "calculate"
	calcErrMalform  = "malformed"
)

// calcSentence is the one sentence added to the vrag and react prompts when the calculator is on.
const calcSentence = `To compute with figures you read, call a calculator by <calculate>{"expression": "growth(a, b)", "operands": [{"name": "a", "value": "350.0", "source": {"page": 2}}, {"name": "b", "value": "500.0", "source": {"page": 2}}]}</calculate> and user will return the result; it offers + - * / ^, pct, pct_change, pp, growth, cagr, sum, avg, min, max, abs, round and scale. `

// calcAnchor is where calcSentence goes: before the answer instruction, after the search (and crop) ones.
const calcAnchor = "If you find no further external knowledge needed"

// withCalculator returns prompt with calcSentence before its answer instruction.
func withCalculator(prompt string) string {
	return strings.Replace(prompt, calcAnchor, calcSentence+calcAnchor, 1)
}

// calcParameters is the calculate function's JSON schema (react's native tool, vimrag's <tools> line).
const calcParameters = `{"type":"object","properties":{"expression":{"type":"string","description":"The arithmetic over the operands' names: + - * / ^ and parentheses, and the functions pct(a, b), pct_change(old, new), pp(a, b), growth(old, new), cagr(start, end, years), sum, avg, min, max, abs, round(x, n), scale(x, \"million\", \"billion\")."},"operands":{"type":"array","description":"The figures the expression uses, each as the document writes it, with where it was read.","items":{"type":"object","properties":{"name":{"type":"string","description":"A name used in the expression (letters, digits, _)."},"value":{"type":"string","description":"The figure as written, e.g. \"1,234.5\", \"18.2%\", \"$4.1 billion\"."},"source":{"type":"object","description":"Where the figure was read.","properties":{"document":{"type":"string"},"page":{"type":"integer"},"region":{"type":"array","items":{"type":"number"}},"cell":{"type":"string"}}}},"required":["name","value"]}}},"required":["expression","operands"]}`

const calcDescription = "Computes an expression over figures read from the documents (arithmetic, percentages, percentage points, growth, CAGR, sums and averages, scale conversion) and returns the result."

// calcTool is the native function of react mode.
func calcTool() model.Tool {
	return model.Tool{Name: calcToolName, Description: calcDescription, Parameters: json.RawMessage(calcParameters)}
}

// vimragCalcToolLine is the calculate schema as one more line of VimRAG's <tools> block.
func vimragCalcToolLine() string {
	return `{"type":"function","function":{"name":"calculate","description":"` + calcDescription +
		` Use it for any arithmetic; cite each operand's page.","parameters":` + calcParameters + `}}`
}

// vimragSystemWithCalculator is VimRAG's system prompt with the calculate tool in its tool list.
func vimragSystemWithCalculator() string {
	return strings.Replace(VimRAGSystemPrompt(), "\n</tools>\n", "\n"+vimragCalcToolLine()+"\n</tools>\n", 1)
}

// calculate runs one calculator call whose arguments are args (a JSON object, lenient) and emits its calculation
// event. shown are the pages the model has seen, to resolve the operands' sources. It returns the event's payload
// and the text the model is given.
func (r *run) calculate(ctx context.Context, args *object, nodeID string, shown []Hit) (*CalculationInfo, string) {
	info := r.newCalculation(nodeID)
	if args == nil {
		return r.calcFailed(info, calcErrMalform, `the calculator takes a JSON object {"expression": ..., "operands": [{"name", "value", "source"}]}`)
	}
	info.Expression = clip(argString(args, "expression"), calc.MaxExpressionBytes)
	list, _ := args.get("operands")
	entries, ok := list.([]any)
	if list != nil && !ok {
		return r.calcFailed(info, calcErrMalform, `"operands" must be a list of {"name", "value", "source"} objects`)
	}
	if len(entries) > calc.MaxOperands {
		return r.calcFailed(info, kindOf(calc.ErrTooManyOperands),
			fmt.Sprintf("%v: %d, at most %d; split the calculation into steps", calc.ErrTooManyOperands, len(entries), calc.MaxOperands))
	}
	var ops []calc.Operand
	for i, e := range entries {
		o, ok := e.(*object)
		if !ok {
			return r.calcFailed(info, calcErrMalform, fmt.Sprintf("operand %d is not an object with a name and a value", i+1))
		}
		op := CalcOperand{Name: argString(o, "name"), Value: argString(o, "value")}
		if len(op.Name) > maxOperandBytes || len(op.Value) > maxOperandBytes {
			return r.calcFailed(info, kindOf(calc.ErrBadOperand),
				fmt.Sprintf("%v: operand %d is over %d bytes; give a short name and the figure alone", calc.ErrBadOperand, i+1, maxOperandBytes))
		}
		if src, ok := o.get("source"); ok {
			op.Source = resolveSource(src, shown)
		}
		info.Operands = append(info.Operands, op)
		cs := calc.Source{}
		if op.Source != nil {
			cs = calc.Source{Document: op.Source.DocumentName, Page: op.Source.Page, Cell: op.Source.Cell}
			if op.Source.Region != nil {
				cs.Region = op.Source.Region[:]
			}
		}
		ops = append(ops, calc.Operand{Name: op.Name, Value: op.Value, Source: cs})
	}
	cctx, cancel := context.WithTimeout(ctx, calcTimeout)
	defer cancel()
	res, err := calc.Evaluate(cctx, argString(args, "expression"), ops)
	for i := range res.Operands {
		if i < len(info.Operands) {
			v := res.Operands[i].Value
			info.Operands[i].Number = &v
			info.Operands[i].Percent = res.Operands[i].Percent
		}
	}
	if err != nil {
		return r.calcFailed(info, kindOf(err), err.Error())
	}
	v := res.Value
	info.Value, info.Text, info.Unit = &v, res.Text, res.Unit
	r.em.emit(Event{Kind: KindCalculation, Calculation: info})
	return info, fmt.Sprintf("Calculator result: %s = %s", info.Expression, info.Text)
}

// calculateBody parses a <calculate> tag's body (or a native call's arguments) and runs it; a body too long or not
// a JSON object is a tool error.
func (r *run) calculateBody(ctx context.Context, body string, nodeID string, shown []Hit) (*CalculationInfo, string) {
	if len(body) > maxCalcBody {
		return r.calcFailed(r.newCalculation(nodeID), kindOf(calc.ErrTooLong),
			fmt.Sprintf("%v: the call is %d bytes, at most %d; split the calculation into steps", calc.ErrTooLong, len(body), maxCalcBody))
	}
	v, err := parseJSON5(body)
	o, _ := v.(*object)
	if err != nil || o == nil {
		why := "not a JSON object"
		if err != nil {
			why = err.Error()
		}
		return r.calcFailed(r.newCalculation(nodeID), calcErrMalform, `the calculator's input is `+why+
			`; write {"expression": "...", "operands": [{"name": "a", "value": "12.5", "source": {"page": 1}}]}`)
	}
	return r.calculate(ctx, o, nodeID, shown)
}

// newCalculation counts a calculator call and names it.
func (r *run) newCalculation(nodeID string) *CalculationInfo {
	r.usage.ToolSteps++
	r.usage.Calculations++
	r.calcN++
	return &CalculationInfo{ID: fmt.Sprintf("calc-%d", r.calcN), NodeID: nodeID, Operands: []CalcOperand{}}
}

// calcFailed emits a failed calculation and returns the tool error the model reads.
func (r *run) calcFailed(info *CalculationInfo, kind, msg string) (*CalculationInfo, string) {
	info.Error, info.ErrorKind = msg, kind
	r.em.emit(Event{Kind: KindCalculation, Calculation: info})
	return info, "Calculator error (" + kind + "): " + msg + ". Correct the calculation and call the calculator again, or answer."
}

// clip keeps at most n bytes of s (on a rune boundary), marking a cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// kindOf names a calculator error's kind for events and the model.
func kindOf(err error) string {
	kinds := []struct {
		err  error
		name string
	}{
		{calc.ErrTooLong, "too_long"}, {calc.ErrTooComplex, "too_complex"}, {calc.ErrTooManyOperands, "too_many_operands"},
		{calc.ErrBadOperand, "bad_operand"}, {calc.ErrBadFigure, "bad_figure"}, {calc.ErrSyntax, "syntax"},
		{calc.ErrUnknownIdentifier, "unknown_identifier"}, {calc.ErrUnknownFunction, "unknown_function"},
		{calc.ErrNotAllowed, "not_allowed"}, {calc.ErrType, "type"}, {calc.ErrArguments, "arguments"},
		{calc.ErrDivisionByZero, "division_by_zero"}, {calc.ErrNotFinite, "not_finite"}, {calc.ErrDeadline, "deadline"},
	}
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return "error"
}

// resolveSource reads an operand's source ({"document", "page", "region", "cell"}, or a bare page number) and
// names the shown page it points at: the page of that number in the named document, else the only shown page of
// that number.
func resolveSource(v any, shown []Hit) *CalcSource {
	s := &CalcSource{}
	switch x := v.(type) {
	case number:
		s.Page = int(x.float())
	case string:
		s.Cell = x
	case *object:
		s.DocumentName = argString(x, "document")
		if p := argNumbers(x, "page"); len(p) > 0 {
			s.Page = int(p[0])
		}
		if reg := argNumbers(x, "region"); len(reg) == 4 {
			s.Region = &[4]float64{reg[0], reg[1], reg[2], reg[3]}
		}
		s.Cell = argString(x, "cell")
	default:
		return nil
	}
	if s.Page <= 0 {
		return s
	}
	var match []Hit
	for _, h := range shown {
		if h.Page != s.Page {
			continue
		}
		if s.DocumentName != "" && !strings.EqualFold(h.DocumentName, s.DocumentName) && h.DocumentID != s.DocumentName {
			continue
		}
		match = append(match, h)
	}
	if len(match) == 1 || (len(match) > 1 && s.DocumentName != "") {
		s.UnitID, s.DocumentID, s.DocumentName = match[0].UnitID, match[0].DocumentID, match[0].DocumentName
	}
	return s
}

// calculateNative runs a native calculate call; arguments that are not a JSON object are a tool error.
func (r *run) calculateNative(ctx context.Context, tc model.ToolCall, shown []Hit) (*CalculationInfo, string) {
	body := strings.TrimSpace(tc.Arguments)
	if body == "" {
		body = "{}"
	}
	return r.calculateBody(ctx, body, "", shown)
}
