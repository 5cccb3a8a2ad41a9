// Package config loads Proofglass's settings: data directory, versioned settings file, environment overrides, providers.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"proofglass/backend/atomicfile"
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
	// ContextLength is the context window asked of the server for chat (Ollama num_ctx): 0 = sized for each run and
	// capped by what the model supports, -1 = none sent (the server's default), N = exactly N.
	ContextLength int `json:"context_length,omitempty"`
	// Sampling overrides the agent mode's reference sampling for this profile; unset fields keep the mode's.
	Sampling Sampling `json:"sampling"`
	// APIKey is joined in at use (Config.Provider) from the environment or the secret store; it is never part of
	// Settings, the settings file or anything the window reads.
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

// Sampling are model sampling settings; nil and 0 mean "the mode's reference value".
type Sampling struct {
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	Seed        *int     `json:"seed,omitempty"`
}

// Merge returns s with the fields over sets replacing s's.
func (s Sampling) Merge(over Sampling) Sampling {
	if over.Temperature != nil {
		s.Temperature = over.Temperature
	}
	if over.TopP != nil {
		s.TopP = over.TopP
	}
	if over.MaxTokens > 0 {
		s.MaxTokens = over.MaxTokens
	}
	if over.Seed != nil {
		s.Seed = over.Seed
	}
	return s
}

// Check reports values no server accepts.
func (s Sampling) Check() error {
	if t := s.Temperature; t != nil && (*t < 0 || *t > 2) {
		return fmt.Errorf("temperature %g: want 0 to 2", *t)
	}
	if p := s.TopP; p != nil && (*p <= 0 || *p > 1) {
		return fmt.Errorf("top_p %g: want more than 0 and at most 1", *p)
	}
	if s.MaxTokens < 0 || s.MaxTokens > 1<<20 {
		return fmt.Errorf("max_tokens %d: want 0 (the mode's default) to %d", s.MaxTokens, 1<<20)
	}
	return nil
}

// AgentDefaults are the defaults of `proofglass ask`, `/v1/ask` and the chat screen.
type AgentDefaults struct {
	Provider string `json:"provider"` // profile name
	Mode     string `json:"mode"`     // vrag|vimrag|vanilla|react
	// Think true asks every mode to think; false leaves each mode's reference choice (VimRAG thinks, VRAG does not).
	Think bool `json:"think"`
	// TopK is the hits asked of the knowledge base per search; 0 = the mode's (vrag/react 10, vimrag/vanilla 3).
	TopK int `json:"top_k"`
	// VRAGMaxSteps bounds vrag and react tool steps (3–10; 0 = 10); VimRAGMaxSteps bounds vimrag model calls (5–30;
	// 0 = 20).
	VRAGMaxSteps   int `json:"vrag_max_steps,omitempty"`
	VimRAGMaxSteps int `json:"vimrag_max_steps,omitempty"`
	// FollowUps: "rewrite" (the default, also "") turns a follow-up question into a standalone one from the
	// conversation before the agent runs (one extra model call); "off" sends every question as asked.
	FollowUps string `json:"follow_ups,omitempty"`
}

// MaxSteps is the step bound these settings give a mode: VRAGMaxSteps for vrag and react, VimRAGMaxSteps for
// vimrag, 0 (the mode's default) otherwise.
func (s AgentDefaults) MaxSteps(mode string) int {
	switch mode {
	case "vrag", "react":
		return s.VRAGMaxSteps
	case "vimrag":
		return s.VimRAGMaxSteps
	}
	return 0
}

// Ingest settings.
type Ingest struct {
	OCRLanguages []string `json:"ocr_languages"` // tesseract language codes
	ClipSeconds  int      `json:"clip_seconds"`  // video clip length
	Workers      int      `json:"workers"`       // 0 = number of CPUs
	// MaxPages is the most pages a PDF may have to be ingested (0 = 20,000): a file of a hundred thousand empty
	// pages fails at once instead of holding a worker for the whole per-file time limit.
	MaxPages int `json:"max_pages,omitempty"`
	// MaxBlankPages stops a PDF whose first pages, this many of them, give no text at all, not even by OCR (0 = 500):
	// a document of blank pages. Off when OCR is off (textless scans are expected then).
	MaxBlankPages int `json:"max_blank_pages,omitempty"`
	// Transcription, when its model is set, transcribes the speech of video clips through an OpenAI-compatible
	// /audio/transcriptions endpoint (a Whisper model served by vLLM, LocalAI or OpenAI).
	Transcription Transcription `json:"transcription"`
	// SummarizeAfter has the agent's default chat model summarise each new ready document in the background after
	// an ingest batch (backend/summary; bounded per batch, stopped with the library). Off by default: it costs a
	// model call per document.
	SummarizeAfter bool `json:"summarize_after,omitempty"`
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
	Rerank    Rerank        `json:"rerank"`

	// sent is the JSON object these settings were decoded from (UnmarshalJSON), so Update merges only the keys the
	// window actually sent: a field its bindings do not know yet is left as it is. nil when built in code.
	sent map[string]any
}

