package config

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestResolveDataDir(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/xdg")
	cases := map[string]struct {
		flag, env, want string
	}{
		"flag wins":       {"/from/flag", "/from/env", "/from/flag"},
		"env next":        {"", "/from/env", "/from/env"},
		"os default last": {"", "", "/xdg/proofglass"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("PROOFGLASS_DATA", c.env)
			got, err := ResolveDataDir(c.flag)
			if err != nil || got != c.want {
				t.Errorf("got %q %v, want %q", got, err, c.want)
			}
		})
	}
}

func TestEnvOverridesAndSecrets(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OLLAMA_HOST", "127.0.0.1:11435")
	t.Setenv("OPENAI_BASE_URL", "http://gpu-box:8000/v1")
	t.Setenv("OPENAI_API_KEY", "sk-env-secret")
	t.Setenv("DASHSCOPE_API_KEY", "")
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	c.Secrets = &FileStore{Path: filepath.Join(dir, "secrets.json")} // never touch the developer's real keyring
	o, _ := c.Provider("ollama")
	if o.BaseURL != "http://127.0.0.1:11435" {
		t.Errorf("OLLAMA_HOST: %q", o.BaseURL)
	}
	p, _ := c.Provider("openai")
	if p.BaseURL != "http://gpu-box:8000/v1" || p.APIKey != "sk-env-secret" {
		t.Errorf("openai profile: %+v", p)
	}
	if strings.Contains(p.String(), "sk-env-secret") {
		t.Error("String() leaks the key")
	}
	if err := c.SetAPIKey("dashscope", "ds-stored-secret"); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(c.SettingsPath())
	if strings.Contains(string(b), "secret") {
		t.Errorf("settings file holds a secret: %s", b)
	}
	info, _ := os.Stat(filepath.Join(dir, "secrets.json"))
	if info == nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("secrets file mode: %v", info)
	}
	if v, err := c.Secrets.Get(SecretKey("dashscope")); err != nil || v != "ds-stored-secret" {
		t.Errorf("secret round trip: %q %v", v, err)
	}
}

func TestSettingsFile(t *testing.T) {
	cases := map[string]struct {
		content string
		wantErr string
	}{
		"unversioned file is upgraded": {`{"theme":"dark"}`, ""},
		"newer version refused":        {`{"version": 99}`, "newer than this Proofglass"},
		"broken JSON names the file":   {`{"theme":`, "settings.json is not valid JSON"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "settings.json"), []byte(c.content), 0o600)
			cfg, err := Load(dir)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Settings.Version != SettingsVersion || cfg.Settings.Theme != "dark" || len(cfg.Settings.Providers) == 0 {
				t.Errorf("settings %+v", cfg.Settings)
			}
		})
	}
}

func TestProviderLookup(t *testing.T) {
	c := &Config{Settings: Defaults()}
	c.SetProvider(Provider{Name: "vllm", Kind: KindOpenAI, BaseURL: "http://x/v1"})
	if p, err := c.Provider(""); err != nil || p.Name != "ollama" {
		t.Errorf("default provider: %+v %v", p, err)
	}
	if p, err := c.Provider("vllm"); err != nil || p.BaseURL != "http://x/v1" {
		t.Errorf("by name: %+v %v", p, err)
	}
	if p, err := c.Provider("dashscope"); err != nil || p.Kind != KindDashScope {
		t.Errorf("by kind: %+v %v", p, err)
	}
	if _, err := c.Provider("nope"); err == nil || !strings.Contains(err.Error(), "vllm") {
		t.Errorf("unknown provider error should list profiles: %v", err)
	}
}

