package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"proofglass/backend/desktop/internal/tsgen"
)

// TestGeneratedTypeScriptIsCurrent fails when the committed TypeScript differs from what the Go types and event names
// give now: a field added to a window type, or an event added to backend/wire, without regenerating.
func TestGeneratedTypeScriptIsCurrent(t *testing.T) {
	root, files := generated(t)
	if stale := Stale(root, files); len(stale) > 0 {
		t.Errorf("the generated TypeScript is stale; run %s and commit the result:\n%s", Regenerate,
			strings.Join(stale, "\n"))
	}
}

// TestStaleNamesTheLine checks the failure message of a stale file: the file, the first line that differs, and both
// versions of it.
func TestStaleNamesTheLine(t *testing.T) {
	root := t.TempDir()
	name := "frontend/src/lib/generated/types.ts"
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, name), []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{name: []byte("a\nb\n  added?: string\n")}
	stale := Stale(root, files)
	if len(stale) != 1 || !strings.Contains(stale[0], name+": line 3 is") || !strings.Contains(stale[0], "added?: string") {
		t.Errorf("Stale = %q", stale)
	}
	if s := Stale(root, map[string][]byte{name: []byte("a\nb\n")}); len(s) != 0 {
		t.Errorf("an equal file is stale: %q", s)
	}
}

// TestEveryEventHasAPayload: Generate refuses an event of backend/wire that payloads does not describe.
func TestEveryEventHasAPayload(t *testing.T) {
	root, module, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	saved := payloads
	t.Cleanup(func() { payloads = saved })
	payloads = map[string]payload{}
	for k, v := range saved {
		payloads[k] = v
	}
	for k := range payloads {
		delete(payloads, k)
		break
	}
	if _, err := Generate(root, module); err == nil || !strings.Contains(err.Error(), "has no payload") {
		t.Errorf("Generate with an event missing from payloads: err = %v", err)
	}
}

// services.ts has one typed wrapper per bound method, each calling that method of the Wails runtime's object, and no
// result left as unknown JSON.
func TestServicesWrapEveryBoundMethod(t *testing.T) {
	_, files := generated(t)
	ts := string(files[servicesFile])
	methods, err := tsgen.Methods(services...)
	if err != nil {
		t.Fatal(err)
	}
	if len(methods) < 40 {
		t.Fatalf("only %d bound methods found", len(methods))
	}
	for _, m := range methods {
		call := fmt.Sprintf("bound().then((d) => d.%s.%s(", m.Service.Name(), m.Name)
		if strings.Count(ts, call) != 1 {
			t.Errorf("services.ts does not call %s.%s once", m.Service.Name(), m.Name)
		}
	}
	for _, want := range []string{
		"PickFiles(title: string, filterNames: Record<string, string>): Promise<string[] | null>",
		"Search(query: string, collection: string, k: number): Promise<SearchResult>",
		"RunEvents(runID: number): Promise<AgentEvent[] | null>",
	} {
		if !strings.Contains(ts, want) {
			t.Errorf("services.ts lacks %q", want)
		}
	}
	if strings.Contains(ts, "unknown") {
		t.Error("services.ts has an unknown type: give the method's raw JSON its Go type in results")
	}
}

// A results entry that names no bound method is an error, so a renamed method does not lose its type silently.
func TestResultsNameBoundMethods(t *testing.T) {
	root, module, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	saved := results
	t.Cleanup(func() { results = saved })
	results = maps.Clone(saved)
	results["ChatService.Gone"] = results["ChatService.RunEvents"]
	if _, err := Generate(root, module); err == nil || !strings.Contains(err.Error(), "ChatService.Gone") {
		t.Errorf("Generate with a stale results entry: err = %v", err)
	}
}

// generated is the module's root and the files the generator writes from today's Go.
func generated(t *testing.T) (string, map[string][]byte) {
	t.Helper()
	root, module, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(root, module)
	if err != nil {
		t.Fatal(err)
	}
	return root, files
}