// Cache bounds the data directory's cache of derived files.
type Cache struct {
	// PagesMB caps the page images `proofglass serve` hands to VRAG clients (cache/pages); the least recently used go
	// first. 0 means 2048.
	PagesMB int `json:"pages_mb"`
	// PagesLeaseMinutes keeps a page file handed out to a client for this long, whatever the cap: VRAG-RL opens the
	// previous turn's page again when it crops. 0 means 30.
	PagesLeaseMinutes int `json:"pages_lease_minutes"`
	// PagesGroupReadable makes page files 0640 (folders 0750) instead of 0600, for a trainer running as another
	// user of the same group.
	PagesGroupReadable bool `json:"pages_group_readable"`
}

// Reranker kinds (Rerank.Kind).
const (
	RerankOff       = ""          // no reranking: the first stage's order stands
	RerankEndpoint  = "endpoint"  // a Jina/Cohere-style /rerank endpoint of an OpenAI-compatible profile (vLLM)
	RerankDashScope = "dashscope" // DashScope's text-rerank service (gte-rerank-v2) of a DashScope profile
	RerankChat      = "chat"      // the profile's chat model ranks the candidates' page images (one call per search)
)

// Rerank configures the reranking stage over the first stage's top pages; it is off unless Kind is set. The
// reranker's server and API key are those of the provider profile it names, so a key only ever goes to its
// profile's URL.
type Rerank struct {
	Kind     string `json:"kind"`     // "" (off), "endpoint", "dashscope" or "chat"
	Provider string `json:"provider"` // profile name; "" = the first profile of the kind's provider kind
	Model    string `json:"model"`    // "" = gte-rerank-v2 (dashscope), the profile's chat model (chat)
	// Candidates is how many first-stage pages are reranked: 0 = 30 (chat: 8).
	Candidates int `json:"candidates"`
	// Images sends page images instead of page text to an endpoint (multimodal rerankers: jina-reranker-m0,
	// Qwen3-VL-Reranker).
	Images bool `json:"images"`
	// TimeoutSeconds bounds one search's whole rerank call, however the server answers (silent, or a byte a
	// second): past it the search answers in first-stage order. 0 = 8 s (chat: 45 s, a vision model reading pages).
	TimeoutSeconds float64 `json:"timeout_s,omitempty"`
}

// Default candidate counts: a cross-encoder scores 30 pages in one request; a listwise chat call sees every
// candidate's image, so it gets fewer.
const (
	DefaultRerankCandidates     = 30
	DefaultChatRerankCandidates = 8
	MaxRerankCandidates         = 200
)

// Enabled reports whether a reranker is configured.
func (r Rerank) Enabled() bool { return r.Kind != RerankOff }

// Depth is the number of first-stage pages reranked.
func (r Rerank) Depth() int {
	switch {
	case r.Candidates > 0:
		return r.Candidates
	case r.Kind == RerankChat:
		return DefaultChatRerankCandidates
	}
	return DefaultRerankCandidates
}

// Default and largest rerank deadlines.
const (
	DefaultRerankTimeout     = 8 * time.Second
	DefaultChatRerankTimeout = 45 * time.Second
	MaxRerankTimeoutSeconds  = 600
)

// Timeout is the deadline of one rerank call.
func (r Rerank) Timeout() time.Duration {
	switch {
	case r.TimeoutSeconds > 0:
		return time.Duration(r.TimeoutSeconds * float64(time.Second))
	case r.Kind == RerankChat:
		return DefaultChatRerankTimeout
	}
	return DefaultRerankTimeout
}

