//go:build !dev

package desktop

// withE2EDialogs is the UI as given: only the dev build answers dialogs by itself (dialog_dev.go).
func withE2EDialogs(ui UI) UI { return ui }
