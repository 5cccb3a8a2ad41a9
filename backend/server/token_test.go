package server

import (
	"strings"
	"testing"
)

func TestCheckToken(t *testing.T) {
	for name, c := range map[string]struct {
		token string
		want  string // in the error; "" = accepted
	}{
		"one character":         {"x", "1 characters; a bearer token needs at least 16"},
		"fifteen characters":    {"abcdefghijklmno", "15 characters"},
		"sixteen, varied":       {"abcdefghijklmnop", ""},
		"sixteen, one letter":   {"aaaaaaaaaaaaaaaa", "needs at least 6"},
		"two letters repeated":  {"abababababababababababab", "needs at least 6"},
		"a space":               {"correct horse battery staple", "spaces or control characters"},
		"a control character":   {"abcdefgh\x1bijklmnopq", "spaces or control characters"},
		"counted in characters": {"ääääääääöööööüü", "15 characters"},
		"a passphrase":          {"correct-horse-battery-staple", ""},
	} {
		t.Run(name, func(t *testing.T) {
			err := CheckToken(c.token)
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// Every generated token passes the check: the rule refuses weak tokens, not the ones Proofglass makes.
func TestGeneratedTokensAreStrong(t *testing.T) {
	for range 1000 {
		tok, err := NewToken()
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckToken(tok); err != nil {
			t.Fatalf("generated token %s… refused: %v", tok[:4], err)
		}
	}
}

func TestNewRefusesAWeakToken(t *testing.T) {
	_, err := New(nil, Options{Token: "x", Addr: "127.0.0.1:0"})
	if err == nil || !strings.Contains(err.Error(), "weak token") {
		t.Fatalf("New with a 1-character token: %v", err)
	}
}
