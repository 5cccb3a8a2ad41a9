package search

import (
	"context"
	"maps"
	"reflect"
	"testing"

	"proofglass/backend/kb"
)

func TestParseQuestion(t *testing.T) {
	cases := map[string]struct {
		q      string
		text   string
		labels []label
		pages  []pageRef
	}{
		"instruction-sentence": {q: "How many prompts are in Figure 5? Please write down the answer in integer format.",
			text: "How many prompts are in Figure 5?", labels: []label{{"figure", "5"}}},
		"directly-answer": {q: "Is there a signature on the last page? Directly answer 'yes' or 'no'.",
			text: "Is there a signature on the last page?", pages: []pageRef{{last: true}}},
		"format-and-example": {q: "What date is at the top of page(1)? Format the date as YYYY-MM-DD. For example: 2020-01-02.",
			text: "What date is at the top of page(1)?", pages: []pageRef{{n: 1}}},
		"only-instructions-kept": {q: "Please answer.", text: "Please answer."},
		"decimal-not-a-sentence": {q: "Does Section 3.3 cite more papers than Sec. 3.1?",
			text: "Does Section 3.3 cite more papers than Sec. 3.1?", labels: []label{{"section", "3.3"}, {"section", "3.1"}}},
		"range": {q: "Among figure 1-4, how many show a gash?", text: "Among figure 1-4, how many show a gash?",
			labels: []label{{"figure", "1"}, {"figure", "2"}, {"figure", "3"}, {"figure", "4"}}},
		"list": {q: "For the papers in Table 1 and Table 2, how many are from 2021?",
			text: "For the papers in Table 1 and Table 2, how many are from 2021?", labels: []label{{"table", "1"}, {"table", "2"}}},
		"ordinal-figure": {q: "What names are in the first figure in the paper?", text: "What names are in the first figure in the paper?",
			labels: []label{{"figure", "1"}}},
		"ordinal-table": {q: "Which dataset tops the Second Table?", text: "Which dataset tops the Second Table?",
			labels: []label{{"table", "2"}}},
		"first-not-a-label": {q: "Which figure is first?", text: "Which figure is first?"},
		"cover-page": {q: "How many websites are on the cover page?", text: "How many websites are on the cover page?",
			pages: []pageRef{{n: 1}}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := parseQuestion(c.q)
			if got.text != c.text || !reflect.DeepEqual(got.labels, c.labels) || !reflect.DeepEqual(got.pages, c.pages) {
				t.Errorf("parseQuestion(%q) = %+v, want text %q labels %v pages %v", c.q, got, c.text, c.labels, c.pages)
			}
		})
	}
}

func TestCaptionRE(t *testing.T) {
	cases := map[string]struct {
		l    label
		text string
		want bool
	}{
		"figure-caption":  {label{"figure", "2"}, "some text\nFigure 2: Overview of our model", true},
		"fig-abbrev":      {label{"figure", "2"}, "Fig. 2. A breccia gash", true},
		"fig-ocr-spaced":  {label{"figure", "2"}, "FIG . 1 .\nFIG . 2 .\nDiagram", true},
		"tab-abbrev":      {label{"table", "4"}, "Tab. 4: Results", true},
		"figure-mention":  {label{"figure", "2"}, "as shown in Figure 2, the model", false},
		"other-number":    {label{"figure", "2"}, "Figure 12: Something", false},
		"table-caption":   {label{"table", "1"}, "Table 1. Results on HOVER", true},
		"section-heading": {label{"section", "3.3"}, "intro\n3.3 Post-hoc Correction\ntext", true},
		"section-in-text": {label{"section", "3.3"}, "we use 3.3 million examples", false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := captionRE(c.l).MatchString(c.text); got != c.want {
				t.Errorf("captionRE(%v) on %q = %v, want %v", c.l, c.text, got, c.want)
			}
		})
	}
}

