package ingest

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the README's list of accepted formats from Formats")

// readmeFormats is the README's list of accepted formats as Formats says it.
func readmeFormats() string {
	var b strings.Builder
	for _, f := range Formats {
		line := "- **" + f.Name + "**: `" + strings.Join(f.Extensions, "`, `") + "`"
		if len(f.Unread) > 0 {
			line += "; not read: `" + strings.Join(f.Unread, "`, `") + "`"
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// The README lists exactly the formats of the table, between its formats markers.
func TestReadmeListsFormats(t *testing.T) {
	path := filepath.Join("..", "..", "README.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	start := strings.Index(s, "<!-- formats:")
	end := strings.Index(s, "<!-- end of formats -->")
	if start < 0 || end < start {
		t.Fatal("README.md has no formats markers")
	}
	start += strings.Index(s[start:], "\n") + 1
	if got, want := s[start:end], readmeFormats(); got != want {
		if *updateReadme {
			if err := os.WriteFile(path, []byte(s[:start]+want+s[end:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("README.md's formats are stale (go test ./backend/ingest -run TestReadmeListsFormats -update-readme):\n%s", want)
	}
}
