package desktop

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"proofglass/backend/config"
)

// Every bound method is reachable from any script running in the webview, so its arguments are checked here as
// untrusted input before they reach the backend: sizes bounded, names and paths well-formed.

// Bounds of bound-method arguments.
const (
	maxQueryBytes    = 256 << 10 // a search or a question
	maxNameBytes     = 256       // collection and profile names, models, modes
	maxKeyBytes      = 4096      // an API key or a PDF password
	maxPaths         = 10000     // files in one AddPaths
	maxPathBytes     = 4096
	maxImageWidthPx  = 8192 // a page image for the viewer
	maxID            = 1 << 53
	defaultImageSize = 1024
)

func clipArg(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

func hasControl(s string) bool { return strings.IndexFunc(s, unicode.IsControl) >= 0 }

// checkName checks a collection, profile, model or mode name.
func checkName(what, s string) error {
	if len(s) > maxNameBytes || hasControl(s) || !utf8.ValidString(s) {
		return fmt.Errorf("%s %q: not a valid name (at most %d bytes, no control characters)", what, clipArg(s), maxNameBytes)
	}
	return nil
}

func checkAPIKey(k string) error {
	if len(k) > maxKeyBytes || hasControl(k) {
		return fmt.Errorf("API key: not a key (at most %d bytes, no control characters)", maxKeyBytes)
	}
	return nil
}

func checkPassword(pw string) error {
	if len(pw) > maxKeyBytes || strings.ContainsRune(pw, 0) {
		return fmt.Errorf("password: at most %d bytes, no NUL", maxKeyBytes)
	}
	return nil
}

func checkQuery(what, q string) error {
	if len(q) > maxQueryBytes || !utf8.ValidString(q) {
		return fmt.Errorf("%s: %d bytes, at most %d of valid UTF-8", what, len(q), maxQueryBytes)
	}
	return nil
}

func checkID(what string, id int64) error {
	if id <= 0 || id > maxID {
		return fmt.Errorf("%s %d: not an id", what, id)
	}
	return nil
}

// checkProfile checks a provider profile sent by the window for a connection test.
func checkProfile(p config.Provider) error {
	s := config.Defaults()
	s.Providers = []config.Provider{p}
	s.Agent.Provider = p.Name
	return config.Validate(s)
}

// checkPaths checks the files and folders of AddPaths: absolute, clean-able, bounded.
func checkPaths(paths []string) error {
	if len(paths) == 0 || len(paths) > maxPaths {
		return fmt.Errorf("add: %d paths, want 1 to %d", len(paths), maxPaths)
	}
	for _, p := range paths {
		if len(p) > maxPathBytes || strings.ContainsRune(p, 0) || !filepath.IsAbs(p) {
			return fmt.Errorf("add %q: not an absolute path", clipArg(p))
		}
	}
	return nil
}

// clampWidth bounds the width of a page image: 0 or less is the default, more than the bound is the bound.
func clampWidth(w int) int {
	if w <= 0 {
		return defaultImageSize
	}
	return min(w, maxImageWidthPx)
}
