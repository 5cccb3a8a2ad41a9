// Package sample ships a small public-domain library for a first launch: a text PDF, a scanned page, an image of an
// 1871 printed page and a 1906 film clip (sources and licences in SOURCES.md).
package sample

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"proofglass/backend/atomicfile"
)

// Collection is the name the sample library is added under.
const Collection = "Samples"

//go:embed files
var files embed.FS

// Names lists the sample files.
func Names() []string {
	entries, _ := fs.ReadDir(files, "files")
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// Extract writes the sample files into dir (created if needed) and returns their paths, ready to be added.
func Extract(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("sample library: %w", err)
	}
	var paths []string
	for _, name := range Names() {
		b, err := files.ReadFile("files/" + name)
		if err != nil {
			return nil, fmt.Errorf("sample library: %w", err)
		}
		p := filepath.Join(dir, name)
		if err := atomicfile.Write(p, b, 0o600); err != nil {
			return nil, fmt.Errorf("sample library: %w", err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}
