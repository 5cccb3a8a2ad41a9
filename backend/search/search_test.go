package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"proofglass/backend/glove"
	"proofglass/backend/kb"
	"proofglass/backend/model"
	"proofglass/backend/model/builtin"
)

var realPDFs = []string{
	"pdf/real/hsaur3-Ch_analysis_of_variance.pdf",
	"pdf/real/hsaur3-Ch_multiple_linear_regression.pdf",
	"pdf/real/hsaur3-Ch_logistic_regression_glm.pdf",
	"pdf/real/blood_loss_report.pdf",
}

// distinctive returns up to n words whose stem occurs on page i and on no other page, most frequent first: a query
// only that page should answer first. Stems, not spellings, because the word index matches by stem.
func distinctive(pages []page, i, n int) []string {
	df := map[string]int{}                    // stem → pages holding it
	tfs := make([]map[string]int, len(pages)) // stem → occurrences on the page
	form := map[string]map[string]int{}       // on page i: stem → spelling → occurrences
	for j, p := range pages {
		tfs[j] = map[string]int{}
		glove.Tokens(pageText(p), func(tok string) {
			if len(tok) < 4 || glove.IsStopWord(tok) || strings.IndexFunc(tok, unicode.IsDigit) >= 0 {
				return
			}
			st := stem(tok)
			if tfs[j][st] == 0 {
				df[st]++
			}
			tfs[j][st]++
			if j == i {
				if form[st] == nil {
					form[st] = map[string]int{}
				}
				form[st][tok]++
			}
		})
	}
	type scored struct {
		w string
		s float64
	}
	var ss []scored
	for st, tf := range tfs[i] {
		if df[st] != 1 {
			continue
		}
		best := ""
		for w, c := range form[st] {
			if best == "" || c > form[st][best] || (c == form[st][best] && w < best) {
				best = w
			}
		}
		ss = append(ss, scored{best, float64(tf)})
	}
	sort.Slice(ss, func(a, b int) bool { return ss[a].s > ss[b].s || (ss[a].s == ss[b].s && ss[a].w < ss[b].w) })
	var out []string
	for _, s := range ss[:min(n, len(ss))] {
		out = append(out, s.w)
	}
	return out
}

func TestDistinctiveWordsFindTheirPage(t *testing.T) {
	ctx := context.Background()
	k := openKB(t)
	c := collection(t, k, "papers")
	var all []page
	type ref struct {
		doc  string
		page int
	}
	var refs []ref
	for _, rel := range realPDFs {
		p := testdata(t, rel)
		addPDF(t, k, c, p)
		for i, pg := range pdfPages(t, p) {
			all = append(all, pg)
			refs = append(refs, ref{strings.TrimPrefix(rel, "pdf/real/"), i + 1})
		}
	}
	s := New(k, Options{})
	checked := 0
	for i := 0; i < len(all); i += 5 { // every fifth page keeps the test fast
		if len(all[i].words) < 80 {
			continue // near-empty pages (title, blank) have nothing distinctive
		}
		words := distinctive(all, i, 4)
		if len(words) < 3 {
			continue
		}
		checked++
		q := strings.Join(words, " ")
		for _, mode := range []Mode{BM25, Hybrid} {
			t.Run(fmt.Sprintf("%s/p%d/%s", refs[i].doc, refs[i].page, mode), func(t *testing.T) {
				res, err := s.Search(ctx, Query{Text: q, K: 3, Mode: mode})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Hits) == 0 || res.Hits[0].Doc != refs[i].doc || res.Hits[0].Page != refs[i].page {
					var got []string
					for _, h := range res.Hits {
						got = append(got, fmt.Sprintf("%s p%d", h.Doc, h.Page))
					}
					t.Errorf("query %q: top hits %v, want %s p%d first", q, got, refs[i].doc, refs[i].page)
				}
			})
		}
	}
	if checked < 5 {
		t.Fatalf("only %d pages checked", checked)
	}
}

