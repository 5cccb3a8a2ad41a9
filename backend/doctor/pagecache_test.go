package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"proofglass/backend/kb"
	"proofglass/backend/pagecache"
)

func TestPageCacheFindsAndFixesStaleFiles(t *testing.T) {
	ctx := context.Background()
	cfg, k, c := openStore(t, "docs")
	liveSHA, goneSHA := strings.Repeat("a", 64), strings.Repeat("b", 64)
	k.Docs.AddDocument(ctx, kb.Document{CollectionID: c.ID, SHA256: liveSHA, Name: "kept.pdf", Kind: "pdf"})
	k.Close()
	pages := pagecache.New(filepath.Join(cfg.CacheDir(), "pages"), pagecache.Options{})
	kept, _ := pages.Put(pagecache.Key{Collection: "docs", SHA256: liveSHA, Name: "kept.pdf", Page: 1, DPI: 200}, []byte("k"))
	stale, _ := pages.Put(pagecache.Key{Collection: "docs", SHA256: goneSHA, Name: "kept.pdf", Page: 1, DPI: 200}, []byte("s"))
	old := filepath.Join(pages.Root(), "unit-3.jpg") // an older Proofglass's id-named file
	os.WriteFile(old, []byte("o"), 0o600)

	chk := find(t, Store(ctx, cfg, false), "page cache")
	if chk.OK || !strings.Contains(chk.Detail, "2 stale") || !strings.Contains(chk.Fix, "--fix") {
		t.Errorf("stale files not reported: %+v", chk)
	}
	chk = find(t, Store(ctx, cfg, true), "page cache")
	if !chk.OK {
		t.Errorf("--fix: %+v", chk)
	}
	for _, p := range []string{stale, old} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s still there", p)
		}
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("a live document's file was removed: %v", err)
	}
	if chk := find(t, Store(ctx, cfg, false), "page cache"); !chk.OK {
		t.Errorf("after --fix: %+v", chk)
	}
}

// TestPageCacheSizeWarnsWhenTheCorpusOutgrowsTheCap: 40 ready pages measured at 100 KB each need 4 MB; a 3 MB cap
// cannot hold them (warning with the size to set), an 8 MB cap can.
func TestPageCacheSizeWarnsWhenTheCorpusOutgrowsTheCap(t *testing.T) {
	ctx := context.Background()
	cfg, k, c := openStore(t, "manual")
	sha := strings.Repeat("c", 64)
	d, _, err := k.Docs.AddDocument(ctx, kb.Document{CollectionID: c.ID, SHA256: sha, Name: "manual.pdf", Kind: "pdf"})
	if err != nil {
		t.Fatal(err)
	}
	for p := 1; p <= 40; p++ {
		if _, err := k.Content.PutUnit(ctx, kb.Unit{DocumentID: d.ID, Ordinal: p, Kind: kb.UnitPage, Text: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.Docs.SetStatus(ctx, d.ID, "ready", ""); err != nil {
		t.Fatal(err)
	}
	k.Close()
	pages := pagecache.New(filepath.Join(cfg.CacheDir(), "pages"), pagecache.Options{})
	for p := 1; p <= 10; p++ { // ten pages rendered: the measured size per page
		pages.Add(pagecache.Key{Collection: "manual", SHA256: sha, Name: "manual.pdf", Page: p, DPI: 200}, make([]byte, 100<<10))
	}
	cfg.Settings.Cache.PagesMB = 3
	chk := find(t, Store(ctx, cfg, false), "page cache size")
	if chk.OK || !chk.Optional || !strings.Contains(chk.Detail, "40 pages") || !strings.Contains(chk.Detail, "100 KB") ||
		!strings.Contains(chk.Fix, `"pages_mb": 5`) {
		t.Errorf("3 MB cap for 4 MB of pages: %+v", chk)
	}
	cfg.Settings.Cache.PagesMB = 8
	if chk := find(t, Store(ctx, cfg, false), "page cache size"); !chk.OK {
		t.Errorf("8 MB cap for 4 MB of pages: %+v", chk)
	}
}
