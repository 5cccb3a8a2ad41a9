package buildinfo

import (
	"runtime/debug"
	"testing"
)

// A binary built without -X still says what it is (issue 41, row 10: /healthz said "dev" for a `go build`).
func TestVersionOf(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "1a2b3c4d5e6f7a8b9c0d"}}
	dirty := append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"})
	for _, c := range []struct {
		name, set, module string
		settings          []debug.BuildSetting
		want              string
	}{
		{"set at build", "v1.4.0", "(devel)", rev, "v1.4.0"},
		{"go install of a tagged module", "dev", "v1.3.2", nil, "v1.3.2"},
		{"go build in a checkout", "dev", "(devel)", rev, "dev+1a2b3c4d5e6f"},
		{"go build with changes", "dev", "(devel)", dirty, "dev+1a2b3c4d5e6f-dirty"},
		{"nothing recorded", "dev", "(devel)", nil, "dev"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "proofglass", Version: c.module}, Settings: c.settings}
		if got, _ := versionOf(c.set, bi); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
