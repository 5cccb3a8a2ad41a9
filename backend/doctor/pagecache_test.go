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
	k.AddDocument(ctx, kb.Document{CollectionID: c.ID, SHA256: liveSHA, Name: "kept.pdf", Kind: "pdf"})
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
