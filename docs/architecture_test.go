// Package docs holds the project's documents; its test keeps ARCHITECTURE.md's package tree true.
package docs

import (
	"flag"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the package tree in ARCHITECTURE.md from the package docs")

const (
	treeStart = "<!-- package tree: generated from the package docs by `go test ./docs -update`; a test fails when it is stale -->"
	treeEnd   = "<!-- end of package tree -->"
)

// synopsisPrefix is what every package doc starts with and the tree leaves out: "Package kb is", "Command x is".
var synopsisPrefix = regexp.MustCompile(`^(Package|Command) \S+ (is |are )?`)

// eachPackageDir parses the non-test Go files of every directory of the module below root (generated and foreign
// trees aside) in mode, and gives fn the directory and its packages.
func eachPackageDir(root string, mode parser.Mode, fn func(dir string, pkgs map[string]*ast.Package) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules" || name == "testdata" || name == "frontend" || name == "e2e" || name == "build") {
			return filepath.SkipDir
		}
		pkgs, err := parser.ParseDir(token.NewFileSet(), p, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, mode)
		if err != nil {
			return err
		}
		return fn(p, pkgs)
	})
}

// packageTree lists every Go package of the module (test-only ones aside) with its doc's first sentence.
func packageTree(t *testing.T, root string) string {
	t.Helper()
	type entry struct{ dir, synopsis string }
	var entries []entry
	err := eachPackageDir(root, parser.PackageClauseOnly|parser.ParseComments, func(p string, pkgs map[string]*ast.Package) error {
		for _, pkg := range pkgs {
			text := ""
			for _, f := range pkg.Files {
				if f.Doc != nil {
					text = f.Doc.Text()
				}
			}
			rel, _ := filepath.Rel(root, p)
			if text == "" {
				t.Errorf("%s: package %s has no package doc", rel, pkg.Name)
			}
			s := synopsisPrefix.ReplaceAllString(new(doc.Package).Synopsis(text), "")
			dir := "(root)"
			if rel != "." {
				dir = filepath.ToSlash(rel) + "/"
			}
			entries = append(entries, entry{dir, s})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].dir < entries[j].dir })
	var b strings.Builder
	b.WriteString("```text\n")
	width := 0
	for _, e := range entries {
		width = max(width, len(e.dir))
	}
	for _, e := range entries {
		b.WriteString(e.dir + strings.Repeat(" ", width+2-len(e.dir)) + e.synopsis + "\n")
	}
	b.WriteString("```\n")
	return b.String()
}

// ARCHITECTURE.md's tree names every package of the module, no other, each with its package doc's first sentence.
func TestArchitecturePackageTree(t *testing.T) {
	const path = "ARCHITECTURE.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, treeStart), strings.Index(s, treeEnd)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %q … %q", path, treeStart, treeEnd)
	}
	want := packageTree(t, "..")
	got := s[i+len(treeStart)+1 : j]
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(s[:i+len(treeStart)+1]+want+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the package tree in docs/%s is stale (a package was added, removed or its doc changed); "+
		"rewrite it with: go test ./docs -update\nwant:\n%s", path, want)
}