func TestDenseFindsPageByItsOwnText(t *testing.T) {
	ctx := context.Background()
	k := openKB(t)
	c := collection(t, k, "c")
	path := testdata(t, realPDFs[0])
	addPDF(t, k, c, path)
	pages := pdfPages(t, path)
	s := New(k, Options{})
	for _, i := range []int{2, 6, 10} {
		res, err := s.Search(ctx, Query{Text: pageText(pages[i]), K: 5, Mode: Dense})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].Page != i+1 {
			t.Fatalf("dense search with page %d's text: hits %+v", i+1, res.Hits)
		}
		h := res.Hits[0]
		if h.Scores.Text == nil || math.Abs(*h.Scores.Text-1) > 1e-4 || h.Scores.BM25 != nil {
			t.Errorf("page %d: scores %+v, want text cosine 1 and no bm25", i+1, h.Scores)
		}
		for _, h := range res.Hits[1:] {
			if *h.Scores.Text >= *res.Hits[0].Scores.Text {
				t.Errorf("hits not in descending cosine order: %v after %v", *h.Scores.Text, *res.Hits[0].Scores.Text)
			}
		}
	}
}

func TestHybridCarriesEverySignal(t *testing.T) {
	ctx := context.Background()
	k := openWithRealPDF(t)
	w := DefaultWeights // plain, equal-weight fusion
	res, err := New(k, Options{}).Search(ctx, Query{Text: "analysis of variance weight gain rats", K: 5, Weights: &w,
		Structure: &StructureWeights{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 5 {
		t.Fatalf("got %d hits, want 5", len(res.Hits))
	}
	both := 0
	for i, h := range res.Hits {
		if h.Scores.BM25 != nil && h.Scores.Text != nil {
			both++
		}
		want := 0.0
		for s, r := range h.Ranks {
			if r > 0 && s < 2 {
				want += 1 / float64(DefaultRRFK+r)
			}
		}
		if math.Abs(h.Score-want) > 1e-12 {
			t.Errorf("hit %d: score %v, want the RRF sum %v of ranks %v", i, h.Score, want, h.Ranks)
		}
		if i > 0 && h.Score > res.Hits[i-1].Score {
			t.Errorf("hit %d scores above hit %d", i, i-1)
		}
		if h.Doc != "hsaur3-Ch_analysis_of_variance.pdf" || h.Width <= 0 || h.DocumentID == 0 || h.UnitID == 0 {
			t.Errorf("hit %d lacks its unit fields: %+v", i, h)
		}
	}
	if both == 0 {
		t.Errorf("no hit was found by both bm25 and dense text")
	}
}

func TestCJK(t *testing.T) {
	ctx := context.Background()
	k := openKB(t)
	c := collection(t, k, "zh")
	path := testdata(t, "pdf/cjk/zhlipsum.pdf")
	addPDF(t, k, c, path)
	addPDF(t, k, c, testdata(t, realPDFs[0])) // English pages must not match
	pages := pdfPages(t, path)
	s := New(k, Options{})

	// A run of Chinese that occurs on exactly one page.
	var q string
	var want int
	for i, p := range pages {
		for _, w := range p.words {
			rs := []rune(w.Text)
			if len(rs) < 20 || !isCJK(rs[5]) {
				continue
			}
			cand := string(rs[4:12])
			n := 0
			for _, p2 := range pages {
				if strings.Contains(pageText(p2), cand) {
					n++
				}
			}
			if n == 1 {
				q, want = cand, i+1
				break
			}
		}
		if q != "" {
			break
		}
	}
	if q == "" {
		t.Fatal("no Chinese run unique to one page")
	}
	cases := map[string]struct {
		query string
		mode  Mode
		page  int
	}{
		"trigram-bm25":   {q, BM25, want},
		"trigram-hybrid": {q, Hybrid, want},
		"mixed-latin":    {"zhlipsum " + q, BM25, want},
	}
	for name, cs := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := s.Search(ctx, Query{Text: cs.query, K: 3, Mode: cs.mode})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 || res.Hits[0].Doc != "zhlipsum.pdf" || res.Hits[0].Page != cs.page {
				t.Fatalf("query %q: hits %+v, want zhlipsum.pdf p%d first", cs.query, res.Hits, cs.page)
			}
			h := res.Hits[0]
			if len(h.Boxes) == 0 {
				t.Fatalf("no hit boxes")
			}
			for _, b := range h.Boxes {
				if !strings.Contains(cs.query, b.Term) {
					t.Errorf("box term %q is not part of the query", b.Term)
				}
			}
		})
	}
	t.Run("two-characters", func(t *testing.T) {
		two := string([]rune(q)[:2])
		res, err := s.Search(ctx, Query{Text: two, K: 50, Mode: BM25})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 {
			t.Fatalf("no hits for %q", two)
		}
		for _, h := range res.Hits {
			if h.Doc != "zhlipsum.pdf" {
				t.Errorf("hit in %s for a Chinese query", h.Doc)
			}
			if u, _ := k.Content.Unit(ctx, h.UnitID); !strings.Contains(u.Text, two) {
				t.Errorf("p%d does not contain %q", h.Page, two)
			}
		}
	})
	t.Run("dense-has-no-signal", func(t *testing.T) {
		res, err := s.Search(ctx, Query{Text: q, K: 3, Mode: Dense})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 0 || len(res.Notes) == 0 {
			t.Errorf("dense search for Chinese: %d hits, notes %q; want none and a note", len(res.Hits), res.Notes)
		}
	})
}

