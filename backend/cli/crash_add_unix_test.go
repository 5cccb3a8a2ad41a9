//go:build unix

package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"proofglass/backend/fixture"
	"proofglass/backend/kb"
)

// TestAddSurvivesKill9: a real `proofglass add` of a folder (real PDFs and 80 pictures) killed with SIGKILL twice
// part-way, then run to its end: every file is one ready document with the units a clean ingest gives it, nothing is
// there twice, and the database passes SQLite's integrity and foreign-key checks after each kill (issue 41's
// re-test).
func TestAddSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills real processes")
	}
	dir := t.TempDir()
	for _, p := range []string{"pdf/real/blood_loss_report.pdf", "pdf/real/hsaur3-Ch_analysis_of_variance.pdf"} {
		b, err := os.ReadFile(fixture.Path(t, p))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const pictures = 80
	for i := range pictures {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%03d.png", i)), noisePNG(t, uint64(1000+i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	for _, after := range []int{5, 40} {
		p := startProofglass(t, "--data", data, "add", "--json", "--no-ocr", "--collection", "c", dir)
		count := 0
		p.waitFor(fmt.Sprintf("%d files done", after), func(l string) bool {
			if stageIs("done")(l) {
				count++
			}
			return count >= after
		})
		p.kill9()
		k := openData(t, data)
		problems, err := k.Integrity(context.Background())
		ds, _ := k.Docs.Documents(context.Background(), 0)
		k.Close()
		if err != nil || len(problems) > 0 {
			t.Fatalf("after a kill with %d done: %v %v", after, problems, err)
		}
		t.Logf("killed after %d more done: %d documents", after, len(ds))
	}
	if out, err := run(t, data, "add", "--no-ocr", "--collection", "c", dir); err != nil {
		t.Fatalf("add after the kills: %v\n%s", err, out)
	}
	clean := t.TempDir()
	if out, err := run(t, clean, "add", "--no-ocr", "--collection", "c", dir); err != nil {
		t.Fatalf("clean add: %v\n%s", err, out)
	}
	got, want := unitsByName(t, data), unitsByName(t, clean)
	if len(want) != pictures+2 {
		t.Fatalf("a clean add made %d documents, want %d", len(want), pictures+2)
	}
	for name, n := range want {
		if got[name] != n {
			t.Errorf("%s: %d units after the kills, %d from a clean add", name, got[name], n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d documents after the kills, %d from a clean add", len(got), len(want))
	}
}

// unitsByName are the units of each ready document of a stopped library, by name; a document that is not ready or
// is there twice fails the test.
func unitsByName(t *testing.T, data string) map[string]int {
	t.Helper()
	k := openData(t, data)
	defer k.Close()
	ctx := context.Background()
	ds, err := k.Docs.Documents(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, d := range ds {
		if _, twice := out[d.Name]; twice {
			t.Errorf("%s is there twice", d.Name)
		}
		if d.Status != kb.StatusReady {
			t.Errorf("%s is %s: %s", d.Name, d.Status, d.Error)
		}
		n, err := k.Content.UnitCount(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		out[d.Name] = n
	}
	return out
}

// TestFacetsRefreshSurvivesKill9: `documents facets --refresh --all` killed with SIGKILL while it rewrites the facets of
// 200 documents leaves every document with its facets whole (each document's are replaced in one transaction, so
// none is seen with its extracted facets gone) and the user's value untouched; run again, it ends with the same
// facets (issue 41's re-test).
func TestFacetsRefreshSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills real processes")
	}
	dir := t.TempDir()
	const n = 200
	for i := range n {
		name := fmt.Sprintf("acme-annual-report-%d.txt", 1990+i%30)
		text := fmt.Sprintf("ACME Widgets Ltd\nAnnual Report %d\n\nItem %d: revenue rose %d%% on 12 March %d.\n", 1990+i%30, i, i%17, 1990+i%30)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d-%s", i, name)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	if out, err := run(t, data, "add", "--no-ocr", "--collection", "c", dir); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	ctx := context.Background()
	k := openData(t, data)
	ds, err := k.Docs.Documents(ctx, 0)
	if err != nil || len(ds) != n {
		t.Fatalf("%d documents (%v)", len(ds), err)
	}
	var ids []int64
	for _, d := range ds {
		ids = append(ids, d.ID)
	}
	slices.Sort(ids)
	if err := k.Facets.SetUserFacet(ctx, ids[0], kb.Facet{Name: "org", Value: "Mine", Norm: "mine", Source: kb.FacetUser}); err != nil {
		t.Fatal(err)
	}
	before, err := k.Facets.DocumentFacets(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	// Stale extracted facets (as an extraction change leaves them), so the refresh rewrites every document.
	stale := map[int64][]kb.Facet{}
	for _, id := range ids {
		rows := []kb.Facet{{Name: "title", Value: "stale", Norm: "stale", Source: kb.FacetExtracted}}
		if err := k.Facets.ReplaceExtractedFacets(ctx, id, rows); err != nil {
			t.Fatal(err)
		}
		for _, f := range before[id] {
			if f.Source == kb.FacetUser {
				rows = append(rows, f)
			}
		}
		stale[id] = rows
	}
	v0, _ := k.Facets.FacetsVersion(ctx)
	k.Close()

	check := func(when string, torn bool) {
		t.Helper()
		k := openData(t, data)
		defer k.Close()
		problems, err := k.Integrity(ctx)
		if err != nil || len(problems) > 0 {
			t.Fatalf("%s: %v %v", when, problems, err)
		}
		after, err := k.Facets.DocumentFacets(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		fresh := 0
		for _, id := range ids {
			switch {
			case sameFacets(before[id], after[id]):
				fresh++
			case torn && sameFacets(stale[id], after[id]): // not refreshed yet
			default:
				t.Errorf("%s: document %d has %+v; want %+v (or, not refreshed yet, %+v)", when, id, after[id], before[id], stale[id])
			}
		}
		t.Logf("%s: %d of %d documents refreshed", when, fresh, len(ids))
	}
	// --refresh rewrites every document's extracted rows: the version moves with each document.
	p := startProofglass(t, "--data", data, "documents", "facets", "--refresh", "--all")
	deadline := time.Now().Add(60 * time.Second)
	for {
		k := openData(t, data)
		v, _ := k.Facets.FacetsVersion(ctx)
		k.Close()
		if v >= v0+n/4 || time.Now().After(deadline) {
			t.Logf("killed with the facets version at %d (%d before the refresh)", v, v0)
			break
		}
		time.Sleep(time.Millisecond)
	}
	p.kill9()
	check("after the kill", true)
	if out, err := run(t, data, "documents", "facets", "--refresh", "--all"); err != nil {
		t.Fatalf("refresh again: %v\n%s", err, out)
	}
	check("after a whole refresh", false)
}

// sameFacets compares two documents' facet rows in any order.
func sameFacets(a, b []kb.Facet) bool {
	key := func(f kb.Facet) string { return f.Source + "\x00" + f.Name + "\x00" + f.Value }
	ka, kb2 := make([]string, 0, len(a)), make([]string, 0, len(b))
	for _, f := range a {
		ka = append(ka, key(f))
	}
	for _, f := range b {
		kb2 = append(kb2, key(f))
	}
	slices.Sort(ka)
	slices.Sort(kb2)
	return slices.Equal(ka, kb2)
}
