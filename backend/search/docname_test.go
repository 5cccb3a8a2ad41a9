package search

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"proofglass/backend/glove"
	"proofglass/backend/kb"
)

func TestNameShare(t *testing.T) {
	tb, err := glove.Default()
	if err != nil {
		t.Fatal(err)
	}
	w := func(word string) float64 { return wordWeight(tb, word) }
	limes := w("telephone") + w("limes") + w("residential") + w("home")
	cases := map[string]struct {
		question, name string
		want           float64
	}{
		"phrase":          {"What is the telephone no for The Limes Residential Home?", "The Limes Residential Home\nInspection report", (w("limes") + w("residential") + w("home")) / limes},
		"words-apart":     {"What is the telephone no for The Limes Residential Home?", "Residential care at the Limes Home", 0},
		"stop-words-skip": {"Which individual lead the Climate and Health program?", "Impacts of Climate Change on Human Health", 0},
		"stop-in-between": {"How does climate change affect crops?", "Climate and the change of agriculture", (w("change") + w("climate")) / (w("change") + w("climate") + w("affect") + w("crops"))},
		"inflections":     {"How many breccia gashes are drawn?", "On the Breccia-Gash of the Durham coast", (w("breccia") + w("gashes")) / (w("breccia") + w("gashes") + w("drawn"))},
		"reversed-order":  {"Which residential home is this?", "Home, residential", 0},
		"none":            {"What is the date?", "Exhibit 300 summary", 0},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			q, err := newQueryWords(c.question)
			if err != nil {
				t.Fatal(err)
			}
			if got := q.nameShare(contentStems(c.question), contentStems(c.name)); math.Abs(got-c.want) > 1e-9 {
				t.Errorf("nameShare(%q, %q) = %v, want %v", c.question, c.name, got, c.want)
			}
		})
	}
}

func TestDocName(t *testing.T) {
	long := ""
	for i := 0; i < docNameWords+10; i++ {
		long += " w"
	}
	cases := map[string]struct {
		file, meta, first string
		has, lacks        []string
	}{
		"file-title-cover": {"dir/Annual_Report.pdf", `{"pdf":{"title":"The Limes"}}`, "Cover words", []string{"Annual_Report", "The Limes", "Cover words"}, []string{".pdf", "dir"}},
		"bad-meta":         {"a.pdf", `{`, "Cover", []string{"a\n", "Cover"}, nil},
		"first-words-only": {"a.pdf", `{}`, "Title" + long + " tail", []string{"Title"}, []string{"tail"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := docName(c.file, c.meta, c.first)
			for _, s := range c.has {
				if !strings.Contains(got, s) {
					t.Errorf("docName = %q, want it to hold %q", got, s)
				}
			}
			for _, s := range c.lacks {
				if strings.Contains(got, s) {
					t.Errorf("docName = %q, want it without %q", got, s)
				}
			}
		})
	}
}

// TestDocNameSignal checks that a question naming its document by a phrase of its cover lifts that document's page
// above a page of another document that BM25 alone prefers.
func TestDocNameSignal(t *testing.T) {
	ctx := context.Background()
	k := openKB(t)
	c := collection(t, k, "n")
	docs := map[string][]string{
		"other.pdf": {"Annual budget overview of the county.", "Office telephone number: the telephone number is 555 0100."},
		"limes.pdf": {"The Limes Residential Home. Inspection report, April 2015.", "Contact: telephone 555 0199."},
	}
	ids := map[string]int64{}
	for _, name := range []string{"other.pdf", "limes.pdf"} {
		d, _, err := k.Docs.AddDocument(ctx, kb.Document{CollectionID: c.ID, SHA256: name, Name: name, Kind: "pdf",
			Status: kb.StatusReady, Pages: len(docs[name])})
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = d.ID
		for i, text := range docs[name] {
			if _, err := k.Content.PutUnit(ctx, kb.Unit{DocumentID: d.ID, Ordinal: i + 1, Kind: kb.UnitPage, Width: 600,
				Height: 800, Text: text, TextSource: kb.TextLayer}); err != nil {
				t.Fatal(err)
			}
		}
	}
	s := New(k, Options{})
	rank := func(hits []Hit, doc string, page int) int {
		return slices.IndexFunc(hits, func(h Hit) bool { return h.DocumentID == ids[doc] && h.Page == page })
	}
	cases := map[string]struct {
		question  string
		name      float64
		limesWins bool
	}{
		"bm25-alone":     {"What is the telephone number of The Limes Residential Home?", 0, false},
		"named":          {"What is the telephone number of The Limes Residential Home?", 1, true},
		"named-no-match": {"What is the telephone number of the residential limes home?", 1, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := s.Search(ctx, Query{Text: tc.question, K: 4, Mode: BM25, Structure: &StructureWeights{Name: tc.name}})
			if err != nil {
				t.Fatal(err)
			}
			other, limes := rank(res.Hits, "other.pdf", 2), rank(res.Hits, "limes.pdf", 2)
			if other < 0 || limes < 0 {
				t.Fatalf("hits %+v: want both telephone pages", res.Hits)
			}
			if (limes < other) != tc.limesWins {
				t.Errorf("limes.pdf page 2 at %d, other.pdf page 2 at %d; want limes first: %v", limes, other, tc.limesWins)
			}
		})
	}
}
