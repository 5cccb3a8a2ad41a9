package kb

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestFullTextAndScope(t *testing.T) {
	ctx := context.Background()
	k := openTest(t)
	a, _ := k.Docs.CreateCollection(ctx, Collection{Name: "a"})
	b, _ := k.Docs.CreateCollection(ctx, Collection{Name: "b"})
	doc := func(coll int64, sha, kind string, pages int) int64 {
		return addDoc(t, k, Document{CollectionID: coll, SHA256: sha, Name: sha, Kind: kind, Pages: pages})
	}
	pdfA, imgA, pdfB := doc(a.ID, "1", "pdf", 2), doc(a.ID, "2", "image", 1), doc(b.ID, "3", "pdf", 2)
	unit := func(d int64, ord int, text string) int64 {
		return addUnit(t, k, Unit{DocumentID: d, Ordinal: ord, Kind: UnitPage, Text: text})
	}
	a1 := unit(pdfA, 1, "Figure 2: variance of the weight gain")
	a2 := unit(pdfA, 2, "variance variance variance analysis")
	i1 := unit(imgA, 1, "a chart of variance")
	b1 := unit(pdfB, 1, "regression only")
	b2 := unit(pdfB, 2, "日本語の文書です variance")
	all := Scope{Collections: map[int64]bool{a.ID: true, b.ID: true}}
	onlyA := Scope{Collections: map[int64]bool{a.ID: true}}
	pdfsOfA := Scope{Collections: map[int64]bool{a.ID: true}, Kinds: map[string]bool{"pdf": true}}
	docB := Scope{Collections: map[int64]bool{a.ID: true, b.ID: true}, Documents: map[int64]bool{pdfB: true}}

	for _, tc := range []struct {
		name string
		sc   Scope
		want []int64
	}{{"all", all, []int64{pdfA, imgA, pdfB}}, {"a", onlyA, []int64{pdfA, imgA}}, {"pdfs of a", pdfsOfA, []int64{pdfA}},
		{"document of b", docB, []int64{pdfB}}} {
		docs, err := k.Search.ScopeDocuments(ctx, tc.sc)
		if err != nil || len(docs) != len(tc.want) {
			t.Errorf("ScopeDocuments %s: %v %v", tc.name, docs, err)
		}
		for _, d := range tc.want {
			if !docs[d] {
				t.Errorf("ScopeDocuments %s lacks %d", tc.name, d)
			}
		}
	}
	ids := func(r Ranked, err error) []int64 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if len(r.IDs) != len(r.Scores) {
			t.Fatalf("%d ids, %d scores", len(r.IDs), len(r.Scores))
		}
		for i := 1; i < len(r.Scores); i++ {
			if r.Scores[i] > r.Scores[i-1] {
				t.Errorf("not best first: %v", r.Scores)
			}
		}
		return r.IDs
	}
	if got := ids(k.Search.RankFTS(ctx, `"variance"`, nil, 10)); len(got) != 4 || got[0] != a2 {
		t.Errorf("RankFTS everything: %v, want a2 (%d) first of 4", got, a2)
	}
	if got := ids(k.Search.RankFTS(ctx, `"variance"`, &pdfsOfA, 10)); !slices.Equal(got, []int64{a2, a1}) {
		t.Errorf("RankFTS pdfs of a: %v", got)
	}
	if got := ids(k.Search.RankFTS(ctx, `"variance"`, nil, 1)); !slices.Equal(got, []int64{a2}) {
		t.Errorf("RankFTS depth 1: %v", got)
	}
	if got := ids(k.Search.RankFTSBigram(ctx, `"日本" OR "本語"`, all, 10)); !slices.Equal(got, []int64{b2}) {
		t.Errorf("RankFTSBigram: %v", got)
	}
	if got := ids(k.Search.RankFTSBigram(ctx, `"日本" OR "本語"`, onlyA, 10)); len(got) != 0 {
		t.Errorf("RankFTSBigram out of scope: %v", got)
	}
	r, err := k.Search.RankSubstrings(ctx, []string{"variance", "weight", "本"}, all, 10)
	// a1 and b2 contain two of the terms, a2 and i1 one: by count, then id.
	if got := ids(r, err); !slices.Equal(got, []int64{a1, b2, a2, i1}) || !slices.Equal(r.Scores, []float64{2, 2, 1, 1}) {
		t.Errorf("RankSubstrings: %v %v", got, r.Scores)
	}
	ms, err := k.Search.MatchingUnitTexts(ctx, `"figure 2" OR "fig 2"`, onlyA, 50)
	if err != nil || len(ms) != 1 || ms[0] != (UnitText{ID: a1, Text: "Figure 2: variance of the weight gain"}) {
		t.Errorf("MatchingUnitTexts: %+v %v", ms, err)
	}
	for _, tc := range []struct {
		sc      Scope
		ordinal int
		last    bool
		want    []int64
	}{{all, 2, false, []int64{a2, b2}}, {onlyA, 1, false, []int64{a1, i1}}, {all, 0, true, []int64{a2, i1, b2}}, {docB, 1, false, []int64{b1}}} {
		got, err := k.Search.UnitsAtOrdinal(ctx, tc.sc, tc.ordinal, tc.last)
		slices.Sort(got)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("UnitsAtOrdinal(%d, %v): %v %v, want %v", tc.ordinal, tc.last, got, err, tc.want)
		}
	}
	texts, err := k.Search.UnitTexts(ctx, []int64{a1, b1, 9999})
	if err != nil || len(texts) != 2 || texts[b1] != "regression only" {
		t.Errorf("UnitTexts: %v %v", texts, err)
	}
	udocs, err := k.Search.UnitDocuments(ctx, []int64{a1, i1, b2})
	if err != nil || len(udocs) != 3 || udocs[a1] != pdfA || udocs[i1] != imgA || udocs[b2] != pdfB {
		t.Errorf("UnitDocuments: %v %v", udocs, err)
	}
	ds, err := k.Search.DocumentsByID(ctx, []int64{imgA, 9999})
	if err != nil || len(ds) != 1 || ds[imgA].CollectionID != a.ID || ds[imgA].Name != "2" || ds[imgA].Kind != "image" {
		t.Errorf("DocumentsByID: %+v %v", ds, err)
	}
	if none, err := k.Search.UnitTexts(ctx, nil); err != nil || len(none) != 0 {
		t.Errorf("UnitTexts of none: %v %v", none, err)
	}
}

func TestEachLibraryUnitText(t *testing.T) {
	ctx := context.Background()
	k, c := openWithCollection(t)
	d, _, _ := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "x", Name: "x.pdf", Kind: "pdf", Pages: 3})
	for i, text := range []string{"first page", "second page", "third page"} {
		if _, err := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: i + 1, Kind: UnitPage, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	stop := errors.New("stop")
	err := k.Search.EachLibraryUnitText(ctx, func(text string) error {
		got = append(got, text)
		if len(got) == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || !slices.Equal(got, []string{"first page", "second page"}) {
		t.Errorf("EachLibraryUnitText: %q, %v; want the first two in order, then fn's error", got, err)
	}
}
