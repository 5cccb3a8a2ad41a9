package main

import (
	"context"
	"embed"
	"os"
	"path/filepath"

	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/options/windows"
	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"proofglass/backend/desktop"
)

//go:embed all:frontend/dist
var assets embed.FS

// icon is the window's icon (the same picture as the desktop entry's, made by make icons).
//
//go:embed build/icons/proofglass-256.png
var icon []byte

// newApp builds the window's services (backend/desktop: one per feature) for a data directory and the files this
// launch was asked to open, and the Wails options that bind them and tie their lifecycle to the window's.
func newApp(dataDir string, paths []string) (*desktop.Desktop, *options.App) {
	d := desktop.New(dataDir, paths)
	return d, &options.App{
		Title:            "Proofglass",
		Width:            1280,
		Height:           800,
		MinWidth:         900,
		MinHeight:        600,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: &options.RGBA{R: 247, G: 247, B: 248, A: 255},
		OnStartup:        func(ctx context.Context) { d.Startup(ctx, wailsUI{ctx}) },
		OnShutdown:       func(context.Context) { d.Shutdown() },
		Bind:             d.Services(),
		DragAndDrop:      &options.DragAndDrop{EnableFileDrop: true},
		Linux:            &linux.Options{ProgramName: "proofglass", Icon: icon},
		Windows:          &windows.Options{WebviewUserDataPath: webviewDataDir()},
	}
}

// webviewDataDir is where WebView2 keeps its profile on Windows: a cache, so under %LocalAppData%\Proofglass (the
// uninstaller removes it; the library under %AppData%\Proofglass stays) rather than WebView2's default, a roaming
// %AppData%\proofglass.exe. "" (WebView2's default) where there is no cache directory.
func webviewDataDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "Proofglass", "WebView2")
}

// wailsUI is the window as Wails' runtime reaches it: the services' events, dialogs and window calls (desktop.UI).
type wailsUI struct{ ctx context.Context }

func (w wailsUI) Emit(name string, data any) {
	if data == nil {
		wruntime.EventsEmit(w.ctx, name)
		return
	}
	wruntime.EventsEmit(w.ctx, name, data)
}

func (w wailsUI) OpenFiles(title string, filters []desktop.FileFilter) ([]string, error) {
	return wruntime.OpenMultipleFilesDialog(w.ctx, wruntime.OpenDialogOptions{Title: title, Filters: fileFilters(filters)})
}

func (w wailsUI) OpenFile(title string, filters []desktop.FileFilter) (string, error) {
	return wruntime.OpenFileDialog(w.ctx, wruntime.OpenDialogOptions{Title: title, Filters: fileFilters(filters)})
}

func (w wailsUI) OpenFolder(title string) (string, error) {
	return wruntime.OpenDirectoryDialog(w.ctx, wruntime.OpenDialogOptions{Title: title})
}

func (w wailsUI) SaveFile(title, name string) (string, error) {
	return wruntime.SaveFileDialog(w.ctx, wruntime.SaveDialogOptions{Title: title, DefaultFilename: name})
}

func (w wailsUI) Show() { wruntime.WindowUnminimise(w.ctx); wruntime.WindowShow(w.ctx) }

func (w wailsUI) OpenURL(url string) { wruntime.BrowserOpenURL(w.ctx, url) }

func fileFilters(fs []desktop.FileFilter) []wruntime.FileFilter {
	out := make([]wruntime.FileFilter, len(fs))
	for i, f := range fs {
		out[i] = wruntime.FileFilter{DisplayName: f.DisplayName, Pattern: f.Pattern}
	}
	return out
}
