package kb

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestWatchTables(t *testing.T) {
	ctx := context.Background()
	k := openTest(t)
	c, _ := k.CreateCollection(ctx, Collection{Name: "c"})
	doc := func(sha string) int64 {
		d, _, err := k.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: sha, Name: sha + ".pdf", Kind: "pdf"})
		if err != nil {
			t.Fatal(err)
		}
		return d.ID
	}
	d1, d2 := doc("1"), doc("2")
	id, err := k.AddWatchedFolder(ctx, c.ID, "/w")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := k.AddWatchedFolder(ctx, c.ID, "/w"); again != id || !errors.Is(err, ErrAlreadyWatched) {
		t.Fatalf("second add: %d %v", again, err)
	}
	if !k.WatchedFolderExists(ctx, id) || k.WatchedFolderExists(ctx, id+1) {
		t.Fatal("WatchedFolderExists")
	}
	gone, err := k.ApplyWatchedFiles(ctx, id, nil, []WatchedFile{
		{Rel: "a.pdf", Size: 1, MtimeNS: 10, SHA256: "1", DocumentID: d1, Owned: true},
		{Rel: "sub/a-copy.pdf", Size: 1, MtimeNS: 11, SHA256: "1", DocumentID: d1},
		{Rel: "b.pdf", Size: 2, MtimeNS: 12, SHA256: "2", DocumentID: d2, Owned: true},
		{Rel: "notes.txt", Size: 3, MtimeNS: 13},
	})
	if err != nil || len(gone) != 0 {
		t.Fatalf("first apply: %v %v", gone, err)
	}
	at := time.UnixMilli(time.Now().UnixMilli())
	if err := k.SetWatchScanned(ctx, id, at, ""); err != nil {
		t.Fatal(err)
	}
	if err := k.SetWatchScanned(ctx, id, time.Time{}, "partly unreadable"); err != nil {
		t.Fatal(err)
	}
	fs, err := k.WatchedFolders(ctx)
	if err != nil || len(fs) != 1 {
		t.Fatalf("folders: %v %v", fs, err)
	}
	if f := fs[0]; f.ID != id || f.Collection != "c" || f.Path != "/w" || f.Files != 4 || f.Documents != 2 ||
		!f.ScannedAt.Equal(at) || f.Error != "partly unreadable" {
		t.Errorf("folder %+v", f)
	}
	files, err := k.WatchedFiles(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := files["sub/a-copy.pdf"]; got != (WatchedFile{Rel: "sub/a-copy.pdf", Size: 1, MtimeNS: 11, SHA256: "1", DocumentID: d1}) {
		t.Errorf("file row %+v", got)
	}
	if got := files["notes.txt"]; got.DocumentID != 0 || got.Owned {
		t.Errorf("a file with no document: %+v", got)
	}

	for _, step := range []struct {
		name   string
		remove []string
		put    []WatchedFile
		gone   []int64
		owner  string // the row owning d1 afterwards, "" for none
	}{
		{"the owner goes, a copy stays: ownership passes on", []string{"a.pdf"}, nil, nil, "sub/a-copy.pdf"},
		{"rewritten in place keeps the row's ownership", nil, []WatchedFile{{Rel: "sub/a-copy.pdf", Size: 1, MtimeNS: 20,
			SHA256: "1", DocumentID: d1, Owned: true}}, nil, "sub/a-copy.pdf"},
		{"the last file of a document takes it along", []string{"sub/a-copy.pdf"}, nil, []int64{d1}, ""},
		{"removing an unknown row is no error", []string{"never.pdf"}, nil, nil, ""},
	} {
		gone, err := k.ApplyWatchedFiles(ctx, id, step.remove, step.put)
		if err != nil || !slices.Equal(gone, step.gone) {
			t.Errorf("%s: gone %v %v, want %v", step.name, gone, err, step.gone)
		}
		files, _ := k.WatchedFiles(ctx, id)
		owner := ""
		for rel, f := range files {
			if f.DocumentID == d1 && f.Owned {
				owner = rel
			}
		}
		if owner != step.owner {
			t.Errorf("%s: owner %q, want %q", step.name, owner, step.owner)
		}
	}

	if gone, err := k.RemoveWatchedFolder(ctx, id, true); err != nil || gone != nil {
		t.Errorf("remove, keeping documents: %v %v", gone, err)
	}
	if files, _ := k.WatchedFiles(ctx, id); len(files) != 0 || k.WatchedFolderExists(ctx, id) {
		t.Errorf("after remove: %d files, exists %v", len(files), k.WatchedFolderExists(ctx, id))
	}
	if _, err := k.RemoveWatchedFolder(ctx, id, false); !errors.Is(err, ErrNotFound) {
		t.Errorf("removing it again: %v", err)
	}
	id2, _ := k.AddWatchedFolder(ctx, c.ID, "/w2")
	k.ApplyWatchedFiles(ctx, id2, nil, []WatchedFile{{Rel: "b.pdf", Size: 2, SHA256: "2", DocumentID: d2, Owned: true}})
	if gone, err := k.RemoveWatchedFolder(ctx, id2, false); err != nil || !slices.Equal(gone, []int64{d2}) {
		t.Errorf("remove: gone %v %v, want [%d]", gone, err, d2)
	}
}
