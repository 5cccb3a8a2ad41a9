package search

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"proofglass/backend/fixture"
	"proofglass/backend/glove"
	"proofglass/backend/kb"
	"proofglass/backend/kb/kbtest"
)

func testdata(t testing.TB, rel string) string { return fixture.Path(t, rel) }

func openKB(t testing.TB) *kb.KB { return kbtest.Open(t) }

type page struct {
	w, h  float64
	words []kb.Word
}

var (
	pageRE = regexp.MustCompile(`<page width="([\d.]+)" height="([\d.]+)">`)
	wordRE = regexp.MustCompile(`<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>`)
)

// pdfPages extracts every page's words with their boxes in points using poppler's pdftotext, an extractor
// independent of Proofglass's own, so the search tests do not depend on the ingest pipeline.
func pdfPages(t testing.TB, path string) []page {
	t.Helper()
	fixture.Command(t, "pdftotext")
	out, err := exec.Command("pdftotext", "-bbox", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext -bbox %s: %v", path, err)
	}
	var pages []page
	for _, line := range strings.Split(string(out), "\n") {
		if m := pageRE.FindStringSubmatch(line); m != nil {
			w, _ := strconv.ParseFloat(m[1], 64)
			h, _ := strconv.ParseFloat(m[2], 64)
			pages = append(pages, page{w: w, h: h})
			continue
		}
		if m := wordRE.FindStringSubmatch(line); m != nil && len(pages) > 0 {
			var f [4]float64
			for i := range f {
				f[i], _ = strconv.ParseFloat(m[i+1], 64)
			}
			p := &pages[len(pages)-1]
			p.words = append(p.words, kb.Word{Text: html.UnescapeString(m[5]), X0: f[0], Y0: f[1], X1: f[2], Y1: f[3]})
		}
	}
	if len(pages) == 0 {
		t.Fatalf("pdftotext found no pages in %s", path)
	}
	return pages
}

func pageText(p page) string {
	ws := make([]string, len(p.words))
	for i, w := range p.words {
		ws[i] = w.Text
	}
	return strings.Join(ws, " ")
}

// addPDF stores a PDF's pages as units of a new document in the collection, with built-in text vectors, the way
// ingest does, and returns the document id.
func addPDF(t testing.TB, k *kb.KB, coll kb.Collection, path string) int64 {
	t.Helper()
	ctx := context.Background()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	pages := pdfPages(t, path)
	d, _, err := k.Docs.AddDocument(ctx, kb.Document{CollectionID: coll.ID, SHA256: hex.EncodeToString(sum[:]),
		Name: filepath.Base(path), Kind: "pdf", Status: kb.StatusReady, Pages: len(pages)})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := glove.Default()
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pages {
		text := pageText(p)
		id, err := k.Content.PutUnit(ctx, kb.Unit{DocumentID: d.ID, Ordinal: i + 1, Kind: kb.UnitPage, Width: p.w, Height: p.h,
			Text: text, TextSource: kb.TextLayer, Words: p.words})
		if err != nil {
			t.Fatal(err)
		}
		if coll.TextEmbedder == glove.ModelID {
			if err := k.Content.PutVector(ctx, id, glove.ModelID, kb.ModalityText, tb.Embed(text)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return d.ID
}

func collection(t testing.TB, k *kb.KB, name string) kb.Collection {
	t.Helper()
	c, err := k.Docs.EnsureCollection(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// addTextPages stores a document NAME.pdf (content key NAME) of one text page per string, without word boxes: the
// structure signals' tests need only page text.
func addTextPages(t testing.TB, k *kb.KB, c kb.Collection, name string, pages []string) int64 {
	t.Helper()
	ctx := context.Background()
	d, _, err := k.Docs.AddDocument(ctx, kb.Document{CollectionID: c.ID, SHA256: name, Name: name + ".pdf", Kind: "pdf",
		Status: kb.StatusReady, Pages: len(pages)})
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range pages {
		if _, err := k.Content.PutUnit(ctx, kb.Unit{DocumentID: d.ID, Ordinal: i + 1, Kind: kb.UnitPage, Width: 600, Height: 800,
			Text: text, TextSource: kb.TextLayer}); err != nil {
			t.Fatal(err)
		}
	}
	return d.ID
}

// firstPageWith puts pages in one document and, for each named structure weighting, searches them by BM25 for
// question and returns the first hit's page.
func firstPageWith(t *testing.T, pages []string, question string, weightings map[string]StructureWeights) map[string]int {
	t.Helper()
	k := openKB(t)
	addTextPages(t, k, collection(t, k, "c"), "c", pages)
	s := New(k, Options{})
	first := map[string]int{}
	for name, sw := range weightings {
		res, err := s.Search(context.Background(), Query{Text: question, K: 2, Mode: BM25, Structure: &sw})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 {
			t.Fatalf("%s: no hit for %q", name, question)
		}
		first[name] = res.Hits[0].Page
	}
	return first
}

// openWithRealPDF opens a knowledge base holding the first real test PDF in collection "c".
func openWithRealPDF(t *testing.T) *kb.KB {
	t.Helper()
	k := openKB(t)
	addPDF(t, k, collection(t, k, "c"), testdata(t, realPDFs[0]))
	return k
}
