package search

import "testing"

func TestMayStartLike(t *testing.T) {
	var first [256]bool
	first['a'], first['v'], first['r'], first['1'] = true, true, true, true
	cases := map[string]struct {
		word string
		want bool
	}{
		"first letter":           {"Analysis", true},
		"after punctuation":      {"(Variance,", true},
		"second token":           {"x-ray", true},
		"digit":                  {"[12]", true},
		"non-ASCII decides late": {"épreuve", true},
		"no token starts so":     {"bar", false},
		"inside a token only":    {"cart", false},
		"punctuation only":       {"--", false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := mayStartLike(c.word, &first); got != c.want {
				t.Errorf("mayStartLike(%q) = %v, want %v", c.word, got, c.want)
			}
		})
	}
}
