// Package config loads Loupe's settings: data directory, versioned settings file, environment overrides, providers.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// SettingsVersion is the version of the settings file this build writes. Older files are upgraded on load.
const SettingsVersion = 1

// Provider kinds.
const (
	KindOllama    = "ollama"
	KindOpenAI    = "openai" // any OpenAI-compatible server: vLLM, LM Studio, llama.cpp, OpenAI
	KindDashScope = "dashscope"
	KindBuiltin   = "builtin"
)

// Provider is one model endpoint profile.
type Provider struct {
	Name       string `json:"name"`        // profile name, unique: "ollama", "vllm", …
	Kind       string `json:"kind"`        // KindOllama, KindOpenAI, KindDashScope
	BaseURL    string `json:"base_url"`    // e.g. http://127.0.0.1:11434 or http://127.0.0.1:8000/v1
	ChatModel  string `json:"chat_model"`  // default chat (vision) model
	EmbedModel string `json:"embed_model"` // default embedding model, "" = none
	// APIKey is resolved at load from the secret store or the environment; it is never written to the settings file.
	APIKey string `json:"-"`
}

// HasKey reports whether a key is configured, without revealing it.
func (p Provider) HasKey() bool { return p.APIKey != "" }

// String prints the profile with the key masked, so a provider can be logged safely.
func (p Provider) String() string {
	key := "none"
	if p.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("%s(%s %s chat=%q embed=%q key=%s)", p.Name, p.Kind, p.BaseURL, p.ChatModel, p.EmbedModel, key)
}

// AgentDefaults are the defaults of `loupe ask` and the chat screen.
type AgentDefaults struct {
	Provider string `json:"provider"` // profile name
	Mode     string `json:"mode"`     // vrag|vimrag|vanilla|react
	Think    bool   `json:"think"`
	TopK     int    `json:"top_k"`
	// FollowUps: "rewrite" (the default, also "") turns a follow-up question into a standalone one from the
	// conversation before the agent runs (one extra model call); "off" sends every question as asked.
	FollowUps string `json:"follow_ups,omitempty"`
}

// Ingest settings.
type Ingest struct {
	OCRLanguages []string `json:"ocr_languages"` // tesseract language codes
	ClipSeconds  int      `json:"clip_seconds"`  // video clip length
	Workers      int      `json:"workers"`       // 0 = number of CPUs
	// Transcription, when its model is set, transcribes the speech of video clips through an OpenAI-compatible
	// /audio/transcriptions endpoint (a Whisper model served by vLLM, LocalAI or OpenAI).
	Transcription Transcription `json:"transcription"`
}

// Transcription names the provider profile and model that transcribe speech.
type Transcription struct {
	Provider string `json:"provider"` // an OpenAI-compatible profile, e.g. "openai"
	Model    string `json:"model"`    // e.g. "whisper-1"; "" = no transcripts
}

// Settings is the content of settings.json.
type Settings struct {
	Version   int           `json:"version"`
	Providers []Provider    `json:"providers"`
	Agent     AgentDefaults `json:"agent"`
	Ingest    Ingest        `json:"ingest"`
	Theme     string        `json:"theme"` // "system", "light", "dark"
	Cache     Cache         `json:"cache"`
}

// Cache bounds the data directory's cache of derived files.
type Cache struct {
	// PagesMB caps the page images `loupe serve` hands to VRAG clients (cache/pages); the least recently used go
	// first. 0 means 2048.
	PagesMB int `json:"pages_mb"`
}

// Defaults returns the settings of a fresh install.
func Defaults() Settings {
	return Settings{
		Version: SettingsVersion,
		Providers: []Provider{
			{Name: "ollama", Kind: KindOllama, BaseURL: "http://127.0.0.1:11434"},
			{Name: "openai", Kind: KindOpenAI, BaseURL: "http://127.0.0.1:8000/v1"},
			{Name: "dashscope", Kind: KindDashScope, BaseURL: "https://dashscope.aliyuncs.com/compatible-mode/v1",
				ChatModel: "qwen-vl-max", EmbedModel: "multimodal-embedding-v1"},
		},
		Agent:  AgentDefaults{Provider: "ollama", Mode: "vrag", TopK: 5},
		Ingest: Ingest{OCRLanguages: []string{"eng", "chi_sim"}, ClipSeconds: 60},
		Theme:  "system",
	}
}

// Config is the loaded configuration of one data directory.
type Config struct {
	DataDir  string
	Settings Settings
	Secrets  SecretStore
}

// Paths inside the data directory.
func (c *Config) DBPath() string       { return filepath.Join(c.DataDir, "loupe.db") }
func (c *Config) BlobDir() string      { return filepath.Join(c.DataDir, "blobs") }
func (c *Config) CacheDir() string     { return filepath.Join(c.DataDir, "cache") }
func (c *Config) IndexDir() string     { return filepath.Join(c.DataDir, "index") }
func (c *Config) SettingsPath() string { return filepath.Join(c.DataDir, "settings.json") }

// ResolveDataDir picks the data directory: the flag, then LOUPE_DATA, then the OS user data dir.
func ResolveDataDir(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if d := os.Getenv("LOUPE_DATA"); d != "" {
		return filepath.Abs(d)
	}
	return defaultDataDir()
}

