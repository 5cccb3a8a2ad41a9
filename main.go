// Command loupe is the Loupe desktop app; given a subcommand it runs the CLI instead of opening the window.
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

	"loupe/backend/buildinfo"
	"loupe/backend/cli"
)

//go:embed all:frontend/dist
var assets embed.FS

func main() {
	buildinfo.Desktop = true
	args := os.Args[1:]
	if cli.IsCommand(args) {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := cli.Execute(ctx, args)
		stop()
		os.Exit(code)
	}
	app := NewApp(dataDirFlag(args))
	err := wails.Run(&options.App{
		Title:            "Loupe",
		Width:            1280,
		Height:           800,
		MinWidth:         900,
		MinHeight:        600,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: &options.RGBA{R: 247, G: 247, B: 248, A: 255},
		OnStartup:        app.startup,
		OnShutdown:       app.shutdown,
		Bind:             []any{app},
		DragAndDrop:      &options.DragAndDrop{EnableFileDrop: true},
		Linux:            &linux.Options{ProgramName: "loupe"},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "loupe:", err)
		os.Exit(1)
	}
}

// dataDirFlag picks --data DIR (or --data=DIR) out of the window's arguments; Wails' own dev flags pass through.
func dataDirFlag(args []string) string {
	for i, a := range args {
		if (a == "--data" || a == "-data") && i+1 < len(args) {
			return args[i+1]
		}
		for _, p := range []string{"--data=", "-data="} {
			if len(a) > len(p) && a[:len(p)] == p {
				return a[len(p):]
			}
		}
	}
	return ""
}
