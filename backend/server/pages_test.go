package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"proofglass/backend/kb"
	"proofglass/backend/kb/kbtest"
	"proofglass/backend/pagecache"
	"proofglass/backend/pagefile"
)

// turn is one VRAG-RL search turn: one query, one page back (its unit id and the path the client opens).
func turn(t *testing.T, c *vragClient, query string) (int64, string) {
	t.Helper()
	code, b := c.postSearch(map[string]any{"queries": []string{query}, "top_k": 1})
	if code != 200 {
		t.Fatalf("POST /search: %d %s", code, b)
	}
	var out struct {
		Results []queryResult `json:"results"`
	}
	if err := json.Unmarshal(b, &out); err != nil || len(out.Results) != 1 || len(out.Results[0].Data) != 1 {
		t.Fatalf("POST /search body %s: %v", b, err)
	}
	d := out.Results[0].Data[0]
	return d.UnitID, d.FilePath
}

// TestSlowTurnKeepsItsPage is issue 31's eviction, reproduced through the server with VRAG-RL's calls: a page cache
// far smaller than one page, a page handed out in turn 1, a 65 s pause (a slow generation; the clock is moved, not
// slept), and turn 2's new page. The client must still be able to open turn 1's page to crop it.
func TestSlowTurnKeepsItsPage(t *testing.T) {
	f := newFixture(t, nil)
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	saved := f.lib.Pages
	f.lib.Pages = pagecache.New(t.TempDir(), pagecache.Options{MaxBytes: 1, Now: clock})
	t.Cleanup(func() { f.lib.Pages = saved })
	c := newNoTokenServer(t, f.lib, Options{})

	u1, p1 := turn(t, c, "blood loss")
	// Turn 2 asks for another page: the words of a page that is not u1.
	var text string
	for _, u := range kbtest.Units(t, f.lib.KB) {
		if u.Kind == kb.UnitPage && u.ID != u1 && utf8.RuneCountInString(u.Text) > 200 {
			text = u.Text
			break
		}
	}
	words := strings.Fields(text)
	now = now.Add(65 * time.Second)
	u2, p2 := turn(t, c, strings.Join(words[:min(12, len(words))], " "))
	if u2 == u1 || p2 == p1 {
		t.Fatalf("turn 2 returned turn 1's page (unit %d) again: the test needs a new page", u1)
	}
	if _, err := os.Stat(p1); err != nil {
		t.Fatalf("turn 1's page was evicted 65 s later, before the policy could crop it: %v", err)
	}
	if b, err := os.ReadFile(p1); err != nil || pagefile.JPEGDensity(b) != 200 {
		t.Fatalf("turn 1's page is not the 200-DPI JPEG: %v", err)
	}
	// After the lease the cap holds again: the next new page evicts both.
	now = now.Add(pagecache.DefaultLease + time.Minute)
	turn(t, c, "") // fill order: page 1 of the first document, unless it is one of them
	if _, err1 := os.Stat(p1); err1 == nil {
		if _, err2 := os.Stat(p2); err2 == nil {
			t.Error("both pages kept after their leases ran out: the cache no longer holds its cap")
		}
	}
}

// TestCorpusDir serves from a folder in VRAG's layout: paths inside it, spelled as given (./…/img/{stem}_{page}.jpg),
// files there, and the manifest saying what each shows.
func TestCorpusDir(t *testing.T) {
	f := newFixture(t, nil)
	dir := t.TempDir()
	t.Chdir(dir)
	corpus, err := pagefile.OpenCorpus("./search_engine/corpus", false)
	if err != nil {
		t.Fatal(err)
	}
	c := newNoTokenServer(t, f.lib, Options{Corpus: corpus})
	lists := c.getSearch([]string{"blood loss", ""})
	if len(lists) != 2 || len(lists[0]) == 0 {
		t.Fatalf("lists %v", lists)
	}
	for _, l := range lists {
		for _, it := range l {
			if !strings.HasPrefix(it.ImageFile, "./search_engine/corpus/img/") || strings.Count(it.ImageFile, "/") != 4 {
				t.Errorf("path %q is not VRAG's ./search_engine/corpus/img/{stem}_{page}.jpg", it.ImageFile)
			}
			if _, err := os.Stat(it.ImageFile); err != nil {
				t.Errorf("handed out %q, which is not there: %v", it.ImageFile, err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "search_engine/corpus", pagefile.ManifestName)); err != nil {
		t.Errorf("no manifest: %v", err)
	}
}