func TestOllamaURL(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:11435":    "http://127.0.0.1:11435",
		":9999":              "http://127.0.0.1:9999",
		"gpu":                "http://gpu:11434",
		"https://x.example/": "https://x.example",
	} {
		if got := ollamaURL(in); got != want {
			t.Errorf("ollamaURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAgentDefaultsMaxSteps(t *testing.T) {
	s := AgentDefaults{VRAGMaxSteps: 7, VimRAGMaxSteps: 25}
	for mode, want := range map[string]int{"vrag": 7, "react": 7, "vimrag": 25, "vanilla": 0, "": 0, "other": 0} {
		if got := s.MaxSteps(mode); got != want {
			t.Errorf("MaxSteps(%q) = %d, want %d", mode, got, want)
		}
	}
}

// A rerank deadline is bounded; its default depends on the reranker (issue 41, row 3).
func TestRerankTimeout(t *testing.T) {
	for _, c := range []struct {
		r    Rerank
		want time.Duration
	}{
		{Rerank{Kind: RerankEndpoint}, DefaultRerankTimeout},
		{Rerank{Kind: RerankChat}, DefaultChatRerankTimeout},
		{Rerank{Kind: RerankEndpoint, TimeoutSeconds: 2.5}, 2500 * time.Millisecond},
	} {
		if got := c.r.Timeout(); got != c.want {
			t.Errorf("%+v: timeout %v, want %v", c.r, got, c.want)
		}
	}
	for _, s := range []float64{-1, MaxRerankTimeoutSeconds + 1, math.NaN()} {
		err := validateRerank(Settings{Rerank: Rerank{Kind: RerankEndpoint, TimeoutSeconds: s}})
		if err == nil || !strings.Contains(err.Error(), "timeout_s") {
			t.Errorf("timeout_s %g: %v, want refused", s, err)
		}
	}
}

// The environment's endpoint and key are for the built-in profile of their kind only: a second OpenAI-type profile
// (a reranker) keeps its own URL and stored key, and a stored key does not follow the built-in profile to where the
// environment re-points it (issue 41, row 1).
func TestEnvOverridesStayWithTheirProfile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OPENAI_BASE_URL", "http://elsewhere:9000/v1")
	t.Setenv("OPENAI_API_KEY", "")
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	c.Secrets = &FileStore{Path: filepath.Join(dir, "secrets.json")}
	c.SetProvider(Provider{Name: "reranker", Kind: KindOpenAI, BaseURL: "http://127.0.0.1:8001/v1"})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if err := c.SetAPIKey("reranker", "sk-reranker"); err != nil {
		t.Fatal(err)
	}
	if err := c.SetAPIKey("openai", "sk-stored-for-8000"); err != nil {
		t.Fatal(err)
	}
	r, _ := c.Provider("reranker")
	if r.BaseURL != "http://127.0.0.1:8001/v1" || r.APIKey != "sk-reranker" {
		t.Errorf("reranker profile: %s with key %q, want its own URL and key", r.BaseURL, r.APIKey)
	}
	o, _ := c.Provider("openai")
	if o.BaseURL != "http://elsewhere:9000/v1" || o.APIKey != "" {
		t.Errorf("openai profile re-pointed by the environment: %s with key %q, want no stored key sent there", o.BaseURL, o.APIKey)
	}
	t.Setenv("OPENAI_API_KEY", "sk-env")
	if r, _ := c.Provider("reranker"); r.APIKey != "sk-reranker" {
		t.Errorf("OPENAI_API_KEY went to the reranker profile: %q", r.APIKey)
	}
	if o, _ := c.Provider("openai"); o.APIKey != "sk-env" {
		t.Errorf("OPENAI_API_KEY did not reach the openai profile: %q", o.APIKey)
	}
}

// A stored key goes only to the server it was saved for: when the profile is pointed elsewhere in the settings, the
// key stays home and KeyOrigin says where it belongs; pointed back, it is sent again (issue 41, row 1).
func TestStoredKeyStaysWithItsServer(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	c.Secrets = &FileStore{Path: filepath.Join(dir, "secrets.json")}
	c.SetProvider(Provider{Name: "cloud", Kind: KindOpenAI, BaseURL: "https://api.example.com/v1"})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if err := c.SetAPIKey("cloud", "sk-cloud"); err != nil {
		t.Fatal(err)
	}
	if p, _ := c.Provider("cloud"); p.APIKey != "sk-cloud" {
		t.Fatalf("key at its own server: %q", p.APIKey)
	}
	c.SetProvider(Provider{Name: "cloud", Kind: KindOpenAI, BaseURL: "http://127.0.0.1:9999/v1"})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	p, _ := c.Provider("cloud")
	if p.APIKey != "" {
		t.Errorf("key sent to %s, another server than the one it was saved for", p.BaseURL)
	}
	if origin, ok := c.KeyOrigin(p); ok || origin != "https://api.example.com/v1" {
		t.Errorf("KeyOrigin: %q %v, want the server it was saved for, not this one", origin, ok)
	}
	c.SetProvider(Provider{Name: "cloud", Kind: KindOpenAI, BaseURL: "https://API.example.com:443/v1/"})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if p, _ := c.Provider("cloud"); p.APIKey != "sk-cloud" {
		t.Errorf("pointed back at its server (spelt otherwise): key %q", p.APIKey)
	}
}
