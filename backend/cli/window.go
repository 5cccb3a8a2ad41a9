package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WindowArgs is what the desktop binary is asked to open when its arguments name no subcommand.
type WindowArgs struct {
	DataDir string   // --data; "" means PROOFGLASS_DATA or the OS user data dir
	Paths   []string // files and folders to add to the current collection, absolute and clean
}

// wailsDevFlags are the flags a dev-tagged build's Wails runtime reads from the command line, each with a value.
var wailsDevFlags = map[string]bool{"assetdir": true, "devserver": true, "frontenddevserverurl": true, "loglevel": true}

// ParseWindowArgs reads the window's arguments (those IsCommand rejected): --data DIR and the files or folders to
// open, as a file manager passes them (`proofglass FILE…`, the desktop entry's %F). An argument that is neither a flag nor
// an existing path is an error naming it, so a mistyped subcommand is not silently taken for a window.
func ParseWindowArgs(args []string) (WindowArgs, error) {
	var w WindowArgs
	flags := true
	for i := 0; i < len(args); i++ {
		a := args[i]
		if flags && a == "--" {
			flags = false
			continue
		}
		if flags && len(a) > 1 && a[0] == '-' {
			name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if name != "data" && !wailsDevFlags[name] {
				return WindowArgs{}, fmt.Errorf("unknown flag %s (see proofglass --help)", a)
			}
			if !hasValue {
				if i+1 >= len(args) {
					return WindowArgs{}, fmt.Errorf("flag %s needs a value", a)
				}
				i++
				value = args[i]
			}
			if name == "data" {
				w.DataDir = value
			}
			continue
		}
		p, err := filepath.Abs(a)
		if err != nil {
			return WindowArgs{}, fmt.Errorf("%s: %w", a, err)
		}
		if _, err := os.Stat(p); err != nil {
			if os.IsNotExist(err) {
				return WindowArgs{}, fmt.Errorf("%q is neither a command nor a file or folder (see proofglass --help)", a)
			}
			return WindowArgs{}, fmt.Errorf("open %s: %w", a, err)
		}
		w.Paths = append(w.Paths, p)
	}
	return w, nil
}
