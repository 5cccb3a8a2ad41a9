// Package filegate lets the window write a file only where the user chose, in a save dialog, to save it.
package filegate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// MaxBytes bounds one export; a conversation with inline images is a few megabytes.
const MaxBytes = 64 << 20

// ErrNotChosen is returned for a path the save dialog did not return, or returned and has already been written.
var ErrNotChosen = errors.New("not the path chosen in the save dialog")

// Gate remembers the path the last save dialog returned and lets exactly one write go to it. The path comes from
// the dialog on the Go side, so a script in the webview cannot name one of its own (~/.bashrc, an autostart file).
type Gate struct {
	mu     sync.Mutex
	chosen string
	// Exts are the extensions a path may have (lower case, with the dot); empty allows any.
	Exts []string
}

// Choose records the path a save dialog returned ("" when cancelled, which forgets any earlier choice).
func (g *Gate) Choose(path string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.chosen = ""
	if path != "" {
		g.chosen = filepath.Clean(path)
	}
}

// Write writes content to path if it is the chosen path, once; any other path, a second write, or an extension not
// in Exts is refused and leaves the file system alone.
func (g *Gate) Write(path string, content []byte) error {
	if len(content) > MaxBytes {
		return fmt.Errorf("export to %s: %d bytes, more than the %d an export may have", path, len(content), MaxBytes)
	}
	if err := g.Claim(path); err != nil {
		return err
	}
	if err := os.WriteFile(path, content, 0o644); err != nil {
		return fmt.Errorf("export to %s: %w", path, err)
	}
	return nil
}

// Claim takes the one write to path that Choose allowed, for a caller that streams a file larger than MaxBytes
// itself: it fails as Write does for any other path, a second claim, or an extension not in Exts.
func (g *Gate) Claim(path string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("export to %q: %w", path, ErrNotChosen)
	}
	if len(g.Exts) > 0 {
		ext := strings.ToLower(filepath.Ext(path))
		ok := false
		for _, e := range g.Exts {
			ok = ok || e == ext
		}
		if !ok {
			return fmt.Errorf("export to %s: only %s files are written", path, strings.Join(g.Exts, ", "))
		}
	}
	g.mu.Lock()
	if g.chosen == "" || filepath.Clean(path) != g.chosen {
		g.mu.Unlock()
		return fmt.Errorf("export to %s: %w", path, ErrNotChosen)
	}
	g.chosen = "" // one-shot
	g.mu.Unlock()
	return nil
}
