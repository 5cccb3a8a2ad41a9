package config

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"unicode"
)

// Update saves settings edited in the window. The window read Settings (the file with environment overrides
// applied) and sends it back whole; only the values it changed reach the file: a value sent back as it was shown
// keeps the file's own value, so an environment override is never persisted and nothing the window did not touch
// changes. API keys are not part of settings and stay in the secret store. incoming is checked as untrusted input.
func (c *Config) Update(incoming Settings) error {
	if err := Validate(incoming); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	saved := c.Settings
	if c.saved != nil {
		saved = *c.saved
	}
	merged, err := mergeSettings(saved, c.Settings, incoming)
	if err != nil {
		return err
	}
	if err := Validate(merged); err != nil {
		return err
	}
	if err := c.write(merged); err != nil {
		return err
	}
	c.saved = &merged
	c.Settings = withEnv(merged)
	return nil
}

// UnmarshalJSON decodes settings over the values already in s and remembers the object decoded (see sent).
func (s *Settings) UnmarshalJSON(b []byte) error {
	type plain Settings // without this method
	if err := json.Unmarshal(b, (*plain)(s)); err != nil {
		return err
	}
	var m map[string]any
	if json.Unmarshal(b, &m) == nil {
		s.sent = m
	}
	return nil
}

// mergeSettings applies to saved the changes incoming makes to shown, value by value (see merge).
func mergeSettings(saved, shown, incoming Settings) (Settings, error) {
	var sv, sh, in any
	for _, x := range []struct {
		s   Settings
		dst *any
	}{{saved, &sv}, {shown, &sh}, {incoming, &in}} {
		b, err := json.Marshal(x.s)
		if err != nil {
			return Settings{}, fmt.Errorf("encode settings: %w", err)
		}
		if err := json.Unmarshal(b, x.dst); err != nil {
			return Settings{}, fmt.Errorf("decode settings: %w", err)
		}
	}
	if incoming.sent != nil {
		in = prune(in, incoming.sent) // only the keys the window sent; those it left out keep their saved values
	}
	b, err := json.Marshal(merge(sv, sh, in))
	if err != nil {
		return Settings{}, fmt.Errorf("encode settings: %w", err)
	}
	out := Defaults()
	out.Providers = nil
	if err := json.Unmarshal(b, &out); err != nil {
		return Settings{}, fmt.Errorf("merge settings: %w", err)
	}
	out.Version = SettingsVersion
	out.sent = nil
	return out, nil
}

// prune drops from v the object keys that sent does not have, recursively (lists item by item).
func prune(v, sent any) any {
	switch x := v.(type) {
	case map[string]any:
		sm, ok := sent.(map[string]any)
		if !ok {
			return v
		}
		out := map[string]any{}
		for k, e := range x {
			if se, ok := sm[k]; ok {
				out[k] = prune(e, se)
			}
		}
		return out
	case []any:
		sl, ok := sent.([]any)
		if !ok || len(sl) != len(x) {
			return v
		}
		out := make([]any, len(x))
		for i := range x {
			out[i] = prune(x[i], sl[i])
		}
		return out
	}
	return v
}

// merge is a three-way merge of JSON values: where in equals shown (the window did not touch it) the saved value
// stays; objects merge key by key (keys only in saved stay); lists of named objects (provider profiles) merge by
// name; anything else the window changed is taken from in.
func merge(saved, shown, in any) any {
	if reflect.DeepEqual(in, shown) && saved != nil {
		return saved
	}
	switch inV := in.(type) {
	case map[string]any:
		sv, _ := saved.(map[string]any)
		sh, _ := shown.(map[string]any)
		out := map[string]any{}
		for k, v := range sv {
			out[k] = v
		}
		for k, v := range inV {
			out[k] = merge(sv[k], sh[k], v)
		}
		return out
	case []any:
		sv, okS := byName(saved)
		sh, okH := byName(shown)
		if _, okI := byName(in); !okI || !okS || !okH {
			return in
		}
		out := make([]any, len(inV))
		for i, v := range inV {
			name := v.(map[string]any)["name"].(string)
			out[i] = merge(sv[name], sh[name], v)
		}
		return out
	}
	return in
}

// byName indexes a JSON list whose items are objects with a unique string "name".
func byName(v any) (map[string]any, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, v == nil
	}
	m := make(map[string]any, len(l))
	for _, x := range l {
		o, ok := x.(map[string]any)
		if !ok {
			return nil, false
		}
		n, ok := o["name"].(string)
		if _, dup := m[n]; !ok || dup {
			return nil, false
		}
		m[n] = o
	}
	return m, true
}

