// Command proofglass is the Proofglass desktop app; given a subcommand it runs the CLI instead of opening the window.
package main

import (
	"context"
	"embed"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"

	"proofglass/backend/buildinfo"
	"proofglass/backend/cli"
	"proofglass/backend/pdf"
)

//go:embed all:frontend/dist
var assets embed.FS

// icon is the window's icon (the same picture as the desktop entry's, made by make icons).
//
//go:embed build/icons/proofglass-256.png
var icon []byte

func main() {
	pdf.ServeWorkerIfAsked() // a MuPDF worker needs neither the window nor the CLI's command tree (built twice here)
	buildinfo.Desktop = true
	args := os.Args[1:]
	if cli.IsCommand(args) {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := cli.Execute(ctx, args)
		stop()
		os.Exit(code)
	}
	win, err := cli.ParseWindowArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "proofglass:", err)
		os.Exit(2)
	}
	// One window per data directory: a later launch hands its files to the running one and exits.
	primary, handed, err := claimWindow(win.DataDir, win.Paths)
	if err != nil {
		fmt.Fprintln(os.Stderr, "proofglass:", err)
		os.Exit(1)
	}
	if handed {
		return
	}
	opened := NewOpenFiles(win.Paths)
	if primary != nil {
		primary.Serve(opened.open)
	}
	app := NewApp(win.DataDir)
	watches := NewWatchService(app)
	err = wails.Run(&options.App{
		Title:            "Proofglass",
		Width:            1280,
		Height:           800,
		MinWidth:         900,
		MinHeight:        600,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: &options.RGBA{R: 247, G: 247, B: 248, A: 255},
		OnStartup: func(ctx context.Context) {
			app.startup(ctx)
			opened.startup(ctx)
			watches.start(ctx)
		},
		OnShutdown: func(ctx context.Context) {
			watches.stop()
			app.shutdown(ctx)
		},
		Bind:        []any{app, opened, watches, NewEvalService(app)},
		DragAndDrop: &options.DragAndDrop{EnableFileDrop: true},
		Linux:       &linux.Options{ProgramName: "proofglass", Icon: icon},
	})
	if primary != nil {
		primary.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "proofglass:", err)
		os.Exit(1)
	}
}
