package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestModelsCommandReportsEveryProfile(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/v1"
	l.Close()
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	host := os.Getenv("OLLAMA_HOST")
	dir := t.TempDir()
	settings := `{"version":1,"providers":[{"name":"down","kind":"openai","base_url":"` + closed + `"}` +
		`,{"name":"local","kind":"ollama","base_url":"http://127.0.0.1:1","chat_model":"tiny-vision"}]}`
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	root := NewRoot()
	root.SetOut(&out)
	root.SetArgs([]string{"models", "--data", dir, "--json"})
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("an unreachable endpoint must not fail the command: %v", err)
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 2 || lines[0]["name"] != "down" || lines[0]["reachable"] != false || lines[0]["error"] == "" {
		t.Fatalf("output:\n%s", out.String())
	}
	if host == "" {
		t.Log(`OLLAMA_HOST unset: the reachable half is skipped (export "$(../shared/tools/ollama-e2e/up.sh)")`)
		return
	}
	// OLLAMA_HOST overrides the ollama profile's URL (config's environment rule), so "local" is the real server.
	local := lines[1]
	if local["reachable"] != true || local["chat_model_found"] != true {
		t.Fatalf("local: %v", local)
	}
	caps := map[string]map[string]any{}
	for _, m := range local["model_list"].([]any) {
		mm := m.(map[string]any)
		caps[mm["name"].(string)] = mm
	}
	if caps["tiny-vision:latest"]["vision"] != true || caps["glove-embed:latest"]["embedding"] != true {
		t.Errorf("capabilities: %v", caps)
	}

	out.Reset()
	root = NewRoot()
	root.SetOut(&out)
	root.SetArgs([]string{"models", "--data", dir, "--provider", "local"})
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, "local (ollama") || !strings.Contains(text, "tiny-vision:latest") || !strings.Contains(text, "chat,vision") || strings.Contains(text, "down") {
		t.Errorf("table output:\n%s", text)
	}
}