var (
	profileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	ocrLanguage = regexp.MustCompile(`^[A-Za-z0-9_]{1,32}$`)
)

// Limits of settings values: the window is a web page, and what it sends is checked like any outside input.
const (
	maxProviders = 32
	maxText      = 256
	maxURL       = 2048
)

// Validate checks settings as untrusted input: known kinds, http(s) URLs without credentials, unique profile names,
// bounded numbers and strings, OCR language codes that cannot be read as tesseract options.
func Validate(s Settings) error {
	bad := func(field, format string, a ...any) error {
		return fmt.Errorf("settings: %s: %s", field, fmt.Sprintf(format, a...))
	}
	if len(s.Providers) > maxProviders {
		return bad("providers", "%d profiles, at most %d", len(s.Providers), maxProviders)
	}
	seen := map[string]bool{}
	for i, p := range s.Providers {
		f := fmt.Sprintf("providers[%d]", i)
		if !profileName.MatchString(p.Name) {
			return bad(f+".name", "%q is not a profile name (letters, digits, . _ -; at most 64)", clip(p.Name))
		}
		if seen[p.Name] {
			return bad(f+".name", "%q is used twice", p.Name)
		}
		seen[p.Name] = true
		switch p.Kind {
		case KindOllama, KindOpenAI, KindDashScope:
			if err := checkURL(p.BaseURL); err != nil {
				return bad(f+".base_url", "%v", err)
			}
		case KindBuiltin:
		default:
			return bad(f+".kind", "%q is not one of ollama, openai, dashscope, builtin", clip(p.Kind))
		}
		for n, v := range map[string]string{"chat_model": p.ChatModel, "embed_model": p.EmbedModel} {
			if err := checkText(v); err != nil {
				return bad(f+"."+n, "%v", err)
			}
		}
	}
	switch s.Agent.Mode {
	case "", "vrag", "vimrag", "vanilla", "react":
	default:
		return bad("agent.mode", "%q is not one of vrag, vimrag, vanilla, react", clip(s.Agent.Mode))
	}
	if err := checkText(s.Agent.Provider); err != nil {
		return bad("agent.provider", "%v", err)
	}
	if s.Agent.TopK < 0 || s.Agent.TopK > 100 {
		return bad("agent.top_k", "%d is outside 0–100", s.Agent.TopK)
	}
	if len(s.Ingest.OCRLanguages) > 16 {
		return bad("ingest.ocr_languages", "%d languages, at most 16", len(s.Ingest.OCRLanguages))
	}
	for _, l := range s.Ingest.OCRLanguages {
		if !ocrLanguage.MatchString(l) {
			return bad("ingest.ocr_languages", "%q is not a tesseract language code", clip(l))
		}
	}
	if s.Ingest.MaxPages < 0 {
		return bad("ingest.max_pages", "%d is negative (0 means the default, 20000)", s.Ingest.MaxPages)
	}
	if s.Ingest.MaxBlankPages < 0 {
		return bad("ingest.max_blank_pages", "%d is negative (0 means the default, 500)", s.Ingest.MaxBlankPages)
	}
	if s.Ingest.ClipSeconds < 0 || s.Ingest.ClipSeconds > 3600 {
		return bad("ingest.clip_seconds", "%d is outside 0–3600", s.Ingest.ClipSeconds)
	}
	if s.Ingest.Workers < 0 || s.Ingest.Workers > 256 {
		return bad("ingest.workers", "%d is outside 0–256", s.Ingest.Workers)
	}
	for n, v := range map[string]string{"provider": s.Ingest.Transcription.Provider, "model": s.Ingest.Transcription.Model} {
		if err := checkText(v); err != nil {
			return bad("ingest.transcription."+n, "%v", err)
		}
	}
	switch s.Agent.FollowUps {
	case "", "rewrite", "off":
	default:
		return bad("agent.follow_ups", "%q is not one of rewrite, off", clip(s.Agent.FollowUps))
	}
	if s.Cache.PagesMB < 0 || s.Cache.PagesMB > 1<<20 {
		return bad("cache.pages_mb", "%d is outside 0–1048576", s.Cache.PagesMB)
	}
	if s.Cache.PagesLeaseMinutes < 0 || s.Cache.PagesLeaseMinutes > 7*24*60 {
		return bad("cache.pages_lease_minutes", "%d is outside 0–10080 (a week)", s.Cache.PagesLeaseMinutes)
	}
	if err := validateRerank(s); err != nil {
		return err
	}
	switch s.Theme {
	case "", "system", "light", "dark":
	default:
		return bad("theme", "%q is not one of system, light, dark", clip(s.Theme))
	}
	return nil
}