// TestHitBoxesOnTheRightWords checks each box against poppler: text extracted from inside the box must contain the
// matched term.
func TestHitBoxesOnTheRightWords(t *testing.T) {
	ctx := context.Background()
	k := openKB(t)
	c := collection(t, k, "c")
	path := testdata(t, realPDFs[1])
	addPDF(t, k, c, path)
	res, err := New(k, Options{}).Search(ctx, Query{Text: "seeding rainfall clouds velocity", K: 3, Mode: BM25})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 {
		t.Fatal("no hits")
	}
	checked, stemmed := 0, false
	for _, h := range res.Hits {
		if len(h.Boxes) == 0 {
			t.Errorf("p%d has no boxes", h.Page)
		}
		for _, b := range h.Boxes[:min(4, len(h.Boxes))] {
			if !slices.Contains([]string{"seeding", "rainfall", "clouds", "velocity"}, b.Term) {
				t.Errorf("box term %q not from the query", b.Term)
			}
			if b.X0 < 0 || b.Y0 < 0 || b.X1 > h.Width || b.Y1 > h.Height || b.X0 >= b.X1 || b.Y0 >= b.Y1 {
				t.Errorf("box %+v outside the %vx%v page", b, h.Width, h.Height)
			}
			x, y := int(math.Floor(b.X0)), int(math.Floor(b.Y0))
			w, hh := int(math.Ceil(b.X1))-x, int(math.Ceil(b.Y1))-y
			out, err := exec.Command("pdftotext", "-f", strconv.Itoa(h.Page), "-l", strconv.Itoa(h.Page), "-r", "72",
				"-x", strconv.Itoa(x), "-y", strconv.Itoa(y), "-W", strconv.Itoa(w), "-H", strconv.Itoa(hh), path, "-").Output()
			if err != nil {
				t.Fatal(err)
			}
			// The index matches by stem ("clouds" finds "Cloud"), so a word under the box must share the term's stem.
			found := false
			glove.Tokens(string(out), func(tok string) { found = found || stem(tok) == stem(b.Term) })
			if !found {
				t.Errorf("p%d box %+v: poppler reads %q there, want a form of %q", h.Page, b, strings.TrimSpace(string(out)), b.Term)
			}
			stemmed = stemmed || !strings.Contains(strings.ToLower(string(out)), b.Term)
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no box checked")
	}
	if !stemmed {
		t.Error("no box fell on another form of a query word; the query no longer tests stemmed boxes")
	}
}

func TestFilters(t *testing.T) {
	ctx := context.Background()
	k := openKB(t)
	a, b := collection(t, k, "a"), collection(t, k, "b")
	docA := addPDF(t, k, a, testdata(t, realPDFs[1]))
	docA2 := addPDF(t, k, a, testdata(t, realPDFs[2]))
	docB := addPDF(t, k, b, testdata(t, realPDFs[1])) // the same file in another collection
	s := New(k, Options{})
	q := "regression model coefficients"
	cases := map[string]struct {
		q       Query
		allowed []int64
		wantErr error
	}{
		"collection-a": {Query{Collections: []string{"a"}}, []int64{docA, docA2}, nil},
		"collection-b": {Query{Collections: []string{"b"}}, []int64{docB}, nil},
		"document":     {Query{DocumentIDs: []int64{docA2}}, []int64{docA2}, nil},
		"doc-and-coll": {Query{Collections: []string{"b"}, DocumentIDs: []int64{docA2}}, nil, nil},
		"kind-pdf":     {Query{Kinds: []string{"pdf"}}, []int64{docA, docA2, docB}, nil},
		"kind-video":   {Query{Kinds: []string{"video"}}, nil, nil},
		"unknown-coll": {Query{Collections: []string{"nope"}}, nil, kb.ErrNotFound},
	}
	for name, cs := range cases {
		for _, mode := range []Mode{BM25, Dense, Hybrid} {
			t.Run(name+"/"+string(mode), func(t *testing.T) {
				cs.q.Text, cs.q.K, cs.q.Mode = q, 20, mode
				res, err := s.Search(ctx, cs.q)
				if cs.wantErr != nil {
					if !errors.Is(err, cs.wantErr) {
						t.Fatalf("err = %v, want %v", err, cs.wantErr)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(cs.allowed) > 0 && len(res.Hits) == 0 {
					t.Fatal("no hits")
				}
				seen := map[int64]bool{}
				for _, h := range res.Hits {
					seen[h.DocumentID] = true
					if !slices.Contains(cs.allowed, h.DocumentID) {
						t.Errorf("hit in document %d, allowed %v", h.DocumentID, cs.allowed)
					}
				}
				if name == "kind-pdf" && len(seen) < 2 {
					t.Errorf("kind filter kept only documents %v", seen)
				}
			})
		}
	}
}

// first50 is the built-in embedder cut to its first 50 dimensions: a second, real embedding space of another
// dimension, standing in for a collection whose embedder was changed.
type first50 struct{ *builtin.Embedder }

func (first50) ModelID() string { return "test/glove-first-50" }
func (first50) Dim() int        { return 50 }
func (e first50) Embed(ctx context.Context, in []model.EmbedInput) ([][]float32, error) {
	vs, err := e.Embedder.Embed(ctx, in)
	for i := range vs {
		vs[i] = vs[i][:50]
	}
	return vs, err
}

func TestEmbeddersNeverMix(t *testing.T) {
	ctx := context.Background()
	k := openKB(t)
	a := collection(t, k, "a")
	b, err := k.Docs.CreateCollection(ctx, kb.Collection{Name: "b", TextEmbedder: "test/glove-first-50", TextDim: 50})
	if err != nil {
		t.Fatal(err)
	}
	addPDF(t, k, a, testdata(t, realPDFs[0]))
	// b's units keep stale 100-d GloVe vectors from before its embedder changed, plus their new 50-d vectors.
	docB := addPDF(t, k, b, testdata(t, realPDFs[2]))
	units, err := k.Content.Units(ctx, docB)
	if err != nil {
		t.Fatal(err)
	}
	tb, _ := glove.Default()
	for _, u := range units {
		full := tb.Embed(u.Text)
		if err := k.Content.PutVector(ctx, u.ID, glove.ModelID, kb.ModalityText, full); err != nil {
			t.Fatal(err)
		}
		if err := k.Content.PutVector(ctx, u.ID, "test/glove-first-50", kb.ModalityText, full[:50]); err != nil {
			t.Fatal(err)
		}
	}
	resolver := func(ctx context.Context, id string) (model.Embedder, error) {
		if id == "test/glove-first-50" {
			return first50{builtin.New()}, nil
		}
		return BuiltinResolver(ctx, id)
	}
	s := New(k, Options{Embedders: resolver})
	q := "logistic regression women plasma"
	res, err := s.Search(ctx, Query{Text: q, K: 50, Mode: Dense})
	if err != nil {
		t.Fatal(err)
	}
	qv := tb.Embed(q)
	colls := map[int64]bool{}
	for _, h := range res.Hits {
		colls[h.Collection] = true
		u, err := k.Content.Unit(ctx, h.UnitID)
		if err != nil {
			t.Fatal(err)
		}
		uv := tb.Embed(u.Text)
		var want float64
		if h.Collection == b.ID {
			want = cosine(qv[:50], uv[:50]) // b is searched in its own 50-d space only
		} else {
			want = cosine(qv, uv)
		}
		if math.Abs(*h.Scores.Text-want) > 1e-4 {
			t.Errorf("collection %d p%d: text score %v, want %v", h.Collection, h.Page, *h.Scores.Text, want)
		}
	}
	if !colls[a.ID] || !colls[b.ID] {
		t.Errorf("hits came from collections %v, want both %d and %d", colls, a.ID, b.ID)
	}
	// Without a configured embedder for b, b drops out of the dense signal with a note; a still answers.
	res, err = New(k, Options{}).Search(ctx, Query{Text: q, K: 50, Mode: Dense})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Collection == b.ID {
			t.Errorf("collection b answered dense search without its embedder")
		}
	}
	if len(res.Notes) == 0 {
		t.Errorf("no note about the missing embedder")
	}
}

func cosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return d / math.Sqrt(na*nb)
}

func TestIndexFollowsNewVectors(t *testing.T) {
	ctx := context.Background()
	k := openWithRealPDF(t)
	s := New(k, Options{})
	q := "logistic regression plasma fibrinogen"
	res, err := s.Search(ctx, Query{Text: q, K: 40, Mode: Dense})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Doc == "hsaur3-Ch_logistic_regression_glm.pdf" {
			t.Fatal("document found before it was added")
		}
	}
	doc := addPDF(t, k, collection(t, k, "c"), testdata(t, realPDFs[2]))
	res, err = s.Search(ctx, Query{Text: q, K: 3, Mode: Dense})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].DocumentID != doc {
		t.Errorf("after adding the GLM chapter, top hit is %+v", res.Hits)
	}
	if err := k.Docs.DeleteDocument(ctx, doc); err != nil {
		t.Fatal(err)
	}
	res, err = s.Search(ctx, Query{Text: q, K: 40, Mode: Dense})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.DocumentID == doc {
			t.Fatal("deleted document still found")
		}
	}
}

