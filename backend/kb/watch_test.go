package kb

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestWatchTables(t *testing.T) {
	ctx := context.Background()
	k, c := openWithCollection(t)
	doc := func(sha string) int64 {
		return addDoc(t, k, Document{CollectionID: c.ID, SHA256: sha, Name: sha + ".pdf", Kind: "pdf"})
	}
	d1, d2 := doc("1"), doc("2")
	id, err := k.Watch.AddWatchedFolder(ctx, c.ID, "/w")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := k.Watch.AddWatchedFolder(ctx, c.ID, "/w"); again != id || !errors.Is(err, ErrAlreadyWatched) {
		t.Fatalf("second add: %d %v", again, err)
	}
	if !k.Watch.WatchedFolderExists(ctx, id) || k.Watch.WatchedFolderExists(ctx, id+1) {
		t.Fatal("WatchedFolderExists")
	}
	gone, err := k.Watch.ApplyWatchedFiles(ctx, id, nil, []WatchedFile{
		{Rel: "a.pdf", Size: 1, MtimeNS: 10, SHA256: "1", DocumentID: d1, Owned: true},
		{Rel: "sub/a-copy.pdf", Size: 1, MtimeNS: 11, SHA256: "1", DocumentID: d1},
		{Rel: "b.pdf", Size: 2, MtimeNS: 12, SHA256: "2", DocumentID: d2, Owned: true},
		{Rel: "notes.txt", Size: 3, MtimeNS: 13},
	})
	if err != nil || len(gone) != 0 {
		t.Fatalf("first apply: %v %v", gone, err)
	}
	at := time.UnixMilli(time.Now().UnixMilli())
	if err := k.Watch.SetWatchScanned(ctx, id, at, ""); err != nil {
		t.Fatal(err)
	}
	if err := k.Watch.SetWatchScanned(ctx, id, time.Time{}, "partly unreadable"); err != nil {
		t.Fatal(err)
	}
	fs, err := k.Watch.WatchedFolders(ctx)
	if err != nil || len(fs) != 1 {
		t.Fatalf("folders: %v %v", fs, err)
	}
	if f := fs[0]; f.ID != id || f.Collection != "c" || f.Path != "/w" || f.Files != 4 || f.Documents != 2 ||
		!f.ScannedAt.Equal(at) || f.Error != "partly unreadable" {
		t.Errorf("folder %+v", f)
	}
	files, err := k.Watch.WatchedFiles(ctx, id)
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
		gone, err := k.Watch.ApplyWatchedFiles(ctx, id, step.remove, step.put)
		if err != nil || !slices.Equal(gone, step.gone) {
			t.Errorf("%s: gone %v %v, want %v", step.name, gone, err, step.gone)
		}
		files, _ := k.Watch.WatchedFiles(ctx, id)
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

	if gone, err := k.Watch.RemoveWatchedFolder(ctx, id, true); err != nil || gone != nil {
		t.Errorf("remove, keeping documents: %v %v", gone, err)
	}
	if files, _ := k.Watch.WatchedFiles(ctx, id); len(files) != 0 || k.Watch.WatchedFolderExists(ctx, id) {
		t.Errorf("after remove: %d files, exists %v", len(files), k.Watch.WatchedFolderExists(ctx, id))
	}
	if _, err := k.Watch.RemoveWatchedFolder(ctx, id, false); !errors.Is(err, ErrNotFound) {
		t.Errorf("removing it again: %v", err)
	}
	id2, _ := k.Watch.AddWatchedFolder(ctx, c.ID, "/w2")
	k.Watch.ApplyWatchedFiles(ctx, id2, nil, []WatchedFile{{Rel: "b.pdf", Size: 2, SHA256: "2", DocumentID: d2, Owned: true}})
	if gone, err := k.Watch.RemoveWatchedFolder(ctx, id2, false); err != nil || !slices.Equal(gone, []int64{d2}) {
		t.Errorf("remove: gone %v %v, want [%d]", gone, err, d2)
	}
}

