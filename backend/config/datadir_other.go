//go:build !linux

package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// defaultDataDir uses the OS config root (Application Support on macOS, %AppData% on Windows).
func defaultDataDir() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no user data dir (use --data or PROOFGLASS_DATA): %w", err)
	}
	return filepath.Join(d, "Proofglass"), nil
}
