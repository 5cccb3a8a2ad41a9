package desktop

import (
	"strings"
	"testing"

	"proofglass/backend/config"
)

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
