package cli

import (
	"context"
	"strings"
	"testing"
)

// A weak token is refused before anything is served, by every way of giving one.
func TestServeRefusesAWeakToken(t *testing.T) {
	for name, c := range map[string]struct {
		args  []string
		stdin string
		env   string
	}{
		"--token-stdin":           {args: []string{"--token-stdin"}, stdin: "x\n"},
		"--token":                 {args: []string{"--token", "short"}},
		"PROOFGLASS_SERVER_TOKEN": {env: "aaaaaaaaaaaaaaaaaaaa"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("PROOFGLASS_SERVER_TOKEN", c.env)
			root := NewRoot()
			var out strings.Builder
			root.SetOut(&out)
			root.SetErr(&out)
			root.SetIn(strings.NewReader(c.stdin))
			root.SetArgs(append([]string{"--data", t.TempDir(), "serve", "--addr", "127.0.0.1:0", "--no-watch"}, c.args...))
			err := root.ExecuteContext(context.Background())
			if err == nil || !strings.Contains(err.Error(), "bearer token needs at least") {
				t.Fatalf("serve with a weak token: %v\n%s", err, out.String())
			}
			if strings.Contains(out.String(), "serving") {
				t.Errorf("it served: %s", out.String())
			}
		})
	}
}
