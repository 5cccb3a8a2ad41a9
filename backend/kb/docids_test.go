package kb

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestDocumentIDsByName(t *testing.T) {
	ctx := context.Background()
	k, c := openWithCollection(t)
	other, _ := k.Docs.CreateCollection(ctx, Collection{Name: "other"})
	add := func(coll int64, sha, name string) int64 {
		return addDoc(t, k, Document{CollectionID: coll, SHA256: sha, Name: name, Kind: "pdf"})
	}
	a := add(c.ID, "1", "a.pdf")
	padded := add(c.ID, "2", " a.pdf ")
	dupOld := add(c.ID, "3", "dup.pdf")
	add(c.ID, "4", "dup.pdf")
	add(other.ID, "5", "b.pdf")
	got, err := k.Docs.DocumentIDsByName(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		id   int64
		ok   bool
	}{
		{"a.pdf", a, true},
		{" a.pdf ", padded, true}, // as stored, not trimmed: it would collide with a.pdf
		{"dup.pdf", dupOld, true}, // the older of two with one name
		{"b.pdf", 0, false},       // another collection's
		{"a.pdf\n", 0, false},
	} {
		if id, ok := got[tc.name]; ok != tc.ok || id != tc.id {
			t.Errorf("%q: got %d %v, want %d %v", tc.name, id, ok, tc.id, tc.ok)
		}
	}
	if len(got) != 3 {
		t.Errorf("got %d names, want 3: %v", len(got), got)
	}
	if _, err := k.Docs.DocumentIDsByName(ctx, "missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing collection: %v, want ErrNotFound", err)
	}
}

func TestDocumentIDsNamed(t *testing.T) {
	ctx := context.Background()
	k := openTest(t)
	a, _ := k.Docs.CreateCollection(ctx, Collection{Name: "a"})
	b, _ := k.Docs.CreateCollection(ctx, Collection{Name: "b"})
	add := func(coll int64, sha, name string) int64 {
		d, _, _ := k.Docs.AddDocument(ctx, Document{CollectionID: coll, SHA256: sha, Name: name, Kind: "pdf"})
		return d.ID
	}
	x1, x2, xb := add(a.ID, "1", "x.pdf"), add(a.ID, "2", "x.pdf"), add(b.ID, "3", "x.pdf")
	add(a.ID, "4", "y.pdf")
	for _, tc := range []struct {
		name string
		coll int64
		want []int64
	}{
		{"x.pdf", 0, []int64{x1, x2, xb}},
		{"x.pdf", a.ID, []int64{x1, x2}},
		{"x.pdf", b.ID, []int64{xb}},
		{"X.pdf", 0, nil},
		{"z.pdf", 0, nil},
	} {
		got, err := k.Docs.DocumentIDsNamed(ctx, tc.name, tc.coll)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q in %d: %v %v, want %v", tc.name, tc.coll, got, err, tc.want)
		}
	}
}
