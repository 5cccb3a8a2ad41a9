package main

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"proofglass/backend/config"
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

func TestBoundArgumentChecks(t *testing.T) {
	cases := map[string]struct {
		err  error
		fail bool
	}{
		"absolute paths":          {checkPaths([]string{"/home/u/a.pdf"}), false},
		"relative path":           {checkPaths([]string{"a.pdf"}), true},
		"NUL in path":             {checkPaths([]string{"/a\x00b"}), true},
		"no paths":                {checkPaths(nil), true},
		"too many paths":          {checkPaths(make([]string, maxPaths+1)), true},
		"collection name":         {checkName("collection", "papers"), false},
		"control char in name":    {checkName("collection", "a\nb"), true},
		"huge name":               {checkName("collection", strings.Repeat("x", 300)), true},
		"invalid UTF-8 name":      {checkName("collection", "\xff"), true},
		"100 KB query":            {checkQuery("search", strings.Repeat("word ", 20000)), false},
		"1 MB query":              {checkQuery("search", strings.Repeat("x", 1<<20)), true},
		"key with newline":        {checkAPIKey("sk-1\nX-Other: y"), true},
		"key":                     {checkAPIKey("sk-abc"), false},
		"zero id":                 {checkID("document", 0), true},
		"negative id":             {checkID("document", -5), true},
		"password":                {checkPassword("peanuts"), false},
		"password with NUL":       {checkPassword("a\x00"), true},
		"file URL profile":        {checkProfile(profileWith("file:///etc/passwd")), true},
		"http profile":            {checkProfile(profileWith("http://127.0.0.1:8000/v1")), false},
		"credentials in base URL": {checkProfile(profileWith("http://u:p@h/v1")), true},
	}
	for name, tc := range cases {
		if (tc.err != nil) != tc.fail {
			t.Errorf("%s: err = %v, want failure %v", name, tc.err, tc.fail)
		}
	}
	if clampWidth(1<<30) != maxImageWidthPx || clampWidth(-1) != defaultImageSize || clampWidth(640) != 640 {
		t.Error("clampWidth")
	}
}

func profileWith(url string) config.Provider {
	return config.Provider{Name: "vllm", Kind: config.KindOpenAI, BaseURL: url}
}
