// Package buildinfo reports the version of this Proofglass binary.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Version is set at build time with -ldflags "-X proofglass/backend/buildinfo.Version=v1.2.3".
var Version = "dev"

// Info describes the running binary.
type Info struct {
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	Revision  string `json:"revision,omitempty"`
	Desktop   bool   `json:"desktop"` // built with the Wails window
}

// Desktop is set by the desktop entry point.
var Desktop bool

// Get returns the running binary's build information.
func Get() Info {
	i := Info{Version: Version, GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, Desktop: Desktop}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				i.Revision = s.Value
			}
		}
	}
	return i
}
