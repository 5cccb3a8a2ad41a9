package agent

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The model writes tool calls as JSON, but often not quite: single quotes, unquoted keys, trailing commas, comments,
// Python literals. This is a lenient reader in the spirit of JSON5 that keeps object key order (the graph is shown
// back to the model exactly as it emitted its arguments) and tells integers from floats (Python's json does).

// object is a JSON object with its key order.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// set assigns k, keeping its position if present (like a Python dict).
func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) clone() *object {
	c := newObject()
	for _, k := range o.keys {
		c.set(k, o.vals[k])
	}
	return c
}

// number is a parsed number: an integer (arbitrary size, decimal text) or a float.
type number struct {
	isInt bool
	int   string
	f     float64
}

func (n number) float() float64 {
	if n.isInt {
		f, _ := strconv.ParseFloat(n.int, 64)
		return f
	}
	return n.f
}

var errJSON5 = errors.New("malformed json")

// parseJSON5 reads one value from s, ignoring anything after it. Values: nil, bool, number, string, []any, *object.
func parseJSON5(s string) (any, error) {
	p := &j5{s: s}
	p.skip()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	return v, nil
}

type j5 struct {
	s string
	i int
}

const j5MaxDepth = 200

func (p *j5) errf(format string, a ...any) error {
	return fmt.Errorf("%w at byte %d: %s", errJSON5, p.i, fmt.Sprintf(format, a...))
}

// skip passes whitespace and comments.
func (p *j5) skip() {
	for p.i < len(p.s) {
		r, n := utf8.DecodeRuneInString(p.s[p.i:])
		switch {
		case unicode.IsSpace(r) || r == '\ufeff':
			p.i += n
		case strings.HasPrefix(p.s[p.i:], "//"):
			if j := strings.IndexByte(p.s[p.i:], '\n'); j >= 0 {
				p.i += j + 1
			} else {
				p.i = len(p.s)
			}
		case strings.HasPrefix(p.s[p.i:], "/*"):
			if j := strings.Index(p.s[p.i+2:], "*/"); j >= 0 {
				p.i += j + 4
			} else {
				p.i = len(p.s)
			}
		default:
			return
		}
	}
}

func (p *j5) value(depth int) (any, error) {
	if depth > j5MaxDepth {
		return nil, p.errf("nested too deeply")
	}
	if p.i >= len(p.s) {
		return nil, p.errf("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"' || c == '\'':
		return p.str()
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		w := p.ident()
		switch w {
		case "true", "True":
			return true, nil
		case "false", "False":
			return false, nil
		case "null", "None":
			return nil, nil
		case "Infinity":
			return number{f: math.Inf(1)}, nil
		case "NaN":
			return number{f: math.NaN()}, nil
		}
		return nil, p.errf("unexpected %q", w)
	}
}

func (p *j5) ident() string {
	start := p.i
	for p.i < len(p.s) {
		r, n := utf8.DecodeRuneInString(p.s[p.i:])
		if r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' {
			p.i += n
			continue
		}
		break
	}
	if p.i == start && p.i < len(p.s) {
		_, n := utf8.DecodeRuneInString(p.s[p.i:])
		p.i += n
	}
	return p.s[start:p.i]
}

func (p *j5) object(depth int) (any, error) {
	p.i++ // {
	o := newObject()
	for {
		p.skip()
		if p.i >= len(p.s) {
			return nil, p.errf("unterminated object")
		}
		if p.s[p.i] == '}' {
			p.i++
			return o, nil
		}
		var key string
		if c := p.s[p.i]; c == '"' || c == '\'' {
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			key = k
		} else {
			start := p.i
			for p.i < len(p.s) && !strings.ContainsRune(":,{}[] \t\r\n", rune(p.s[p.i])) {
				p.i++
			}
			key = p.s[start:p.i]
			if key == "" {
				return nil, p.errf("expected a key")
			}
		}
		p.skip()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errf("expected ':' after key %q", key)
		}
		p.i++
		p.skip()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		o.set(key, v)
		p.skip()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return o, nil
		}
		return nil, p.errf("expected ',' or '}'")
	}
}

func (p *j5) array(depth int) (any, error) {
	p.i++ // [
	out := []any{}
	for {
		p.skip()
		if p.i >= len(p.s) {
			return nil, p.errf("unterminated array")
		}
		if p.s[p.i] == ']' {
			p.i++
			return out, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.skip()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return out, nil
		}
		return nil, p.errf("expected ',' or ']'")
	}
}