// A document created for a watched file is that file's in the same transaction (AddDocumentClaimed); the version
// it replaces is journalled for deletion there too; the same content back while journalled is claimed again instead
// of deleted; a folder no longer watched creates nothing; DeleteDocuments clears the journal with the documents.
func TestWatchClaimsAndJournal(t *testing.T) {
	ctx := context.Background()
	k, c := openWithCollection(t)
	id, err := k.Watch.AddWatchedFolder(ctx, c.ID, "/w")
	if err != nil {
		t.Fatal(err)
	}
	claim := &WatchClaim{FolderID: id, Rel: "a.png", Size: 3, MtimeNS: 30, Mode: 0o644}
	add := func(sha string, cl *WatchClaim) (Document, bool) {
		t.Helper()
		d, existed, err := k.Docs.AddDocumentClaimed(ctx, Document{CollectionID: c.ID, SHA256: sha, Name: "a.png", Kind: "image"}, cl)
		if err != nil {
			t.Fatal(err)
		}
		return d, existed
	}
	row := func() WatchedFile {
		t.Helper()
		files, err := k.Watch.WatchedFiles(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return files["a.png"]
	}
	pending := func() []int64 {
		t.Helper()
		ids, err := k.Docs.PendingDeletions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}

	v1, _ := add("v1", claim)
	if r := row(); r.DocumentID != v1.ID || !r.Owned || r.SHA256 != "v1" || r.Size != 3 || r.MtimeNS != 30 || r.Mode != 0o644 {
		t.Fatalf("the claim's row: %+v", r)
	}
	// The user names the organisation of the first version; the new version below keeps it.
	if err := k.Facets.SetUserFacet(ctx, v1.ID, Facet{Name: "org", Value: "Acme", Norm: "acme"}); err != nil {
		t.Fatal(err)
	}
	// The file changed: the new version's claim releases the old one, journalled in the same transaction.
	v2, _ := add("v2", &WatchClaim{FolderID: id, Rel: "a.png", Size: 4, MtimeNS: 40, Mode: 0o644})
	if fs, err := k.Facets.DocumentFacets(ctx, []int64{v2.ID}); err != nil || len(fs[v2.ID]) != 1 || fs[v2.ID][0].Value != "Acme" || fs[v2.ID][0].Source != "user" {
		t.Errorf("facets of the new version: %+v %v, want the user's org Acme", fs[v2.ID], err)
	}
	if r := row(); r.DocumentID != v2.ID || !r.Owned {
		t.Errorf("after the change: %+v", r)
	}
	if got := pending(); !slices.Equal(got, []int64{v1.ID}) {
		t.Errorf("journal %v, want the old version %d", got, v1.ID)
	}
	// The old content comes back before the deletion ran: the journalled document is claimed, not deleted.
	again, existed := add("v1", claim)
	if !existed || again.ID != v1.ID {
		t.Errorf("old content back: document %d existed %v, want %d", again.ID, existed, v1.ID)
	}
	if r := row(); r.DocumentID != v1.ID || !r.Owned {
		t.Errorf("old content back: row %+v", r)
	}
	if got := pending(); !slices.Equal(got, []int64{v2.ID}) {
		t.Errorf("journal %v, want %d only", got, v2.ID)
	}
	// The same content without a claim (an `add` by hand) changes nothing.
	if _, existed := add("v1", nil); !existed {
		t.Error("same content by hand was not found")
	}
	gone, err := k.Docs.DeleteDocuments(ctx, pending())
	if err != nil || len(gone) != 1 || gone[0].ID != v2.ID {
		t.Fatalf("DeleteDocuments: %+v %v", gone, err)
	}
	if got := pending(); len(got) != 0 {
		t.Errorf("journal after the deletion: %v", got)
	}
	if _, err := k.Watch.RemoveWatchedFolder(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	if got := pending(); !slices.Equal(got, []int64{v1.ID}) {
		t.Errorf("journal after remove %v, want %d", got, v1.ID)
	}
	_, _, err = k.Docs.AddDocumentClaimed(ctx, Document{CollectionID: c.ID, SHA256: "v3", Name: "b.png", Kind: "image"},
		&WatchClaim{FolderID: id, Rel: "b.png"})
	if err == nil || !strings.Contains(err.Error(), "no longer watched") {
		t.Errorf("a claim for a removed folder: %v", err)
	}
	if ds, _ := k.Docs.Documents(ctx, c.ID); len(ds) != 1 {
		t.Errorf("%d documents, want only the journalled one", len(ds))
	}
}
