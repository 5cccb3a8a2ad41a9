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
		i.Version, i.Revision = versionOf(Version, bi)
	}
	return i
}

// versionOf is the version a binary reports: the one its build set (-X …Version), else its module's (a `go install
// proofglass@v1.2.3`), else "dev" with the commit it was built from when Go recorded one ("dev+1a2b3c4d5e6f",
// "-dirty" for uncommitted changes), so a plain `go build` binary still says what it is.
func versionOf(set string, bi *debug.BuildInfo) (version, revision string) {
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	switch {
	case set != "dev" && set != "":
		return set, revision
	case bi.Main.Version != "" && bi.Main.Version != "(devel)":
		return bi.Main.Version, revision
	case revision != "":
		v := "dev+" + revision[:min(12, len(revision))]
		if modified {
			v += "-dirty"
		}
		return v, revision
	}
	return "dev", revision
}
