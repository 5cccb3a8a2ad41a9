package provider

import (
	"context"
	"path/filepath"
	"testing"

	"proofglass/backend/config"
	"proofglass/backend/model/modeltest"
)

// TestStoredKeyStaysWithItsURL is what the settings screen's "Test connection" and model list do (config.ForTest
// then Test): the stored key reaches the profile's saved server and never another one, unless the user typed a key.
func TestStoredKeyStaysWithItsURL(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	saved, foreign := modeltest.NewKeyServer(t, "m"), modeltest.NewKeyServer(t, "m")
	dir := t.TempDir()
	cfg := &config.Config{DataDir: dir, Secrets: &config.FileStore{Path: filepath.Join(dir, "secrets.json")}}
	cfg.SetProvider(config.Provider{Name: "vllm", Kind: config.KindOpenAI, BaseURL: saved.URL + "/v1"})
	if err := cfg.SetAPIKey("vllm", "sk-stored-key"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	edited := config.Provider{Name: "vllm", Kind: config.KindOpenAI, BaseURL: foreign.URL + "/v1"}

	if r := Test(ctx, cfg.ForTest(edited, "")); !r.Reachable {
		t.Fatalf("foreign server: %+v", r)
	}
	for _, h := range foreign.Authorizations() {
		if h != "" {
			t.Errorf("the foreign server got Authorization %q", h)
		}
	}
	if len(foreign.Authorizations()) == 0 {
		t.Fatal("the foreign server was never asked")
	}

	back := edited
	back.BaseURL = saved.URL + "/v1/"
	if r := Test(ctx, cfg.ForTest(back, "")); !r.Reachable || r.Error != "" {
		t.Fatalf("saved server: %+v", r)
	}
	if h := saved.Authorizations(); len(h) == 0 || h[len(h)-1] != "Bearer sk-stored-key" {
		t.Errorf("the saved server got %q, want the stored key", h)
	}

	n := len(foreign.Authorizations())
	Test(ctx, cfg.ForTest(edited, "sk-typed"))
	if h := foreign.Authorizations(); len(h) == n || h[len(h)-1] != "Bearer sk-typed" {
		t.Errorf("a typed key was not sent to the URL it was typed for: %q", h[n:])
	}

	// TestAll (doctor, `proofglass models`) joins the key in at use, for the saved URL.
	rs := TestAll(ctx, cfg, 0)
	for _, r := range rs {
		if r.Name == "vllm" && (!r.Reachable || r.Error != "") {
			t.Errorf("TestAll vllm: %+v", r)
		}
	}
	if h := saved.Authorizations(); h[len(h)-1] != "Bearer sk-stored-key" {
		t.Errorf("TestAll sent %q to the saved server", h[len(h)-1])
	}
}