// ProviderKind is the provider kind whose profiles serve this reranker; "" means any kind (chat).
func (r Rerank) ProviderKind() string {
	switch r.Kind {
	case RerankEndpoint:
		return KindOpenAI
	case RerankDashScope:
		return KindDashScope
	}
	return ""
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
		Agent:  AgentDefaults{Provider: "ollama", Mode: "vrag"},
		Ingest: Ingest{OCRLanguages: []string{"eng", "chi_sim"}, ClipSeconds: 60},
		Theme:  "system",
	}
}

// Config is the loaded configuration of one data directory.
type Config struct {
	DataDir string
	// Settings is the effective view: the settings file with environment overrides applied. It holds no API keys
	// (Provider joins them in at use) and is never written as is: Save writes the file's own values.
	Settings Settings
	Secrets  SecretStore

	mu    sync.Mutex
	saved *Settings // settings.json as read or last written, without environment overrides; nil: not loaded
}

// Paths inside the data directory.
func (c *Config) DBPath() string       { return filepath.Join(c.DataDir, dbName) }
func (c *Config) BlobDir() string      { return filepath.Join(c.DataDir, "blobs") }
func (c *Config) CacheDir() string     { return filepath.Join(c.DataDir, "cache") }
func (c *Config) IndexDir() string     { return filepath.Join(c.DataDir, "index") }
func (c *Config) SettingsPath() string { return filepath.Join(c.DataDir, "settings.json") }

// ResolveDataDir picks the data directory: the flag, then PROOFGLASS_DATA, then the OS user data dir. The first time
// after the rename it adopts what Loupe left: its default directory is moved to the new default, and a database of
// the old name in a directory named explicitly is renamed (legacy.go).
func ResolveDataDir(flag string) (string, error) {
	explicit := flag
	if explicit == "" {
		explicit = Getenv("DATA")
	}
	if explicit != "" {
		dir, err := filepath.Abs(explicit)
		if err != nil {
			return "", err
		}
		renamed, err := adoptLegacyDB(dir)
		if err != nil {
			return "", err
		}
		if renamed {
			tellOnce(dir, Notice{Code: NoticeLibraryRenamed, Params: map[string]string{"dir": dir},
				Message: fmt.Sprintf("Loupe is now Proofglass: %s/%s was renamed %s", dir, legacyDBName, dbName)})
		}
		return dir, nil
	}
	dir, err := defaultDataDir()
	if err != nil {
		return "", err
	}
	n, err := adoptLegacyDataDir(dir)
	if err != nil {
		return "", err
	}
	tellOnce(dir, n)
	return dir, nil
}

// Load reads the configuration of the data directory named by flag (see ResolveDataDir), creating the directory and
// default settings when missing, then applies environment overrides and resolves secrets.
func Load(flag string) (*Config, error) {
	dir, err := ResolveDataDir(flag)
	if err != nil {
		return nil, fmt.Errorf("resolve data directory: %w", err)
	}
	if err := PrepareDataDir(dir); err != nil {
		return nil, err
	}
	c := &Config{DataDir: dir, Secrets: DefaultSecretStore(dir)}
	s, err := readSettings(c.SettingsPath())
	if err != nil {
		return nil, err
	}
	c.saved = &s
	c.Settings = withEnv(s)
	return c, nil
}

// UnsafeDataDirError is a data directory Proofglass refuses to use: another local user could change what is in it.
type UnsafeDataDirError struct {
	Dir, Why, Fix string
}

func (e *UnsafeDataDirError) Error() string {
	return fmt.Sprintf("data directory %s is not safe to use: %s (fix: %s)", e.Dir, e.Why, e.Fix)
}

// PrepareDataDir creates the data directory, readable and writable by its owner only whatever the umask, or checks
// that an existing one is safe: a directory that others may write to, or that belongs to another user, is refused
// with the command that fixes it (as ssh refuses such key files) rather than changed behind the user's back.
func PrepareDataDir(dir string) error {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create data directory %s: %w", dir, err)
		}
		// Ours: made private whatever the umask (MkdirAll's mode is filtered by it, never widened, but say it).
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("restrict data directory %s: %w", dir, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("data directory %s: %w", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("data directory %s is not a directory", dir)
	}
	return checkDataDirOwner(dir, st)
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
		return Settings{}, fmt.Errorf("settings file %s has version %d, newer than this Proofglass understands (%d)", path, s.Version, SettingsVersion)
	}
	s.sent = nil // only settings sent by the window are merged key by key
	// Version 0 is a file written before versioning: same shape, just stamp it.
	s.Version = SettingsVersion
	if len(s.Providers) == 0 {
		s.Providers = Defaults().Providers
	}
	return s, nil
}

