package glove

import "testing"

func TestRank(t *testing.T) {
	tb := table(t)
	cases := map[string]struct {
		word   string
		ok     bool
		before string // a word the table must rank after this one ("" = none)
	}{
		"most-frequent": {word: "the", ok: true},
		"common":        {word: "report", ok: true, before: "the"},
		"rare":          {word: "glacier", ok: true, before: "report"},
		"unknown":       {word: "zzqxv", ok: false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r, ok := tb.Rank(c.word)
			if ok != c.ok {
				t.Fatalf("Rank(%q) ok = %v, want %v", c.word, ok, c.ok)
			}
			if ok && tb.Word(r) != c.word {
				t.Errorf("Word(Rank(%q)) = %q", c.word, tb.Word(r))
			}
			if c.before != "" {
				if b, _ := tb.Rank(c.before); b >= r {
					t.Errorf("Rank(%q) = %d, not after Rank(%q) = %d", c.word, r, c.before, b)
				}
			}
		})
	}
}
