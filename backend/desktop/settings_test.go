package desktop

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"proofglass/backend/config"
	"proofglass/backend/model/modeltest"
)

// fromWindow decodes settings as the window sends them: JSON, so only the keys it sent are merged.
func fromWindow(t *testing.T, s config.Settings, edit func(map[string]any)) config.Settings {
	t.Helper()
	b, _ := json.Marshal(s)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, _ = json.Marshal(m)
	var out config.Settings
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Settings saved by the window come back, and survive a restart; an API key is stored but never comes back.
func TestSettingsRoundTripWithoutKeys(t *testing.T) {
	dir := t.TempDir()
	d, _ := startIn(t, dir)
	set := d.Settings
	cur, err := set.Settings()
	if err != nil {
		t.Fatal(err)
	}
	want := "dark"
	if cur.Theme == want {
		want = "light"
	}
	if err := set.SaveSettings(fromWindow(t, cur, func(m map[string]any) { m["theme"] = want })); err != nil {
		t.Fatal(err)
	}
	if got, _ := set.Settings(); got.Theme != want {
		t.Errorf("theme = %q after saving %q", got.Theme, want)
	}
	again, err := config.Load(dir)
	if err != nil || again.Current().Theme != want {
		t.Errorf("after a restart theme = %q, %v; want %q", again.Current().Theme, err, want)
	}

	const secret = "sk-very-secret-123"
	if err := set.SetAPIKey("ollama", secret); err != nil {
		t.Fatal(err)
	}
	if k, err := d.core.lib.Config.Secrets.Get(config.SecretKey("ollama")); err != nil || k != secret {
		t.Errorf("stored key = %q, %v", k, err)
	}
	got, _ := set.Settings()
	if b, _ := json.Marshal(got); strings.Contains(string(b), secret) {
		t.Errorf("Settings carries the API key: %s", b)
	}
	if err := set.SetAPIKey("ollama", ""); err != nil {
		t.Fatal(err)
	}
	if k, _ := d.core.lib.Config.Secrets.Get(config.SecretKey("ollama")); k != "" {
		t.Errorf("the key was not removed: %q", k)
	}

	for name, err := range map[string]error{
		"key with newline":      set.SetAPIKey("ollama", "sk-1\nX-Other: y"),
		"profile with newline":  set.SetAPIKey("a\nb", "sk"),
		"huge key":              set.SetAPIKey("ollama", strings.Repeat("k", maxKeyBytes+1)),
		"invalid theme setting": set.SaveSettings(fromWindow(t, cur, func(m map[string]any) { m["theme"] = "plaid" })),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// A stored key goes only to the URL it was saved for: a page script that edits the URL cannot send it elsewhere.
func TestSettingsTestProviderKeepsStoredKeyHome(t *testing.T) {
	d, _ := start(t)
	set := d.Settings
	home, elsewhere := modeltest.NewKeyServer(t, "vis-1"), modeltest.NewKeyServer(t, "vis-1")
	p := config.Provider{Name: "vllm", Kind: config.KindOpenAI, BaseURL: home.URL + "/v1", ChatModel: "vis-1"}
	cur, _ := set.Settings()
	if err := set.SaveSettings(fromWindow(t, cur, func(m map[string]any) {
		m["providers"] = append(m["providers"].([]any), map[string]any{"name": p.Name, "kind": p.Kind, "base_url": p.BaseURL, "chat_model": p.ChatModel})
	})); err != nil {
		t.Fatal(err)
	}
	const secret = "sk-stored-456"
	if err := set.SetAPIKey("vllm", secret); err != nil {
		t.Fatal(err)
	}

	r := set.TestProvider(p, "")
	if r.Error != "" || !home.SawKey(secret) {
		t.Errorf("TestProvider at the saved URL = %+v; key sent: %v", r, home.SawKey(secret))
	}
	moved := p
	moved.BaseURL = elsewhere.URL + "/v1"
	set.TestProvider(moved, "")
	if elsewhere.SawKey(secret) {
		t.Error("the stored key went to a URL it was not saved for")
	}
	set.TestProvider(moved, "sk-typed")
	if !elsewhere.SawKey("sk-typed") {
		t.Error("a typed key was not used")
	}
	models, err := set.ListModels(p, "")
	if err != nil || len(models) != 1 || models[0].Name != "vis-1" {
		t.Errorf("ListModels = %+v, %v", models, err)
	}

	if r := set.TestProvider(config.Provider{Name: "x", Kind: config.KindOpenAI, BaseURL: "file:///etc/passwd"}, ""); r.Error == "" {
		t.Error("TestProvider accepted a file: URL")
	}
	if r := set.TestProvider(p, "sk\nInjected: 1"); r.Error == "" {
		t.Error("TestProvider accepted a key with a newline")
	}
	if _, err := set.ListModels(config.Provider{Name: "x", Kind: config.KindOpenAI, BaseURL: "http://u:p@h/v1"}, ""); err == nil {
		t.Error("ListModels accepted credentials in the URL")
	}
	if _, err := set.ProbeModel(p, "m\x00", ""); err == nil {
		t.Error("ProbeModel accepted a NUL in the model name")
	}
	noModel := p
	noModel.ChatModel = ""
	if _, err := set.ProbeModel(noModel, "", ""); err == nil || !strings.Contains(err.Error(), "chat model") {
		t.Errorf("ProbeModel without a model: %v", err)
	}
}

// A pull streams the server's progress as models:pull events and ends with success; only Ollama profiles pull.
func TestSettingsPullModel(t *testing.T) {
	d, ui := start(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/pull" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Write([]byte(`{"status":"pulling manifest"}` + "\n" +
			`{"status":"downloading","digest":"sha256:abc","total":100,"completed":40}` + "\n" +
			`{"status":"success"}` + "\n"))
	}))
	defer srv.Close()
	p := config.Provider{Name: "local", Kind: config.KindOllama, BaseURL: srv.URL}
	if err := d.Settings.PullModel(p, "tiny:1b"); err != nil {
		t.Fatal(err)
	}
	evs := ui.named(eventPull)
	if len(evs) < 3 {
		t.Fatalf("%d pull events: %v", len(evs), evs)
	}
	var sawBytes bool
	for _, e := range evs {
		pe := e.(PullEvent)
		if pe.Provider != "local" || pe.Model != "tiny:1b" {
			t.Errorf("event %+v names another pull", pe)
		}
		sawBytes = sawBytes || (pe.Completed == 40 && pe.Total == 100)
	}
	if last := evs[len(evs)-1].(PullEvent); !last.Done || last.Status != "success" || last.Error != "" {
		t.Errorf("last event = %+v, want done with success", last)
	}
	if !sawBytes {
		t.Error("no event carried the download's bytes")
	}

	before := len(ui.named(eventPull))
	if err := d.Settings.PullModel(config.Provider{Name: "v", Kind: config.KindOpenAI, BaseURL: srv.URL + "/v1"}, "m"); err == nil {
		t.Error("an OpenAI profile pulled")
	}
	if err := d.Settings.PullModel(p, "bad\nname"); err == nil {
		t.Error("a model name with a newline was pulled")
	}
	if after := len(ui.named(eventPull)); after != before {
		t.Errorf("refused pulls emitted %d events", after-before)
	}
}
