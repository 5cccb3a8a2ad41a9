package kb

import (
	"encoding/json"
	"math"
	"strconv"
)

// encodeWords writes words as encoding/json would, byte for byte, without reflection: marshalling word boxes was a
// tenth of ingest's CPU in the storing process. Strings that need escaping go through encoding/json itself.
func encodeWords(words []Word) ([]byte, error) {
	if words == nil {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 16+len(words)*64)
	b = append(b, '[')
	for i, w := range words {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"t":`...)
		if plainJSON(w.Text) {
			b = append(b, '"')
			b = append(b, w.Text...)
			b = append(b, '"')
		} else {
			s, err := json.Marshal(w.Text)
			if err != nil {
				return nil, err
			}
			b = append(b, s...)
		}
		for k, f := range [4]float64{w.X0, w.Y0, w.X1, w.Y1} {
			b = append(b, `,"x0":,"y0":,"x1":,"y1":`[k*6:k*6+6]...)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return json.Marshal(words) // the same error encoding/json gives
			}
			b = appendJSONFloat(b, f)
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

// plainJSON reports whether s is printable ASCII that encoding/json writes unescaped (it escapes <, > and & too).
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// appendJSONFloat formats a finite float64 the way encoding/json does (ES6 number formatting).
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
