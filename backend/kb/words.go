package kb

import (
	"encoding/json"
	"strconv"
	"strings"
)

// decodeWords reads a units.words column. Search loads the words of every hit it returns, and encoding/json spent
// most of a warm search's CPU on them, so the exact shape json.Marshal writes ([{"t":…,"x0":…,"y0":…,"x1":…,
// "y1":…},…]) is parsed directly; anything else (older or hand-edited rows) goes through encoding/json.
func decodeWords(s string) ([]Word, error) {
	if ws, ok := fastWords(s); ok {
		return ws, nil
	}
	var ws []Word
	err := json.Unmarshal([]byte(s), &ws)
	return ws, err
}

func fastWords(s string) ([]Word, bool) {
	if s == "[]" {
		return []Word{}, true
	}
	if s == "null" {
		return nil, true
	}
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, false
	}
	out := make([]Word, 0, strings.Count(s, `{"t":`))
	p := s[1 : len(s)-1]
	for len(p) > 0 {
		var w Word
		var ok bool
		if p, ok = strings.CutPrefix(p, `{"t":`); !ok {
			return nil, false
		}
		if w.Text, p, ok = jsonString(p); !ok {
			return nil, false
		}
		for _, f := range []struct {
			key string
			dst *float64
		}{{`,"x0":`, &w.X0}, {`,"y0":`, &w.Y0}, {`,"x1":`, &w.X1}, {`,"y1":`, &w.Y1}} {
			if p, ok = strings.CutPrefix(p, f.key); !ok {
				return nil, false
			}
			end := strings.IndexAny(p, ",}")
			if end <= 0 {
				return nil, false
			}
			v, err := strconv.ParseFloat(p[:end], 64)
			if err != nil {
				return nil, false
			}
			*f.dst, p = v, p[end:]
		}
		if p, ok = strings.CutPrefix(p, "}"); !ok {
			return nil, false
		}
		out = append(out, w)
		if len(p) > 0 {
			if p, ok = strings.CutPrefix(p, ","); !ok || len(p) == 0 {
				return nil, false
			}
		}
	}
	return out, true
}

// jsonString reads a JSON string at the start of p and returns it and the rest; strings with escapes are decoded
// by encoding/json.
func jsonString(p string) (string, string, bool) {
	if len(p) == 0 || p[0] != '"' {
		return "", "", false
	}
	escaped := false
	for i := 1; i < len(p); i++ {
		switch p[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			if !escaped {
				return p[1:i], p[i+1:], true
			}
			var s string
			if json.Unmarshal([]byte(p[:i+1]), &s) != nil {
				return "", "", false
			}
			return s, p[i+1:], true
		}
	}
	return "", "", false
}