// Save writes settings.json atomically: the file's own values, never environment overrides or API keys. A Config
// that was not loaded from a file (built in code) writes its Settings.
func (c *Config) Save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.Settings
	if c.saved != nil {
		s = *c.saved
	}
	return c.write(s)
}

func (c *Config) write(s Settings) error {
	for i := range s.Providers {
		s.Providers[i].APIKey = ""
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode settings: %w", err)
	}
	return atomicfile.Write(c.SettingsPath(), append(b, '\n'), 0o600)
}

// Current returns a copy of the effective settings. Code that may run while the window saves new settings (a
// server, a run, anything in the app) reads them through it; reading Settings directly is only safe where nothing
// can Update concurrently (a one-shot command, a test).
func (c *Config) Current() Settings {
	c.mu.Lock()
	defer c.mu.Unlock()
	return clone(c.Settings)
}

// Provider returns the profile with the given name; "" means the agent default.
func (c *Config) Provider(name string) (Provider, error) {
	s := c.Current()
	if name == "" {
		name = s.Agent.Provider
	}
	for _, p := range s.Providers {
		if p.Name == name {
			return c.withKey(p), nil
		}
	}
	// A kind name also selects the first profile of that kind ("--provider openai").
	for _, p := range s.Providers {
		if p.Kind == name {
			return c.withKey(p), nil
		}
	}
	var names []string
	for _, p := range s.Providers {
		names = append(names, p.Name)
	}
	return Provider{}, fmt.Errorf("no provider profile named %q (have: %s)", name, strings.Join(names, ", "))
}

