package docs

import (
	"fmt"
	"go/ast"
	"go/parser"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The layer table of ARCHITECTURE.md, between these markers, is the rule every import follows: a package imports only
// packages of its own layer or of the layers below it (the table lists layers top down). The rows named in
// offLayers are outside that order: they may import anything, and no package of the layers imports them.
const (
	layersStart = "<!-- layers: every package in exactly one row; `go test ./docs` fails on an import against this table -->"
	layersEnd   = "<!-- end of layers -->"
)

// offLayers are the rows that no shipped code may import: the lab's benchmarks and generators, and test support.
var offLayers = []string{"tools (not shipped)", "test support (tests only)"}

// modulePath is the module's import path prefix.
const modulePath = "proofglass"

// forbidden are single imports the layer order allows but the design does not, with the reason.
var forbidden = []struct{ from, to, why string }{
	{"backend/agent", "backend/kb", "the agent loops know no SQLite: kbagent connects them to the knowledge base"},
	{"backend/agent", "net/http", "the agent loops know no HTTP: model adapters and faces do"},
	{"backend/ingest", "backend/search", "ingest is given its embedders and index refresh by library; it does not rank"},
}

type layer struct {
	name     string
	rank     int // 0 = top; off-layer rows -1
	packages []string
}

var backticked = regexp.MustCompile("`([^`]+)`")

// readLayers parses the layer table: | layer | `pkg`, `pkg` | what it knows |.
func readLayers(t *testing.T) []layer {
	t.Helper()
	b, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, layersStart), strings.Index(s, layersEnd)
	if i < 0 || j < i {
		t.Fatalf("ARCHITECTURE.md lacks the markers %q … %q", layersStart, layersEnd)
	}
	var ls []layer
	rank := 0
	for _, line := range strings.Split(s[i+len(layersStart):j], "\n") {
		cells := strings.Split(strings.TrimSpace(line), "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") || strings.TrimSpace(cells[1]) == "layer" {
			continue
		}
		l := layer{name: strings.TrimSpace(cells[1]), rank: -1}
		if !slices.Contains(offLayers, l.name) {
			l.rank = rank
			rank++
		}
		for _, m := range backticked.FindAllStringSubmatch(cells[2], -1) {
			l.packages = append(l.packages, m[1])
		}
		if len(l.packages) == 0 {
			t.Errorf("layer %q names no package", l.name)
		}
		ls = append(ls, l)
	}
	if rank < 2 {
		t.Fatalf("the layer table has %d ordered layers; want the table between %q and %q", rank, layersStart, layersEnd)
	}
	return ls
}

// moduleImports maps every package of the module (by its directory, "(root)" for the root) to the module packages
// and standard packages its non-test files import, under any build tag or GOOS.
func moduleImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := eachPackageDir(root, parser.ImportsOnly, func(p string, pkgs map[string]*ast.Package) error {
		if len(pkgs) == 0 {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		dir := "(root)"
		if rel != "." {
			dir = filepath.ToSlash(rel)
		}
		seen := map[string]bool{}
		out[dir] = []string{}
		for _, pkg := range pkgs {
			for _, f := range pkg.Files {
				for _, im := range f.Imports {
					path, _ := strconv.Unquote(im.Path.Value)
					if path == modulePath {
						path = "(root)"
					} else if rest, ok := strings.CutPrefix(path, modulePath+"/"); ok {
						path = rest
					}
					if !seen[path] {
						seen[path] = true
						out[dir] = append(out[dir], path)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every package of the module stands in exactly one row of the layer table, and no import runs upward, into the
// lab's tools or test support from shipped code, or against one of the forbidden pairs.
func TestArchitectureLayers(t *testing.T) {
	for _, v := range layerViolations(readLayers(t), moduleImports(t, "..")) {
		t.Error(v)
	}
}

// The check itself catches each kind of violation (and passes a tree that keeps the rules).
func TestLayerViolations(t *testing.T) {
	layers := []layer{
		{name: "faces", rank: 0, packages: []string{"backend/cli"}},
		{name: "agents", rank: 1, packages: []string{"backend/agent", "backend/kbagent"}},
		{name: "store", rank: 2, packages: []string{"backend/kb"}},
		{name: "test support (tests only)", rank: -1, packages: []string{"backend/fixture"}},
	}
	ok := map[string][]string{"backend/cli": {"backend/agent", "fmt"}, "backend/agent": {"backend/kbagent"},
		"backend/kbagent": {"backend/kb"}, "backend/kb": {}, "backend/fixture": {"backend/cli"}}
	if v := layerViolations(layers, ok); len(v) != 0 {
		t.Errorf("a tree that keeps the rules: %q", v)
	}
	for _, c := range []struct {
		name    string
		imports map[string][]string
		want    string
	}{
		{"upward", map[string][]string{"backend/kb": {"backend/kbagent"}}, "a layer above it"},
		{"tool from shipped code", map[string][]string{"backend/kbagent": {"backend/fixture"}}, "never imports"},
		{"in no layer", map[string][]string{"backend/new": {}}, "in no layer"},
		{"forbidden pair", map[string][]string{"backend/agent": {"backend/kb"}}, "know no SQLite"},
	} {
		imports := map[string][]string{}
		for p, ims := range ok {
			imports[p] = ims
		}
		for p, ims := range c.imports {
			imports[p] = ims
		}
		v := layerViolations(layers, imports)
		if len(v) != 1 || !strings.Contains(v[0], c.want) {
			t.Errorf("%s: got %q, want one violation saying %q", c.name, v, c.want)
		}
	}
}

// layerViolations says what in imports breaks the layer table, one line each.
func layerViolations(layers []layer, imports map[string][]string) []string {
	var v []string
	of := map[string]layer{}
	for _, l := range layers {
		for _, p := range l.packages {
			if prev, ok := of[p]; ok {
				v = append(v, fmt.Sprintf("%s stands in two layers of ARCHITECTURE.md: %q and %q", p, prev.name, l.name))
			}
			of[p] = l
			if _, ok := imports[p]; !ok {
				v = append(v, fmt.Sprintf("the layer table names %s (layer %q), which is no package of the module", p, l.name))
			}
		}
	}
	pkgs := make([]string, 0, len(imports))
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, p := range pkgs {
		from, ok := of[p]
		if !ok {
			v = append(v, fmt.Sprintf("%s is in no layer of ARCHITECTURE.md's layer table: add it to the row it belongs to", p))
			continue
		}
		for _, im := range imports[p] {
			if to, inModule := of[im]; inModule && from.rank >= 0 {
				switch {
				case to.rank < 0:
					v = append(v, fmt.Sprintf("%s (%s) imports %s (%s): shipped code never imports the lab's tools or test support", p, from.name, im, to.name))
				case to.rank < from.rank:
					v = append(v, fmt.Sprintf("%s (%s) imports %s (%s), a layer above it: move the shared part down, or pass it in", p, from.name, im, to.name))
				}
			}
			for _, f := range forbidden {
				if f.from == p && f.to == im {
					v = append(v, fmt.Sprintf("%s imports %s: %s", p, im, f.why))
				}
			}
		}
	}
	return v
}
