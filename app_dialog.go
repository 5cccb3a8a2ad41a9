package main

import wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

// saveFileDialog is the native save dialog; the dev build used by the end-to-end tests may stand in for it
// (app_dialog_dev.go), since Chromium cannot drive a native dialog.
var saveFileDialog = wruntime.SaveFileDialog
