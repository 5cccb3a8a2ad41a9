package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"proofglass/backend/fixture"
)

// TestControlCharactersInNames adds a real PDF whose file name (and folder) holds terminal controls: every
// human-readable printer shows them escaped, and --json keeps the name exactly.
func TestControlCharactersInNames(t *testing.T) {
	evil := "\x1b[31mred\x1b]0;title\x07\rforged\u202e"
	raw, err := os.ReadFile(fixture.Path(t, "pdf/real/blood_loss_report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "in "+evil)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := evil + ".pdf"
	if err := os.WriteFile(filepath.Join(dir, name), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	outputs := map[string]string{}
	for _, args := range [][]string{
		{"add", "--no-ocr", "--collection", "c", filepath.Join(dir, name)},
		{"documents", "list"},
		{"documents", "show", "1"},
		{"search", "blood"},
		{"watch", "add", dir, "--collection", "c"},
		{"watch", "list"},
		// A facet's value comes from the file (its metadata, its pages), so it is escaped as a name is.
		{"documents", "facets", "1", "--set", "title=" + evil},
	} {
		out, err := run(t, data, args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		outputs[strings.Join(args[:min(3, len(args))], " ")] = out
	}
	for cmd, out := range outputs {
		for _, bad := range []string{"\x1b", "\x07", "\r", "\u202e"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s printed %q raw:\n%s", cmd, bad, out)
			}
		}
		want := `\x1b[31mred\x1b]0;title\x07\rforged\u202e`
		if cmd == "documents facets 1" {
			want = `\x1b[31mred\x1b]0;title\x07 forged\u202e` // a facet's value has its line breaks folded to spaces
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s does not show the name escaped:\n%s", cmd, out)
		}
	}
	out, err := run(t, data, "documents", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.Name != name {
		t.Fatalf("--json name %q (%v), want the file's name exactly", d.Name, err)
	}
}
