package search

import (
	"context"
	"testing"
)

func TestFolio(t *testing.T) {
	cases := map[string]struct {
		text string
		n    int
		ok   bool
	}{
		"header":         {"9\n\nto American farms and ranches", 9, true},
		"parenthesised":  {"(1)\n\nIMPROVING THE QUALITY", 1, true},
		"footer":         {"a unique reasoning chain.\n\n6985\n", 6985, true},
		"page-of":        {"USCA11 Case\nbody text\nPage 3 of 17", 3, true},
		"dashes":         {"- 7 -\nbody", 7, true},
		"number-in-text": {"We used 12 examples\nand more text", 0, false},
		"year-line-only": {"Results\n2021 was a good year\nend", 0, false},
		"empty":          {"", 0, false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			n, ok := folio(c.text)
			if n != c.n || ok != c.ok {
				t.Errorf("folio(%q) = %d, %v; want %d, %v", c.text, n, ok, c.n, c.ok)
			}
		})
	}
}

// TestPrintedPageReference checks that "page 1" also names the page that prints "1" after two pages of front
// matter.
func TestPrintedPageReference(t *testing.T) {
	ctx := context.Background()
	k := openKB(t)
	c := collection(t, k, "f")
	pages := []string{
		"Annual report cover",
		"Preface and contents",
		"1\nThe survey.",
		"2\nThe survey results: 1 table of results, results by region, results by age.",
	}
	addTextPages(t, k, c, "f", pages)
	s := New(k, Options{})
	cases := map[string]struct {
		w     StructureWeights
		first int
	}{
		"words-alone":     {StructureWeights{}, 4},
		"page-references": {StructureWeights{Page: 1}, 3},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := s.Search(ctx, Query{Text: "What are the survey results on page 1?", K: 4, Mode: BM25, Structure: &tc.w})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 || res.Hits[0].Page != tc.first {
				t.Fatalf("hits %+v; want page %d first", res.Hits, tc.first)
			}
		})
	}
}