func checkURL(raw string) error {
	if len(raw) > maxURL {
		return fmt.Errorf("longer than %d bytes", maxURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %w", clip(raw), err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http:// or https:// URL", clip(raw))
	}
	if u.User != nil {
		return fmt.Errorf("a URL with credentials in it is not kept in settings; store the key with the profile instead")
	}
	return nil
}

func checkText(v string) error {
	if len(v) > maxText {
		return fmt.Errorf("longer than %d bytes", maxText)
	}
	if strings.IndexFunc(v, unicode.IsControl) >= 0 {
		return fmt.Errorf("%q holds control characters", clip(v))
	}
	return nil
}

// clip shortens a rejected value for the error message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// SameEndpoint reports whether two base URLs name the same server and path (scheme and host case, a trailing slash
// and a default port do not count).
func SameEndpoint(a, b string) bool {
	ua, err1 := url.Parse(strings.TrimSpace(a))
	ub, err2 := url.Parse(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || ua.Host == "" || ub.Host == "" {
		return false
	}
	host := func(u *url.URL) string {
		h, p := strings.ToLower(u.Hostname()), u.Port()
		if p == "" || (u.Scheme == "http" && p == "80") || (u.Scheme == "https" && p == "443") {
			return h
		}
		return h + ":" + p
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && host(ua) == host(ub) &&
		strings.TrimRight(ua.EscapedPath(), "/") == strings.TrimRight(ub.EscapedPath(), "/") && ua.RawQuery == ub.RawQuery
}

// ForTest returns profile p, as edited in the window and not yet saved, with the API key it may use: the key the
// user entered for it, else the stored key of the saved profile of that name only when p still points at that
// profile's URL. A stored key is bound to its URL: an edited URL, or a page script naming another host, gets none.
func (c *Config) ForTest(p Provider, enteredKey string) Provider {
	p.APIKey = ""
	if enteredKey != "" {
		p.APIKey = enteredKey
		return p
	}
	for _, s := range c.Settings.Providers {
		if s.Name == p.Name {
			if SameEndpoint(s.BaseURL, p.BaseURL) {
				p.APIKey = c.withKey(s).APIKey
			}
			break
		}
	}
	return p
}

// validateRerank checks the reranker: a known kind, a profile that exists and can serve it, bounded candidates.
func validateRerank(s Settings) error {
	r := s.Rerank
	bad := func(field, format string, a ...any) error {
		return fmt.Errorf("settings: rerank.%s: %s", field, fmt.Sprintf(format, a...))
	}
	switch r.Kind {
	case RerankOff, RerankEndpoint, RerankDashScope, RerankChat:
	default:
		return bad("kind", "%q is not one of endpoint, dashscope, chat (or empty: off)", clip(r.Kind))
	}
	for n, v := range map[string]string{"provider": r.Provider, "model": r.Model} {
		if err := checkText(v); err != nil {
			return bad(n, "%v", err)
		}
	}
	if r.Candidates < 0 || r.Candidates > MaxRerankCandidates {
		return bad("candidates", "%d is outside 0–%d", r.Candidates, MaxRerankCandidates)
	}
	if !(r.TimeoutSeconds >= 0 && r.TimeoutSeconds <= MaxRerankTimeoutSeconds) { // NaN fails both
		return bad("timeout_s", "%g is outside 0–%d seconds", r.TimeoutSeconds, MaxRerankTimeoutSeconds)
	}
	if r.Kind == RerankOff || r.Provider == "" {
		return nil
	}
	for _, p := range s.Providers {
		if p.Name != r.Provider {
			continue
		}
		if k := r.ProviderKind(); k != "" && p.Kind != k {
			return bad("provider", "profile %q is a %s profile; a %s reranker needs a %s profile", p.Name, p.Kind, r.Kind, k)
		}
		if r.Kind == RerankChat && p.Kind == KindBuiltin {
			return bad("provider", "profile %q cannot chat", p.Name)
		}
		return nil
	}
	return bad("provider", "no provider profile named %q", clip(r.Provider))
}
