//go:build dev

package main

import (
	"context"
	"os"
	"path/filepath"

	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// In the dev build, PROOFGLASS_E2E_SAVE_DIR answers the save dialog with DIR/<the suggested name>, so the end-to-end
// tests export through the real Go path check instead of patching the binding in the page.
func init() {
	dir := os.Getenv("PROOFGLASS_E2E_SAVE_DIR")
	if dir == "" {
		return
	}
	saveFileDialog = func(_ context.Context, o wruntime.SaveDialogOptions) (string, error) {
		return filepath.Join(dir, filepath.Base(o.DefaultFilename)), nil
	}
}
