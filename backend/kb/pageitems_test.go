package kb

import (
	"context"
	"testing"
)

func TestPageItems(t *testing.T) {
	ctx := context.Background()
	k := openTest(t)
	a, _ := k.Docs.CreateCollection(ctx, Collection{Name: "a"})
	b, _ := k.Docs.CreateCollection(ctx, Collection{Name: "b"})
	doc := func(coll int64, sha, status string) int64 {
		return addDoc(t, k, Document{CollectionID: coll, SHA256: sha, Name: sha + ".pdf", Kind: "pdf", Status: status,
			SourcePath: "/src/" + sha + ".pdf"})
	}
	d1, d2, d3 := doc(a.ID, "1", StatusReady), doc(a.ID, "2", StatusIngesting), doc(b.ID, "3", StatusReady)
	unit := func(d int64, ord int) int64 {
		return addUnit(t, k, Unit{DocumentID: d, Ordinal: ord, Kind: UnitPage, ImageBlob: "img", ThumbBlob: "th"})
	}
	u12, u11, u21, u31 := unit(d1, 2), unit(d1, 1), unit(d2, 1), unit(d3, 1)

	got, err := k.Search.PageItems(ctx, []int64{u12, u31, 9999})
	if err != nil || len(got) != 2 {
		t.Fatalf("PageItems: %v %v", got, err)
	}
	want := PageItem{UnitID: u12, Ordinal: 2, UnitKind: UnitPage, ImageBlob: "img", ThumbBlob: "th", DocID: d1, DocName: "1.pdf",
		DocKind: "pdf", SHA256: "1", SourcePath: "/src/1.pdf", Collection: "a"}
	if got[u12] != want || got[u31].Collection != "b" {
		t.Errorf("PageItems: %+v", got)
	}
	many := make([]int64, 1200) // more than one chunk of ids
	for i := range many {
		many[i] = int64(i + 1)
	}
	if all, err := k.Search.PageItems(ctx, many); err != nil || len(all) != 4 {
		t.Errorf("PageItems over chunks: %d %v", len(all), err)
	}
	for _, tc := range []struct {
		colls []string
		n     int
		want  []int64
	}{
		{nil, 10, []int64{u11, u12, u31}}, // ready documents only, by document then page
		{[]string{"a"}, 10, []int64{u11, u12}},
		{[]string{"b", "a"}, 2, []int64{u11, u12}},
		{[]string{"none"}, 10, nil},
	} {
		its, err := k.Search.ReadyPageItems(ctx, tc.colls, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, it := range its {
			ids = append(ids, it.UnitID)
		}
		if len(ids) != len(tc.want) {
			t.Errorf("%v %d: %v, want %v", tc.colls, tc.n, ids, tc.want)
			continue
		}
		for i := range ids {
			if ids[i] != tc.want[i] {
				t.Errorf("%v %d: %v, want %v", tc.colls, tc.n, ids, tc.want)
				break
			}
		}
	}
	_ = u21
}
