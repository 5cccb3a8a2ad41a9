package agent

import (
	"errors"
	"fmt"
	"strings"

	"proofglass/backend/model"
)

// toolCall is one parsed tool invocation.
type toolCall struct {
	Name string
	Args *object
}

var errNoToolCall = errors.New("no tool call found")

// parseToolCallText reads the first <tool_call>…</tool_call> block of a reply, like the reference, but leniently:
// a missing closing tag, code fences, single quotes, unquoted keys, trailing commas and arguments given as a JSON
// string are all accepted. A reply that is nothing but the call's JSON is accepted too.
func parseToolCallText(s string) (toolCall, error) {
	body := ""
	if i := strings.Index(s, "<tool_call>"); i >= 0 {
		body = s[i+len("<tool_call>"):]
		if j := strings.Index(body, "</tool_call>"); j >= 0 {
			body = body[:j]
		}
	} else {
		t := strings.TrimSpace(s)
		if !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "```") {
			return toolCall{}, errNoToolCall
		}
		body = t
	}
	body = strings.TrimSpace(body)
	if strings.HasPrefix(body, "```") {
		body = strings.TrimPrefix(body, "```")
		if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.Contains(body[:nl], "{") {
			body = body[nl+1:] // drop a language tag such as ```json
		}
		if j := strings.LastIndex(body, "```"); j >= 0 {
			body = body[:j]
		}
	}
	v, err := parseJSON5(body)
	if err != nil {
		return toolCall{}, fmt.Errorf("tool call: %w", err)
	}
	o, ok := v.(*object)
	if !ok {
		return toolCall{}, fmt.Errorf("tool call: %w: not an object", errJSON5)
	}
	if fn, ok := o.get("function"); ok { // OpenAI's {"function": {"name", "arguments"}} shape
		if fo, ok := fn.(*object); ok {
			o = fo
		}
	}
	name, _ := o.get("name")
	ns, _ := name.(string)
	if ns == "" {
		return toolCall{}, fmt.Errorf("tool call: missing function name")
	}
	args, _ := o.get("arguments")
	if args == nil {
		args, _ = o.get("parameters")
	}
	ao, err := argsObject(args)
	if err != nil {
		return toolCall{}, fmt.Errorf("tool call %s: %w", ns, err)
	}
	return toolCall{Name: ns, Args: ao}, nil
}

// parseNativeToolCall reads a tool call the server emitted natively.
func parseNativeToolCall(tc model.ToolCall) (toolCall, error) {
	if tc.Name == "" {
		return toolCall{}, fmt.Errorf("native tool call: missing function name")
	}
	var args any
	if strings.TrimSpace(tc.Arguments) != "" {
		args = tc.Arguments
	}
	ao, err := argsObject(args)
	if err != nil {
		return toolCall{}, fmt.Errorf("native tool call %s: %w", tc.Name, err)
	}
	return toolCall{Name: tc.Name, Args: ao}, nil
}

func argsObject(v any) (*object, error) {
	switch a := v.(type) {
	case nil:
		return newObject(), nil
	case *object:
		return a, nil
	case string:
		inner, err := parseJSON5(a)
		if err != nil {
			return nil, fmt.Errorf("arguments: %w", err)
		}
		if o, ok := inner.(*object); ok {
			return o, nil
		}
	}
	return nil, fmt.Errorf("arguments: %w: not an object", errJSON5)
}

// Lenient accessors for tool arguments.

func argString(o *object, k string) string {
	v, _ := o.get(k)
	switch x := v.(type) {
	case string:
		return x
	case number:
		return pyJSON(x)
	}
	return ""
}

// argStrings reads a list of strings; a lone string counts as a one-element list. present reports whether k was set.
func argStrings(o *object, k string) (out []string, present bool) {
	v, ok := o.get(k)
	if !ok || v == nil {
		return nil, false
	}
	switch x := v.(type) {
	case string:
		return []string{x}, true
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out, true
}

func argBool(o *object, k string) bool {
	v, _ := o.get(k)
	switch x := v.(type) {
	case bool:
		return x
	case string:
		return strings.EqualFold(strings.TrimSpace(x), "true")
	case number:
		return x.float() != 0
	}
	return false
}

func argNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case number:
		return x.float(), true
	case string:
		var f float64
		if _, err := fmt.Sscanf(strings.TrimSpace(x), "%g", &f); err == nil {
			return f, true
		}
	}
	return 0, false
}

func argNumbers(o *object, k string) []float64 {
	v, _ := o.get(k)
	var out []float64
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if f, ok := argNumber(e); ok {
				out = append(out, f)
			}
		}
	default:
		if f, ok := argNumber(x); ok {
			out = append(out, f)
		}
	}
	return out
}
