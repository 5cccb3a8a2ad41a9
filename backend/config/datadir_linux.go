package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// defaultDataDir follows the XDG base directory spec.
func defaultDataDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "proofglass"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory for the default data dir (use --data or PROOFGLASS_DATA): %w", err)
	}
	return filepath.Join(home, ".local", "share", "proofglass"), nil
}
