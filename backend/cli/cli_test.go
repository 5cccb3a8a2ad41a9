package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"proofglass/backend/config"
	"proofglass/backend/eval"
	"proofglass/backend/fixture"
	"proofglass/backend/kb"
)

// run executes the CLI with a fresh data dir and returns stdout.
func run(t *testing.T, data string, args ...string) (string, error) {
	t.Helper()
	root := NewRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append([]string{"--data", data}, args...))
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

func TestIsCommand(t *testing.T) {
	cases := map[string]struct {
		args []string
		want bool
	}{
		"no args opens the window":    {nil, false},
		"subcommand":                  {[]string{"version"}, true},
		"flag before subcommand":      {[]string{"--data", "/tmp/x", "doctor"}, true},
		"data flag only opens window": {[]string{"--data", "/tmp/x"}, false},
		"wails dev flags open window": {[]string{"-assetdir", "frontend/dist"}, false},
		"help":                        {[]string{"--help"}, true},
		"nested subcommand":           {[]string{"collections", "list"}, true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := IsCommand(c.args); got != c.want {
				t.Errorf("IsCommand(%q) = %v, want %v", c.args, got, c.want)
			}
		})
	}
}

func TestCollectionsLifecycle(t *testing.T) {
	data := t.TempDir()
	if _, err := run(t, data, "collections", "create", "papers"); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, data, "collections", "create", "papers"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("duplicate create: %v", err)
	}
	out, err := run(t, data, "collections", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Name         string `json:"name"`
		TextEmbedder string `json:"text_embedder"`
		TextDim      int    `json:"text_dim"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &c); err != nil {
		t.Fatalf("list --json is not one JSON object per line: %q (%v)", out, err)
	}
	if c.Name != "papers" || c.TextDim != 100 {
		t.Errorf("collection %+v", c)
	}
	if _, err := run(t, data, "collections", "delete", "papers"); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, data, "collections", "delete", "papers"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("delete missing: %v", err)
	}
}

func TestVersionJSON(t *testing.T) {
	out, err := run(t, t.TempDir(), "version", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil || v["version"] == "" || v["go_version"] == nil {
		t.Fatalf("version --json: %q %v", out, err)
	}
}

func TestDoctorStore(t *testing.T) {
	data := t.TempDir()
	out, err := run(t, data, "doctor", "--offline", "--json")
	// Tools may be missing on a dev machine; the store checks must pass on a fresh data dir either way.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		var c struct {
			Name string `json:"name"`
			OK   bool   `json:"ok"`
			Fix  string `json:"fix"`
		}
		if json.Unmarshal([]byte(l), &c) != nil {
			t.Fatalf("not JSON: %q", l)
		}
		seen[c.Name] = true
		if strings.HasPrefix(c.Name, "database") || strings.HasPrefix(c.Name, "blobs") {
			if !c.OK {
				t.Errorf("fresh store check %s failed: %s", c.Name, l)
			}
		} else if !c.OK && c.Fix == "" {
			t.Errorf("failed check %s gives no fix", c.Name)
		}
	}
	for _, want := range []string{"database", "blobs missing", "blobs orphaned", "ffmpeg", "ffprobe", "tesseract"} {
		if !seen[want] {
			t.Errorf("doctor did not report %q", want)
		}
	}
	_ = err
}

func TestDoctorEndpoints(t *testing.T) {
	// The default provider (ollama) pointed at a closed port must fail doctor; other profiles only warn.
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	out, err := run(t, t.TempDir(), "doctor", "--json")
	if err == nil {
		t.Fatalf("doctor passed with the default provider unreachable:\n%s", out)
	}
	var sawOllama, sawOpenAI bool
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var c struct {
			Name     string `json:"name"`
			OK       bool   `json:"ok"`
			Optional bool   `json:"optional"`
		}
		json.Unmarshal([]byte(l), &c)
		switch c.Name {
		case "model ollama":
			sawOllama = !c.OK && !c.Optional
		case "model openai":
			sawOpenAI = !c.OK && c.Optional
		}
	}
	if !sawOllama || !sawOpenAI {
		t.Errorf("want ollama failing (required) and openai failing (optional):\n%s", out)
	}
}

func TestE2EDoctorRealOllama(t *testing.T) {
	fixture.OllamaHost(t)
	out, _ := run(t, t.TempDir(), "doctor", "--json")
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var c struct {
			Name   string `json:"name"`
			OK     bool   `json:"ok"`
			Detail string `json:"detail"`
		}
		json.Unmarshal([]byte(l), &c)
		if c.Name == "model ollama" {
			if !c.OK || !strings.Contains(c.Detail, "model(s)") {
				t.Errorf("real ollama check: %s", l)
			}
			return
		}
	}
	t.Errorf("no ollama check in:\n%s", out)
}

// openData opens the knowledge base of a data directory the way the CLI finds it (its settings' paths); the caller
// closes it.
func openData(t testing.TB, data string) *kb.KB {
	t.Helper()
	cfg, err := config.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	k, err := kb.Open(context.Background(), cfg.DBPath(), cfg.BlobDir())
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// writeQuestions writes an evaluation dataset, one question a line, into the data directory and returns its path.
func writeQuestions(t testing.TB, data string, qs []eval.Question) string {
	t.Helper()
	var b bytes.Buffer
	for _, q := range qs {
		line, err := json.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(data, "q.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
