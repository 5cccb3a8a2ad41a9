package kb

import (
	"encoding/json"
	"strconv"
	"strings"
)

// decodeWords reads a units.words column: the binary form (wordsbin.go), or JSON as earlier versions wrote it. Search loads the words of every hit it returns, and encoding/json spent
// most of a warm search's CPU on them, so the exact shape json.Marshal writes ([{"t":…,"x0":…,"y0":…,"x1":…,
// "y1":…},…]) is parsed directly; anything else (older or hand-edited rows) goes through encoding/json.
func decodeWords(s string) ([]Word, error) { return decodeWordsKeeping(s, nil) }

// decodeWordsKeeping decodes only the words keep accepts (all when nil); a rejected word's coordinates are skipped
// unparsed.
func decodeWordsKeeping(s string, keep func(string) bool) ([]Word, error) {
	if len(s) > 0 && s[0] == wordsMagic {
		return decodeWordsBinary(s, keep)
	}
	if ws, ok := fastWords(s, keep); ok {
		return ws, nil
	}
	var ws []Word
	if err := json.Unmarshal([]byte(s), &ws); err != nil {
		return nil, err
	}
	if keep == nil {
		return ws, nil
	}
	kept := ws[:0]
	for _, w := range ws {
		if keep(w.Text) {
			kept = append(kept, w)
		}
	}
	return kept, nil
}

func fastWords(s string, keep func(string) bool) ([]Word, bool) {
	if s == "[]" {
		return []Word{}, true
	}
	if s == "null" {
		return nil, true
	}
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, false
	}
	var out []Word
	if keep == nil {
		out = make([]Word, 0, strings.Count(s, `{"t":`))
	} else {
		out = []Word{}
	}
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
		if keep != nil && !keep(w.Text) {
			// Skip the coordinates: numbers and keys hold no '}' or string.
			end := strings.IndexByte(p, '}')
			if end < 0 || !strings.HasPrefix(p, `,"x0":`) {
				return nil, false
			}
			if p = p[end+1:]; len(p) > 0 {
				if p, ok = strings.CutPrefix(p, ","); !ok || len(p) == 0 {
					return nil, false
				}
			}
			continue
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