// Load reads the configuration of the data directory named by flag (see ResolveDataDir), creating the directory and
// default settings when missing, then applies environment overrides and resolves secrets.
func Load(flag string) (*Config, error) {
	dir, err := ResolveDataDir(flag)
	if err != nil {
		return nil, fmt.Errorf("resolve data directory: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory %s: %w", dir, err)
	}
	c := &Config{DataDir: dir, Secrets: DefaultSecretStore(dir)}
	s, err := readSettings(c.SettingsPath())
	if err != nil {
		return nil, err
	}
	c.Settings = s
	c.applyEnv()
	c.resolveSecrets()
	return c, nil
}

func readSettings(path string) (Settings, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Defaults(), nil
	}
	if err != nil {
		return Settings{}, fmt.Errorf("read settings %s: %w", path, err)
	}
	s := Defaults()
	s.Providers = nil
	if err := json.Unmarshal(b, &s); err != nil {
		return Settings{}, fmt.Errorf("settings file %s is not valid JSON: %w (fix or delete it to start from defaults)", path, err)
	}
	if s.Version > SettingsVersion {
		return Settings{}, fmt.Errorf("settings file %s has version %d, newer than this Loupe understands (%d)", path, s.Version, SettingsVersion)
	}
	// Version 0 is a file written before versioning: same shape, just stamp it.
	s.Version = SettingsVersion
	if len(s.Providers) == 0 {
		s.Providers = Defaults().Providers
	}
	return s, nil
}

// Save writes settings.json atomically. API keys are not part of it.
func (c *Config) Save() error {
	b, err := json.MarshalIndent(c.Settings, "", "  ")
	if err != nil {
		return fmt.Errorf("encode settings: %w", err)
	}
	return WriteFileAtomic(c.SettingsPath(), append(b, '\n'), 0o600)
}

// Provider returns the profile with the given name; "" means the agent default.
func (c *Config) Provider(name string) (Provider, error) {
	if name == "" {
		name = c.Settings.Agent.Provider
	}
	for _, p := range c.Settings.Providers {
		if p.Name == name {
			return p, nil
		}
	}
	// A kind name also selects the first profile of that kind ("--provider openai").
	for _, p := range c.Settings.Providers {
		if p.Kind == name {
			return p, nil
		}
	}
	return Provider{}, fmt.Errorf("no provider profile named %q (have: %s)", name, strings.Join(c.providerNames(), ", "))
}

func (c *Config) providerNames() []string {
	var n []string
	for _, p := range c.Settings.Providers {
		n = append(n, p.Name)
	}
	return n
}

// SetProvider adds or replaces a profile by name.
func (c *Config) SetProvider(p Provider) {
	for i := range c.Settings.Providers {
		if c.Settings.Providers[i].Name == p.Name {
			c.Settings.Providers[i] = p
			return
		}
	}
	c.Settings.Providers = append(c.Settings.Providers, p)
}

// SecretKey is the secret-store key holding a provider profile's API key.
func SecretKey(profile string) string { return "provider/" + profile + "/api_key" }

// SetAPIKey stores a profile's key in the secret store and in memory.
func (c *Config) SetAPIKey(profile, key string) error {
	if err := c.Secrets.Set(SecretKey(profile), key); err != nil {
		return err
	}
	for i := range c.Settings.Providers {
		if c.Settings.Providers[i].Name == profile {
			c.Settings.Providers[i].APIKey = key
		}
	}
	return nil
}

// applyEnv lets the environment override endpoints: the conventions of each provider's own tools.
func (c *Config) applyEnv() {
	for i := range c.Settings.Providers {
		p := &c.Settings.Providers[i]
		switch p.Kind {
		case KindOllama:
			if h := os.Getenv("OLLAMA_HOST"); h != "" {
				p.BaseURL = ollamaURL(h)
			}
		case KindOpenAI:
			if u := os.Getenv("OPENAI_BASE_URL"); u != "" {
				p.BaseURL = u
			}
		case KindDashScope:
			if u := os.Getenv("DASHSCOPE_BASE_URL"); u != "" {
				p.BaseURL = u
			}
		}
	}
	if v := os.Getenv("LOUPE_PROVIDER"); v != "" {
		c.Settings.Agent.Provider = v
	}
	if v := os.Getenv("LOUPE_MODEL"); v != "" {
		for i := range c.Settings.Providers {
			if c.Settings.Providers[i].Name == c.Settings.Agent.Provider {
				c.Settings.Providers[i].ChatModel = v
			}
		}
	}
}

// resolveSecrets fills API keys: the environment wins over the secret store, so CI and scripts need no keyring.
func (c *Config) resolveSecrets() {
	for i := range c.Settings.Providers {
		p := &c.Settings.Providers[i]
		env := ""
		switch p.Kind {
		case KindOpenAI:
			env = os.Getenv("OPENAI_API_KEY")
		case KindDashScope:
			env = os.Getenv("DASHSCOPE_API_KEY")
		}
		if env != "" {
			p.APIKey = env
			continue
		}
		if v, err := c.Secrets.Get(SecretKey(p.Name)); err == nil {
			p.APIKey = v
		}
	}
}

// ollamaURL turns OLLAMA_HOST's forms ("host:port", ":port", "http://host:port") into a URL.
func ollamaURL(h string) string {
	if strings.HasPrefix(h, "http://") || strings.HasPrefix(h, "https://") {
		return strings.TrimRight(h, "/")
	}
	if strings.HasPrefix(h, ":") {
		h = "127.0.0.1" + h
	}
	if !strings.Contains(h, ":") {
		h += ":11434"
	}
	return "http://" + h
}