// SetProvider adds or replaces a profile by name, in memory and in what Save writes. Its key, if any, is not kept:
// keys live in the secret store (SetAPIKey).
func (c *Config) SetProvider(p Provider) {
	p.APIKey = ""
	set := func(ps *[]Provider) {
		for i := range *ps {
			if (*ps)[i].Name == p.Name {
				(*ps)[i] = p
				return
			}
		}
		*ps = append(*ps, p)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	set(&c.Settings.Providers)
	if c.saved != nil {
		set(&c.saved.Providers)
	}
}

// SecretKey is the secret-store key holding a provider profile's API key.
func SecretKey(profile string) string { return "provider/" + profile + "/api_key" }

// SetAPIKey stores a profile's key in the secret store ("" deletes it); Provider joins it in at use.
func (c *Config) SetAPIKey(profile, key string) error {
	if !slices.ContainsFunc(c.Current().Providers, func(p Provider) bool { return p.Name == profile }) {
		return fmt.Errorf("no provider profile named %q: save the settings first", profile)
	}
	if c.Secrets == nil {
		return errors.New("store the API key: no secret store")
	}
	if key == "" {
		_ = c.Secrets.Delete(secretOrigin(profile))
		return c.Secrets.Delete(SecretKey(profile))
	}
	// The server the key is for: the profile's URL in the settings file (not where an environment variable points
	// it; the environment's own key goes there). The key goes nowhere else (KeyOrigin).
	if err := c.Secrets.Set(secretOrigin(profile), c.savedURL(profile)); err != nil {
		return err
	}
	return c.Secrets.Set(SecretKey(profile), key)
}

// savedURL is a profile's URL as the settings file has it, without environment overrides.
func (c *Config) savedURL(profile string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	src := c.Settings
	if c.saved != nil {
		src = *c.saved
	}
	for _, p := range src.Providers {
		if p.Name == profile {
			return p.BaseURL
		}
	}
	return ""
}

// secretOrigin is the secret store's entry for the server a profile's key was saved for.
func secretOrigin(profile string) string { return "provider/" + profile + "/api_key_origin" }

// KeyOrigin says where a profile's stored key may go: the server it was saved for ("" when the key was stored by an
// older Proofglass, which did not record it), and whether p (as the settings and the environment make it now)
// points there.
func (c *Config) KeyOrigin(p Provider) (origin string, ok bool) {
	if c.Secrets == nil {
		return "", false
	}
	origin, err := c.Secrets.Get(secretOrigin(p.Name))
	if err != nil || origin == "" {
		return "", !envRepoints(p) // an older key: where its profile points, unless the environment moved it
	}
	return origin, SameEndpoint(origin, p.BaseURL)
}

// EnvProfile is whether a profile is the one the key-carrying providers' environment variables (OPENAI_BASE_URL,
// OPENAI_API_KEY, DASHSCOPE_*) are for: the built-in profile named after its kind. Another profile of the kind (a
// reranker, a second server) keeps its own URL and key, so a key is never sent where the environment points
// another profile (issue 41: OPENAI_BASE_URL re-pointed the reranker, and OPENAI_API_KEY went to it). OLLAMA_HOST
// re-points every Ollama profile, as Ollama's own tools read it.
func EnvProfile(p Provider) bool { return p.Name == p.Kind }

// envRepoints reports whether the environment re-points p's URL (see withEnv).
func envRepoints(p Provider) bool {
	if p.Kind == KindOllama {
		return envURL(p.Kind) != ""
	}
	return EnvProfile(p) && envURL(p.Kind) != ""
}

// envURL is the environment's endpoint for a provider kind ("" when none is set).
func envURL(kind string) string {
	switch kind {
	case KindOllama:
		return os.Getenv("OLLAMA_HOST")
	case KindOpenAI:
		return os.Getenv("OPENAI_BASE_URL")
	case KindDashScope:
		return os.Getenv("DASHSCOPE_BASE_URL")
	}
	return ""
}

// withEnv returns s with the environment's overrides of endpoints, the agent's provider and model applied: the
// conventions of each provider's own tools. They are applied when settings are read and never written.
func withEnv(s Settings) Settings {
	s = clone(s)
	for i := range s.Providers {
		p := &s.Providers[i]
		if !envRepoints(*p) {
			continue
		}
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
	if v := Getenv("PROVIDER"); v != "" {
		s.Agent.Provider = v
	}
	if v := Getenv("MODEL"); v != "" {
		for i := range s.Providers {
			if s.Providers[i].Name == s.Agent.Provider {
				s.Providers[i].ChatModel = v
			}
		}
	}
	return s
}

// withKey joins a profile's API key in: the environment wins over the secret store, so CI and scripts need no
// keyring.
func (c *Config) withKey(p Provider) Provider {
	p.APIKey = ""
	switch {
	case !EnvProfile(p):
	case p.Kind == KindOpenAI:
		p.APIKey = os.Getenv("OPENAI_API_KEY")
	case p.Kind == KindDashScope:
		p.APIKey = os.Getenv("DASHSCOPE_API_KEY")
	}
	// A stored key goes only to the server it was saved for: not where the settings or the environment now point
	// the profile.
	if _, ok := c.KeyOrigin(p); p.APIKey == "" && c.Secrets != nil && p.Kind != KindBuiltin && ok {
		if v, err := c.Secrets.Get(SecretKey(p.Name)); err == nil {
			p.APIKey = v
		}
	}
	return p
}

// clone copies s deeply enough that changing the copy's slices leaves s alone.
func clone(s Settings) Settings {
	s.Providers = slices.Clone(s.Providers)
	s.Ingest.OCRLanguages = slices.Clone(s.Ingest.OCRLanguages)
	return s
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

// RerankProvider returns the reranker's settings and the profile that serves it, with its API key (see
// RerankProfile).
func (c *Config) RerankProvider() (Rerank, Provider, error) {
	r := c.Current().Rerank
	if !r.Enabled() {
		return r, Provider{}, nil
	}
	p, err := c.RerankProfile(r)
	return r, p, err
}

// RerankProfile returns the saved profile that serves reranker r, with its API key: the profile r.Provider names,
// else the first profile of the reranker's provider kind (a chat reranker: the agent's profile).
func (c *Config) RerankProfile(r Rerank) (Provider, error) {
	name := r.Provider
	if name == "" {
		name = r.ProviderKind() // a kind name selects the first profile of that kind; "" the agent's profile
	}
	p, err := c.Provider(name)
	if err != nil {
		return p, fmt.Errorf("reranker: %w", err)
	}
	if k := r.ProviderKind(); k != "" && p.Kind != k {
		return p, fmt.Errorf("reranker: profile %s is a %s profile; a %s reranker needs a %s profile", p.Name, p.Kind, r.Kind, k)
	}
	return p, nil
}
