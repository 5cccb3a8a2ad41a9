//go:build dev

package desktop

import (
	"os"
	"path/filepath"
)

// withE2EDialogs lets the dev build used by the end-to-end tests answer the save dialog: with PROOFGLASS_E2E_SAVE_DIR
// set, it returns DIR/<the suggested name>, so the tests export through the real Go path check instead of patching
// the binding in the page (Chromium cannot drive a native dialog).
func withE2EDialogs(ui UI) UI {
	dir := os.Getenv("PROOFGLASS_E2E_SAVE_DIR")
	if dir == "" || ui == nil {
		return ui
	}
	return e2eSave{ui, dir}
}

type e2eSave struct {
	UI
	dir string
}

func (e e2eSave) SaveFile(_, defaultName string) (string, error) {
	return filepath.Join(e.dir, filepath.Base(defaultName)), nil
}
