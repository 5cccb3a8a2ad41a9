package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// windowJSON is a settings object exactly as the window sends it to SaveSettings (frontend/wailsjs models.ts
// Settings.createFrom, keys in that order): the values it was shown (environment overrides included, no keys), with
// only the theme and the dashscope chat model changed by the user.
const windowJSON = `{"version":1,"providers":[` +
	`{"name":"ollama","kind":"ollama","base_url":"http://127.0.0.1:11435","chat_model":"env-model","embed_model":""},` +
	`{"name":"openai","kind":"openai","base_url":"http://gpu-box:8000/v1","chat_model":"","embed_model":""},` +
	`{"name":"dashscope","kind":"dashscope","base_url":"https://dashscope.aliyuncs.com/compatible-mode/v1","chat_model":"qwen-vl-plus","embed_model":"multimodal-embedding-v1"}],` +
	`"agent":{"provider":"ollama","mode":"vrag","think":false,"top_k":5},` +
	`"ingest":{"ocr_languages":["eng","chi_sim"],"clip_seconds":60,"workers":0,"transcription":{"provider":"","model":""}},` +
	`"theme":"dark"}`

func TestSettingsRoundTripThroughWindow(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"version":1,"providers":[`+
		`{"name":"ollama","kind":"ollama","base_url":"http://127.0.0.1:11434","chat_model":"file-model"},`+
		`{"name":"openai","kind":"openai","base_url":"http://127.0.0.1:8000/v1"},`+
		`{"name":"dashscope","kind":"dashscope","base_url":"https://dashscope.aliyuncs.com/compatible-mode/v1","chat_model":"qwen-vl-max","embed_model":"multimodal-embedding-v1"}],`+
		`"agent":{"provider":"ollama","mode":"vrag","top_k":5},"ingest":{"ocr_languages":["eng","chi_sim"],"clip_seconds":60},"theme":"system"}`), 0o600)
	t.Setenv("OLLAMA_HOST", "127.0.0.1:11435")
	t.Setenv("OPENAI_BASE_URL", "http://gpu-box:8000/v1")
	t.Setenv("PROOFGLASS_MODEL", "env-model")
	t.Setenv("PROOFGLASS_PROVIDER", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("DASHSCOPE_API_KEY", "")
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	c.Secrets = &FileStore{Path: filepath.Join(dir, "secrets.json")}
	if err := c.SetAPIKey("dashscope", "ds-secret-1"); err != nil {
		t.Fatal(err)
	}
	if err := c.SetAPIKey("openai", "sk-secret-2"); err != nil {
		t.Fatal(err)
	}
	// What the window reads holds the environment's values and no key.
	shown, _ := json.Marshal(c.Settings)
	if strings.Contains(string(shown), "secret") || !strings.Contains(string(shown), "gpu-box") {
		t.Fatalf("Settings as the window reads them: %s", shown)
	}
	var in Settings
	if err := json.Unmarshal([]byte(windowJSON), &in); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(in); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(c.SettingsPath())
	var file Settings
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	byName := func(s Settings, n string) Provider {
		for _, p := range s.Providers {
			if p.Name == n {
				return p
			}
		}
		t.Fatalf("no profile %s in %+v", n, s.Providers)
		return Provider{}
	}
	checks := map[string]struct{ got, want string }{
		"theme changed":                  {file.Theme, "dark"},
		"dashscope model changed":        {byName(file, "dashscope").ChatModel, "qwen-vl-plus"},
		"OLLAMA_HOST not persisted":      {byName(file, "ollama").BaseURL, "http://127.0.0.1:11434"},
		"OPENAI_BASE_URL not persisted":  {byName(file, "openai").BaseURL, "http://127.0.0.1:8000/v1"},
		"PROOFGLASS_MODEL not persisted": {byName(file, "ollama").ChatModel, "file-model"},
		"effective view keeps env URL":   {byName(c.Settings, "openai").BaseURL, "http://gpu-box:8000/v1"},
		"effective view keeps env model": {byName(c.Settings, "ollama").ChatModel, "env-model"},
	}
	for name, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s: %q, want %q", name, ch.got, ch.want)
		}
	}
	if strings.Contains(string(b), "secret") {
		t.Errorf("settings file holds a key: %s", b)
	}
	if p, err := c.Provider("dashscope"); err != nil || p.APIKey != "ds-secret-1" {
		t.Errorf("dashscope after save: key %q %v, want the stored key", p.APIKey, err)
	}
	// The openai key was stored for its own server: it does not follow OPENAI_BASE_URL to gpu-box, and is there
	// again once the environment no longer re-points the profile.
	if p, err := c.Provider("openai"); err != nil || p.APIKey != "" {
		t.Errorf("openai re-pointed by OPENAI_BASE_URL: key %q %v, want none sent there", p.APIKey, err)
	}
	t.Setenv("OPENAI_BASE_URL", "")
	plain, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	plain.Secrets = c.Secrets
	if p, err := plain.Provider("openai"); err != nil || p.APIKey != "sk-secret-2" {
		t.Errorf("openai after save, read without OPENAI_BASE_URL: key %q %v, want the stored key", p.APIKey, err)
	}
	t.Setenv("OPENAI_BASE_URL", "http://gpu-box:8000/v1")
	// The same JSON again changes nothing: a second save is a no-op on the file.
	if err := c.Update(in); err != nil {
		t.Fatal(err)
	}
	if b2, _ := os.ReadFile(c.SettingsPath()); string(b2) != string(b) {
		t.Errorf("second identical save changed the file:\n%s\n%s", b, b2)
	}
	// A reload sees the same.
	c2, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if byName(c2.Settings, "dashscope").ChatModel != "qwen-vl-plus" || byName(c2.Settings, "openai").BaseURL != "http://gpu-box:8000/v1" {
		t.Errorf("reloaded: %+v", c2.Settings.Providers)
	}
}

func TestUpdateTakesChangedOverriddenValue(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OLLAMA_HOST", "127.0.0.1:11435")
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	in := clone(c.Settings)
	in.Providers[0].BaseURL = "http://10.0.0.5:11434" // the user typed a new URL over the overridden one
	if err := c.Update(in); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(c.SettingsPath())
	if !strings.Contains(string(b), "10.0.0.5") {
		t.Errorf("a changed value was not saved: %s", b)
	}
}

func TestUpdateRejectsHostileSettings(t *testing.T) {
	cases := map[string]func(s *Settings){
		"file URL":             func(s *Settings) { s.Providers[0].BaseURL = "file:///etc/passwd" },
		"credentials in URL":   func(s *Settings) { s.Providers[1].BaseURL = "http://user:pw@h/v1" },
		"unknown kind":         func(s *Settings) { s.Providers[0].Kind = "exec" },
		"duplicate profile":    func(s *Settings) { s.Providers[1].Name = s.Providers[0].Name },
		"path as profile name": func(s *Settings) { s.Providers[0].Name = "../x" },
		"tesseract option":     func(s *Settings) { s.Ingest.OCRLanguages = []string{"--tessdata-dir"} },
		"huge top_k":           func(s *Settings) { s.Agent.TopK = 1 << 30 },
		"negative workers":     func(s *Settings) { s.Ingest.Workers = -1 },
		"unknown mode":         func(s *Settings) { s.Agent.Mode = "rm" },
		"unknown follow-ups":   func(s *Settings) { s.Agent.FollowUps = "maybe" },
		"negative page cache":  func(s *Settings) { s.Cache.PagesMB = -1 },
		"control characters":   func(s *Settings) { s.Providers[0].ChatModel = "a\nb" },
		"long model name":      func(s *Settings) { s.Providers[0].ChatModel = strings.Repeat("m", 1000) },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			c, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			in := clone(c.Settings)
			mutate(&in)
			if err := c.Update(in); err == nil || !strings.Contains(err.Error(), "settings:") {
				t.Fatalf("err = %v, want a settings error", err)
			}
			if _, err := os.Stat(c.SettingsPath()); err == nil {
				t.Error("a rejected update wrote the file")
			}
		})
	}
}

func TestForTestBindsKeyToURL(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DASHSCOPE_API_KEY", "")
	t.Setenv("DASHSCOPE_BASE_URL", "")
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	c.Secrets = &FileStore{Path: filepath.Join(dir, "secrets.json")}
	c.SetAPIKey("dashscope", "ds-secret")
	saved, _ := c.Provider("dashscope")
	cases := map[string]struct {
		url, entered, want string
	}{
		"saved URL gets the stored key":     {saved.BaseURL, "", "ds-secret"},
		"trailing slash is the same URL":    {saved.BaseURL + "/", "", "ds-secret"},
		"another host gets no key":          {"https://evil.example/compatible-mode/v1", "", ""},
		"another path gets no key":          {"https://dashscope.aliyuncs.com/other", "", ""},
		"http instead of https gets no key": {strings.Replace(saved.BaseURL, "https", "http", 1), "", ""},
		"an entered key is used as given":   {"https://evil.example/v1", "typed", "typed"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := saved
			p.APIKey = "ignored: the window cannot send a key in the profile"
			p.BaseURL = tc.url
			if got := c.ForTest(p, tc.entered).APIKey; got != tc.want {
				t.Errorf("key %q, want %q", got, tc.want)
			}
		})
	}
}

// TestUpdateKeepsFieldsTheWindowDoesNotSend: the window's bindings may lag the Go struct (a field added since they
// were generated); a key missing from what it sends keeps its saved value instead of becoming zero.
func TestUpdateKeepsFieldsTheWindowDoesNotSend(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"version":1,"cache":{"pages_mb":500},"theme":"light",`+
		`"agent":{"provider":"ollama","mode":"vimrag","top_k":7,"follow_ups":"off"}}`), 0o600)
	t.Setenv("PROOFGLASS_PROVIDER", "")
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	// As Wails decodes the window's object: no "cache" key, no "follow_ups" key, theme changed.
	var in Settings
	if err := json.Unmarshal([]byte(`{"version":1,"providers":[`+
		`{"name":"ollama","kind":"ollama","base_url":"http://127.0.0.1:11434","chat_model":"","embed_model":""},`+
		`{"name":"openai","kind":"openai","base_url":"http://127.0.0.1:8000/v1","chat_model":"","embed_model":""},`+
		`{"name":"dashscope","kind":"dashscope","base_url":"https://dashscope.aliyuncs.com/compatible-mode/v1","chat_model":"qwen-vl-max","embed_model":"multimodal-embedding-v1"}],`+
		`"agent":{"provider":"ollama","mode":"vimrag","think":false,"top_k":7},`+
		`"ingest":{"ocr_languages":["eng","chi_sim"],"clip_seconds":60,"workers":0,"transcription":{"provider":"","model":""}},`+
		`"theme":"dark"}`), &in); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(in); err != nil {
		t.Fatal(err)
	}
	got := c.Settings
	if got.Cache.PagesMB != 500 || got.Agent.FollowUps != "off" || got.Theme != "dark" || got.Agent.TopK != 7 {
		t.Errorf("after save: cache %d, follow_ups %q, theme %q, top_k %d; want 500, off, dark, 7",
			got.Cache.PagesMB, got.Agent.FollowUps, got.Theme, got.Agent.TopK)
	}
	// Settings changed in Go code after decoding are taken as they are.
	edited := got
	edited.Theme = "light"
	if err := c.Update(edited); err != nil || c.Settings.Theme != "light" {
		t.Errorf("an edit in code: theme %q %v", c.Settings.Theme, err)
	}
}

// TestSettingsReadWhileTheWindowSaves reads settings the way a server, a run or the app does while the window saves
// new ones (run with -race: make test does).
func TestSettingsReadWhileTheWindowSaves(t *testing.T) {
	c, err := Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50 {
			in := c.Current()
			in.Agent.TopK = 1 + i%5
			if err := c.Update(in); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for {
		select {
		case <-done:
			if got := c.Current().Agent.TopK; got != 1+49%5 {
				t.Errorf("after the saves, top_k %d, want %d", got, 1+49%5)
			}
			return
		default:
		}
		if k := c.Current().Agent.TopK; k < 0 || k > 10 {
			t.Fatalf("read top_k %d", k)
		}
		if _, err := c.Provider(""); err != nil {
			t.Fatal(err)
		}
	}
}
