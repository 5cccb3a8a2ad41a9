package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseWindowArgs(t *testing.T) {
	dir := t.TempDir()
	pdf := filepath.Join(dir, "paper.pdf")
	named := filepath.Join(dir, "add") // a file named like a subcommand, given as a path
	for _, p := range []string{pdf, named, filepath.Join(dir, "-dash.png")} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	cases := map[string]struct {
		args    []string
		data    string
		paths   []string
		wantErr string
	}{
		"nothing":                {nil, "", nil, ""},
		"data only":              {[]string{"--data", "/tmp/x"}, "/tmp/x", nil, ""},
		"data equals":            {[]string{"--data=/tmp/y", pdf}, "/tmp/y", []string{pdf}, ""},
		"relative file":          {[]string{"paper.pdf"}, "", []string{pdf}, ""},
		"folder and file":        {[]string{dir, "./paper.pdf"}, "", []string{dir, pdf}, ""},
		"path named like a verb": {[]string{"./add"}, "", []string{named}, ""},
		"dash file after --":     {[]string{"--", "-dash.png"}, "", []string{filepath.Join(dir, "-dash.png")}, ""},
		"wails dev flag":         {[]string{"-assetdir", "frontend/dist"}, "", nil, ""},
		"mistyped subcommand":    {[]string{"serch", "cats"}, "", nil, `"serch" is neither a command nor a file`},
		"missing file":           {[]string{pdf, "gone.pdf"}, "", nil, `"gone.pdf"`},
		"unknown flag":           {[]string{"--fullscreen"}, "", nil, "unknown flag --fullscreen"},
		"data without value":     {[]string{"--data"}, "", nil, "needs a value"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseWindowArgs(c.args)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("ParseWindowArgs(%q): err %v, want %q", c.args, err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseWindowArgs(%q): %v", c.args, err)
			}
			if got.DataDir != c.data || strings.Join(got.Paths, "|") != strings.Join(c.paths, "|") {
				t.Fatalf("ParseWindowArgs(%q) = %+v, want data %q paths %q", c.args, got, c.data, c.paths)
			}
		})
	}
}

// A file given to the desktop binary must open the window, not be taken for a subcommand; a subcommand still wins
// over a path of the same name only when written bare.
func TestIsCommandWithPaths(t *testing.T) {
	dir := t.TempDir()
	pdf := filepath.Join(dir, "paper.pdf")
	if err := os.WriteFile(pdf, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		args []string
		want bool
	}{
		"file":             {[]string{pdf}, false},
		"data and file":    {[]string{"--data", dir, pdf}, false},
		"subcommand":       {[]string{"add", pdf}, true},
		"path like a verb": {[]string{"./add"}, false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := IsCommand(c.args); got != c.want {
				t.Errorf("IsCommand(%q) = %v, want %v", c.args, got, c.want)
			}
		})
	}
}