func TestSearchErrors(t *testing.T) {
	k := openKB(t)
	collection(t, k, "c")
	s := New(k, Options{})
	for name, q := range map[string]Query{
		"empty":    {Text: "  "},
		"bad-mode": {Text: "x", Mode: "fuzzy"},
		"bad-kind": {Text: "x", Kinds: []string{"audio"}},
		"bad-coll": {Text: "x", Collections: []string{"missing"}},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := s.Search(context.Background(), q); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestPersistedIndexReopened(t *testing.T) {
	ctx := context.Background()
	k := openWithRealPDF(t)
	dir := t.TempDir()
	builds := 0
	counting := func(dim int, ids []int64, vecs [][]float32) (Index, error) {
		builds++
		return NewVectorIndex(dim, ids, vecs)
	}
	q := Query{Text: "analysis of variance weight gain", K: 5, Mode: Dense}
	first, err := New(k, Options{IndexDir: dir, NewIndex: counting}).Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if builds != 1 {
		t.Fatalf("%d builds on first search, want 1", builds)
	}
	// A new Searcher (the next process) reopens the file instead of rebuilding, with the same answer.
	second, err := New(k, Options{IndexDir: dir, NewIndex: counting}).Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if builds != 1 {
		t.Errorf("second searcher rebuilt the index (%d builds)", builds)
	}
	if len(first.Hits) != len(second.Hits) {
		t.Fatalf("%d hits then %d", len(first.Hits), len(second.Hits))
	}
	for i := range first.Hits {
		if first.Hits[i].UnitID != second.Hits[i].UnitID {
			t.Errorf("hit %d: unit %d then %d", i, first.Hits[i].UnitID, second.Hits[i].UnitID)
		}
	}
	// New vectors make the file stale: it is brought up to date with just the new vectors (no rebuild), saved, and
	// the new document is found, by this searcher and by the next one from the file alone.
	doc := addPDF(t, k, collection(t, k, "c"), testdata(t, realPDFs[2]))
	q2 := Query{Text: "logistic regression plasma fibrinogen", K: 3, Mode: Dense}
	for i := range 2 {
		res, err := New(k, Options{IndexDir: dir, NewIndex: counting}).Search(ctx, q2)
		if err != nil {
			t.Fatal(err)
		}
		if builds != 1 {
			t.Errorf("searcher %d: stale file rebuilt instead of updated (%d builds)", i, builds)
		}
		if len(res.Hits) == 0 || res.Hits[0].DocumentID != doc {
			t.Errorf("searcher %d: new document not found after the update: %+v", i, res.Hits)
		}
	}
	// Removed vectors leave the index too.
	if err := k.Docs.DeleteDocument(ctx, doc); err != nil {
		t.Fatal(err)
	}
	res, err := New(k, Options{IndexDir: dir, NewIndex: counting}).Search(ctx, q2)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.DocumentID == doc {
			t.Errorf("deleted document still found: %+v", h)
		}
	}
	if builds != 1 {
		t.Errorf("deletion caused a rebuild (%d builds)", builds)
	}
}

// With only the built-in embedder, default hybrid ranking follows BM25 at the top, dense adding a small share.
func TestBuiltinEmbedderDefersToBM25(t *testing.T) {
	ctx := context.Background()
	k := openWithRealPDF(t)
	s := New(k, Options{})
	q := "analysis of variance weight gain rats"
	base := &StructureWeights{} // the base fusion alone: structure signals are tested in structure_test.go
	hyb, err := s.Search(ctx, Query{Text: q, K: 5, Structure: base})
	if err != nil {
		t.Fatal(err)
	}
	lex, err := s.Search(ctx, Query{Text: q, K: 5, Mode: BM25, Structure: base})
	if err != nil {
		t.Fatal(err)
	}
	if len(hyb.Hits) != 5 || len(lex.Hits) != 5 {
		t.Fatalf("hits %d and %d", len(hyb.Hits), len(lex.Hits))
	}
	dense := 0
	for i := range hyb.Hits {
		h := hyb.Hits[i]
		if h.UnitID != lex.Hits[i].UnitID {
			t.Errorf("hit %d: hybrid unit %d, BM25 unit %d", i, h.UnitID, lex.Hits[i].UnitID)
		}
		want := 1 / float64(DefaultRRFK+h.Ranks[0])
		if h.Ranks[1] > 0 {
			want += BuiltinTextWeight / float64(DefaultRRFK+h.Ranks[1])
			dense++
		}
		if math.Abs(h.Score-want) > 1e-12 {
			t.Errorf("hit %d: score %v, want %v (ranks %v)", i, h.Score, want, h.Ranks)
		}
	}
	if dense == 0 {
		t.Error("the dense signal took no part")
	}
}