// structureKB holds two documents whose pages mention, caption and surround "Figure 2" and "Table 1".
func structureKB(t *testing.T) (*kb.KB, map[string]int64) {
	t.Helper()
	ctx := context.Background()
	k := openKB(t)
	c := collection(t, k, "s")
	docs := map[string][]string{
		"paper.pdf": {
			"Introduction. As Figure 2 shows, the pipeline has three modules; Table 1 lists the datasets.",
			"Related work on symbolic solvers and program execution.",
			"Results\nFigure 2: Overview of the pipeline with a formulator, a reasoner and an interpreter.",
			"Table 1. Datasets used for evaluation with their sizes.",
			"Conclusion and signature of the authors.",
		},
		"report.pdf": {
			"Cover of the annual report.",
			"Contents and chapters of the annual report.",
			"The last page of the report lists contacts.",
		},
	}
	ids := map[string]int64{}
	for _, name := range []string{"paper.pdf", "report.pdf"} {
		pages := docs[name]
		d, _, err := k.Docs.AddDocument(ctx, kb.Document{CollectionID: c.ID, SHA256: name, Name: name, Kind: "pdf",
			Status: kb.StatusReady, Pages: len(pages)})
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = d.ID
		for i, text := range pages {
			if _, err := k.Content.PutUnit(ctx, kb.Unit{DocumentID: d.ID, Ordinal: i + 1, Kind: kb.UnitPage, Width: 600,
				Height: 800, Text: text, TextSource: kb.TextLayer}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return k, ids
}

func TestLabelSignalPrefersCaptions(t *testing.T) {
	k, _ := structureKB(t)
	s := New(k, Options{})
	cases := map[string]struct {
		q    string
		page int
	}{
		"figure": {"What is the title of Figure 2?", 3},
		"table":  {"Which datasets are in Table 1?", 4},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			on := &StructureWeights{Label: 1}
			res, err := s.Search(context.Background(), Query{Text: c.q, K: 3, Mode: BM25, Structure: on})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 || res.Hits[0].Doc != "paper.pdf" || res.Hits[0].Page != c.page {
				t.Fatalf("with labels, first hit %+v; want paper.pdf page %d (the caption)", res.Hits, c.page)
			}
		})
	}
}

// TestLabelSignalAbbreviated checks that a caption written "Fig. 3." is found for "Figure 3" although the page
// never spells the word out.
func TestLabelSignalAbbreviated(t *testing.T) {
	pages := []string{
		"The title of each figure stands below it; the title of the third figure names the gash.",
		"Fig. 3. Diagram of a breccia gash.",
	}
	got := firstPageWith(t, pages, "What is the title of Figure 3?",
		map[string]StructureWeights{"bm25-alone": {}, "labels": {Label: 1}})
	if want := map[string]int{"bm25-alone": 1, "labels": 2}; !maps.Equal(got, want) {
		t.Errorf("first pages %v, want %v", got, want)
	}
}

func TestPageReferenceSignal(t *testing.T) {
	k, ids := structureKB(t)
	s := New(k, Options{})
	// The words match nothing better than page 5 of paper.pdf ("signature"): the last page of each document is named.
	res, err := s.Search(context.Background(), Query{Text: "Is there a signature on the last page?", K: 3, Mode: BM25,
		DocumentIDs: []int64{ids["report.pdf"]}, Structure: &StructureWeights{Page: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Page != 3 {
		t.Fatalf("hits %+v; want report.pdf's last page (3) first", res.Hits)
	}
	for _, h := range res.Hits {
		if h.DocumentID != ids["report.pdf"] {
			t.Errorf("hit %s page %d outside the scope", h.Doc, h.Page)
		}
	}
}

func TestParseStructure(t *testing.T) {
	with := func(f func(*StructureWeights)) StructureWeights {
		w := DefaultStructure
		f(&w)
		return w
	}
	cases := map[string]struct {
		in   string
		want StructureWeights
		ok   bool
	}{
		"empty":   {"", DefaultStructure, true},
		"one":     {"label=0.3", with(func(w *StructureWeights) { w.Label = 0.3 }), true},
		"several": {" doc=0, page=2 ,passage=0.5", with(func(w *StructureWeights) { w.Doc, w.Page, w.Passage = 0, 2, 0.5 }), true},
		"all": {"doc=1,label=2,page=3,name=4,figure=5,passage=6,facet=7",
			StructureWeights{Doc: 1, Label: 2, Page: 3, Name: 4, Figure: 5, Passage: 6, Facet: 7}, true},
		"unknown": {"bm25=1", StructureWeights{}, false},
		"neg":     {"doc=-1", StructureWeights{}, false},
		"inf":     {"doc=Inf", StructureWeights{}, false},
		"nan":     {"label=NaN", StructureWeights{}, false},
		"noeq":    {"label", StructureWeights{}, false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseStructure(c.in)
			if (err == nil) != c.ok || (c.ok && got != c.want) {
				t.Errorf("ParseStructure(%q) = %+v, %v", c.in, got, err)
			}
		})
	}
}