func (p *j5) str() (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\':
			p.i++
			if p.i >= len(p.s) {
				return "", p.errf("unterminated escape")
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'v':
				b.WriteByte('\v')
			case '0':
				b.WriteByte(0)
			case '\n': // line continuation
			case 'x':
				if p.i+2 > len(p.s) {
					return "", p.errf("short \\x escape")
				}
				v, err := strconv.ParseUint(p.s[p.i:p.i+2], 16, 8)
				if err != nil {
					return "", p.errf("bad \\x escape")
				}
				b.WriteRune(rune(v))
				p.i += 2
			case 'u':
				r, err := p.u4()
				if err != nil {
					return "", err
				}
				if utf16IsHigh(r) && strings.HasPrefix(p.s[p.i:], "\\u") {
					save := p.i
					p.i += 2
					lo, err := p.u4()
					if err == nil && lo >= 0xDC00 && lo <= 0xDFFF {
						r = (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000
					} else {
						p.i = save
					}
				}
				b.WriteRune(r)
			default:
				b.WriteByte(e) // \" \' \\ \/ and unknown escapes stand for themselves
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", p.errf("unterminated string")
}

func utf16IsHigh(r rune) bool { return r >= 0xD800 && r <= 0xDBFF }

func (p *j5) u4() (rune, error) {
	if p.i+4 > len(p.s) {
		return 0, p.errf("short \\u escape")
	}
	v, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	if err != nil {
		return 0, p.errf("bad \\u escape")
	}
	p.i += 4
	return rune(v), nil
}

func (p *j5) number() (any, error) {
	start := p.i
	neg := false
	if c := p.s[p.i]; c == '+' || c == '-' {
		neg = c == '-'
		p.i++
	}
	rest := p.s[p.i:]
	switch {
	case strings.HasPrefix(rest, "Infinity"):
		p.i += len("Infinity")
		if neg {
			return number{f: math.Inf(-1)}, nil
		}
		return number{f: math.Inf(1)}, nil
	case strings.HasPrefix(rest, "NaN"):
		p.i += 3
		return number{f: math.NaN()}, nil
	case strings.HasPrefix(rest, "0x") || strings.HasPrefix(rest, "0X"):
		p.i += 2
		h := p.i
		for p.i < len(p.s) && strings.IndexByte("0123456789abcdefABCDEF", p.s[p.i]) >= 0 {
			p.i++
		}
		v, ok := new(big.Int).SetString(p.s[h:p.i], 16)
		if !ok {
			return nil, p.errf("bad hex number")
		}
		if neg {
			v.Neg(v)
		}
		return number{isInt: true, int: v.String()}, nil
	}
	isFloat := false
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c >= '0' && c <= '9':
		case c == '.' || c == 'e' || c == 'E':
			isFloat = true
		case (c == '+' || c == '-') && (p.s[p.i-1] == 'e' || p.s[p.i-1] == 'E'):
		default:
			goto done
		}
		p.i++
	}
done:
	text := p.s[start:p.i]
	if !isFloat {
		v, ok := new(big.Int).SetString(strings.TrimPrefix(text, "+"), 10)
		if !ok {
			return nil, p.errf("bad number %q", text)
		}
		return number{isInt: true, int: v.String()}, nil
	}
	f, err := strconv.ParseFloat(strings.TrimPrefix(text, "+"), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, p.errf("bad number %q", text)
	}
	return number{f: f}, nil
}

// pyJSON writes v the way Python's json.dumps(v, ensure_ascii=False) does: ", " and ": " separators, non-ASCII
// kept, floats in repr form. It accepts the parser's values plus Go strings, bools, ints, floats and slices.
func pyJSON(v any) string {
	var b strings.Builder
	writePy(&b, v)
	return b.String()
}

func writePy(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case string:
		writePyString(b, x)
	case int:
		b.WriteString(strconv.Itoa(x))
	case float64:
		b.WriteString(pyFloat(x))
	case number:
		if x.isInt {
			b.WriteString(x.int)
		} else {
			b.WriteString(pyFloat(x.f))
		}
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writePy(b, e)
		}
		b.WriteByte(']')
	case []string:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyString(b, e)
		}
		b.WriteByte(']')
	case *object:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyString(b, k)
			b.WriteString(": ")
			writePy(b, x.vals[k])
		}
		b.WriteByte('}')
	default:
		writePyString(b, fmt.Sprint(x))
	}
}

func writePyString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// pyFloat formats f like Python's float repr: shortest round-trip digits, fixed notation for exponents in
// [-4, 16), always with a fractional part; otherwise d.ddde±XX.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // e.g. -1.2345e+06
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	sign := ""
	if strings.HasPrefix(mant, "-") {
		sign, mant = "-", mant[1:]
	}
	digits := strings.Replace(mant, ".", "", 1)
	if exp < -4 || exp >= 16 {
		out := digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		es := "+"
		if exp < 0 {
			es, exp = "-", -exp
		}
		return fmt.Sprintf("%s%se%s%02d", sign, out, es, exp)
	}
	var s string
	if exp < 0 {
		s = "0." + strings.Repeat("0", -exp-1) + digits
	} else if len(digits) <= exp+1 {
		s = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	} else {
		s = digits[:exp+1] + "." + digits[exp+1:]
	}
	return sign + s
}
