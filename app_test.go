package main

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// TestEmbeddedIndexHasCSP checks the index.html built into the binary (frontend/dist, embedded as assets): it carries
// a Content-Security-Policy that lets nothing load from or send to another origin.
func TestEmbeddedIndexHasCSP(t *testing.T) {
	b, err := fs.ReadFile(assets, "frontend/dist/index.html")
	if err != nil || !strings.Contains(string(b), "<html") {
		t.Skip("frontend/dist is not built (make frontend)")
	}
	m := regexp.MustCompile(`(?s)<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no Content-Security-Policy meta in the built index.html:\n%s", b)
	}
	policy := map[string]string{}
	for _, d := range strings.Split(string(m[1]), ";") {
		f := strings.Fields(d)
		if len(f) > 0 {
			policy[f[0]] = strings.Join(f[1:], " ")
		}
	}
	want := map[string]string{
		"default-src": "'self'",
		"script-src":  "'self'",
		"img-src":     "'self' data: blob:",
		"object-src":  "'none'",
		"base-uri":    "'none'",
		"form-action": "'none'",
	}
	for d, v := range want {
		if policy[d] != v {
			t.Errorf("%s = %q, want %q", d, policy[d], v)
		}
	}
	for d, v := range policy {
		for _, src := range strings.Fields(v) {
			remote := strings.HasPrefix(src, "http") || src == "*" || src == "https:" || src == "ws:" || src == "wss:" ||
				(strings.HasPrefix(src, "ws://") && !strings.HasPrefix(src, "ws://127.0.0.1:") && !strings.HasPrefix(src, "ws://localhost:"))
			if remote || src == "'unsafe-eval'" || (d == "script-src" && src == "'unsafe-inline'") {
				t.Errorf("%s allows %s", d, src)
			}
		}
	}
}
