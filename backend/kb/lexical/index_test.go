package lexical

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"

	"proofglass/backend/fixture"
	"proofglass/backend/kb"
	"proofglass/backend/kb/kbtest"
)

// stemFTS asks SQLite's own porter tokenizer for a word's token, so these tests do not trust any Go stemmer.
func stemFTS(t testing.TB) func(string) string {
	db, err := sql.Open("sqlite", "file:stemfts?mode=memory")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE q USING fts5(w, tokenize='porter unicode61 remove_diacritics 2');
		CREATE VIRTUAL TABLE v USING fts5vocab(q, instance)`); err != nil {
		t.Fatal(err)
	}
	return func(w string) string {
		var tok string
		if _, err := db.Exec(`DELETE FROM q; INSERT INTO q(rowid, w) VALUES (1, ?)`, w); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`SELECT term FROM v`).Scan(&tok); err != nil {
			t.Fatalf("token of %q: %v", w, err)
		}
		return tok
	}
}

// pdfTexts returns each page's text of a real PDF, extracted by poppler (independent of Proofglass's extractor).
func pdfTexts(t testing.TB, rel string) []string {
	t.Helper()
	fixture.Command(t, "pdftotext")
	out, err := exec.Command("pdftotext", "-enc", "UTF-8", fixture.Path(t, rel), "-").Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", rel, err)
	}
	pages := strings.Split(string(out), "\f")
	if n := len(pages); n > 0 && strings.TrimSpace(pages[n-1]) == "" {
		pages = pages[:n-1]
	}
	return pages
}

type corpus struct {
	k    *kb.KB
	coll int64
	docs map[string]int64
}

func newCorpus(t testing.TB) *corpus {
	t.Helper()
	k := kbtest.Open(t)
	c, err := k.Docs.EnsureCollection(context.Background(), "c")
	if err != nil {
		t.Fatal(err)
	}
	return &corpus{k: k, coll: c.ID, docs: map[string]int64{}}
}

// add stores a document with one unit per text.
func (c *corpus) add(t testing.TB, name string, texts []string) int64 {
	t.Helper()
	ctx := context.Background()
	d, _, err := c.k.Docs.AddDocument(ctx, kb.Document{CollectionID: c.coll, SHA256: fmt.Sprintf("%064d", len(c.docs)), Name: name,
		Kind: "pdf", Status: kb.StatusReady, Pages: len(texts)})
	if err != nil {
		t.Fatal(err)
	}
	units := make([]kb.Unit, len(texts))
	for i, text := range texts {
		units[i] = kb.Unit{DocumentID: d.ID, Ordinal: i + 1, Kind: kb.UnitPage, Width: 612, Height: 792, Text: text,
			TextSource: kb.TextLayer}
	}
	if err := c.k.Content.Batch(ctx, func(b *kb.Batch) error { _, err := b.PutUnits(ctx, units); return err }); err != nil {
		t.Fatal(err)
	}
	c.docs[name] = d.ID
	return d.ID
}

// remove deletes a document, its units with it.
func (c *corpus) remove(t testing.TB, id int64) {
	t.Helper()
	if err := c.k.Docs.DeleteDocument(context.Background(), id); err != nil {
		t.Fatal(err)
	}
}

// fts5 ranks with SQLite's own bm25() over units_fts: the reference.
func (c *corpus) fts5(t testing.TB, words []string, depth int) ([]int64, []float64) {
	t.Helper()
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = `"` + w + `"`
	}
	return kbtest.BM25(t, c.k, strings.Join(q, " OR "), depth)
}

// sameRanking fails unless both rankings hold the same units with the same scores (to the last bits: the
// arithmetic is FTS5's) in the same order.
func sameRanking(t *testing.T, what string, gotIDs []int64, got []float64, wantIDs []int64, want []float64) {
	t.Helper()
	if len(gotIDs) != len(wantIDs) {
		t.Fatalf("%s: %d hits, FTS5 has %d", what, len(gotIDs), len(wantIDs))
	}
	for i := range gotIDs {
		if gotIDs[i] != wantIDs[i] || got[i] != want[i] {
			t.Fatalf("%s: rank %d is unit %d score %.17g, FTS5 has unit %d score %.17g", what, i+1, gotIDs[i], got[i], wantIDs[i], want[i])
		}
	}
}

// realCorpus loads real PDFs' pages (English prose, tables, code listings, Chinese) and a page of mixed scripts,
// case and diacritics.
func realCorpus(t *testing.T) *corpus {
	c := newCorpus(t)
	for _, rel := range []string{"pdf/real/reportlab-userguide.pdf", "pdf/real/hsaur3-Ch_analysis_of_variance.pdf",
		"pdf/real/blood_loss_report.pdf", "pdf/cjk/zhlipsum.pdf"} {
		c.add(t, rel, pdfTexts(t, rel))
	}
	c.add(t, "mixed", []string{"Café CAFÉ cafe naïve Ærø déjà-vu Ünïcödé 1990s 3.14 x² ﬁnance STRASSE straße",
		"", "the the the the", "Résumé of the 2023 annual report: revenue rose 12% to $4.5bn; Figure 3 shows it."})
	return c
}

// queryWords draws query words from the corpus' own tokens: frequent and rare, with inflected forms.
func queryWords(t *testing.T, c *corpus, n int) [][]string {
	// The distinct ASCII-lower-cased words of letters and digits only, split at spaces, tabs, newlines,
	// backslashes and quotes, in the order they first occur (units in id order), at most 20,000.
	var vocab []string
	seen := map[string]bool{}
	sep := func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\\' || r == '"' }
	err := c.k.Search.EachLibraryUnitText(context.Background(), func(text string) error {
		for _, w := range strings.FieldsFunc(text, sep) {
			w = asciiLower(w)
			if len(vocab) < 20000 && !seen[w] && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz0123456789") == "" {
				seen[w] = true
				vocab = append(vocab, w)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(vocab) < 100 {
		t.Fatalf("only %d query words in the corpus", len(vocab))
	}
	r := rand.New(rand.NewPCG(7, 11))
	out := make([][]string, n)
	for i := range out {
		m := 1 + r.IntN(6)
		for range m {
			out[i] = append(out[i], vocab[r.IntN(len(vocab))])
		}
	}
	out = append(out, []string{"the", "of", "and"}, []string{"degree", "degrees", "degree"}, []string{"2023"}, []string{"cafe"}, []string{"zzzznotaword"})
	return out
}

// asciiLower lower-cases A-Z only, as SQLite's lower() does.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

func tokensOf(t *testing.T, stem func(string) string, words []string) []string {
	var out []string
	for _, w := range words {
		tok, ok := Token(w, stem)
		if !ok {
			t.Fatalf("Token(%q) refused a lower-case ASCII word", w)
		}
		out = append(out, tok)
	}
	return out
}

func TestSearchEqualsFTS5(t *testing.T) {
	c := realCorpus(t)
	ctx := context.Background()
	ix := New(c.k.SnapshotDB())
	defer ix.Close()
	if _, _, ok, err := ix.Search(ctx, []string{"report"}, 10, nil); err != nil || ok {
		t.Fatalf("a search before the first build: ok=%v err=%v, want FTS5 to serve it", ok, err)
	}
	if err := ix.WaitCurrent(ctx); err != nil {
		t.Fatal(err)
	}
	stem := stemFTS(t)
	for _, words := range queryWords(t, c, 150) {
		toks := tokensOf(t, stem, words)
		for _, depth := range []int{10, 100000} {
			ids, scores, ok, err := ix.Search(ctx, toks, depth, nil)
			if err != nil || !ok {
				t.Fatalf("search %v: ok=%v err=%v", words, ok, err)
			}
			wantIDs, want := c.fts5(t, words, depth)
			sameRanking(t, fmt.Sprintf("%v depth %d", words, depth), ids, scores, wantIDs, want)
		}
	}
}

func TestTokenRefusesWhatFTS5TokenizesDifferently(t *testing.T) {
	for name, w := range map[string]string{"upper case": "Report", "diacritic": "café", "hyphen": "e-mail",
		"apostrophe": "don't", "cjk": "报告", "empty": ""} {
		t.Run(name, func(t *testing.T) {
			if _, ok := Token(w, func(s string) string { return s }); ok {
				t.Errorf("Token(%q) accepted a word it cannot reproduce FTS5's tokens for", w)
			}
		})
	}
}

func TestIndexFollowsChanges(t *testing.T) {
	c := realCorpus(t)
	ctx := context.Background()
	ix := currentIndex(t, c)
	stem := stemFTS(t)
	queries := queryWords(t, c, 40)
	check := func(what string) {
		t.Helper()
		if _, _, ok, err := ix.Search(ctx, []string{"report"}, 10, nil); err != nil || ok {
			t.Fatalf("%s: the stale index served a search (ok=%v err=%v)", what, ok, err)
		}
		if err := ix.WaitCurrent(ctx); err != nil {
			t.Fatal(err)
		}
		for _, words := range queries {
			toks := tokensOf(t, stem, words)
			ids, scores, ok, err := ix.Search(ctx, toks, 1000, nil)
			if err != nil || !ok {
				t.Fatalf("%s: search %v: ok=%v err=%v", what, words, ok, err)
			}
			wantIDs, want := c.fts5(t, words, 1000)
			sameRanking(t, fmt.Sprintf("%s: %v", what, words), ids, scores, wantIDs, want)
		}
	}
	c.add(t, "added", pdfTexts(t, "pdf/real/hsaur3-Ch_logistic_regression_glm.pdf"))
	check("after adding a document")
	// The 6th to 8th units by id: pages of the first document, in the main segment.
	first, err := c.k.Content.Units(ctx, c.docs["pdf/real/reportlab-userguide.pdf"])
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range first[5:8] {
		u.Text = "variance analysis replaced this page entirely"
		if _, err := c.k.Content.PutUnit(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	check("after rewriting pages in the main segment")
	c.remove(t, c.docs["pdf/real/hsaur3-Ch_analysis_of_variance.pdf"])
	check("after deleting a document")
	c.remove(t, c.docs["added"])
	check("after deleting the document only the delta held")
	// More changes than a delta keeps: the main segment is rebuilt.
	old := maxDelta
	maxDelta = func(int) int { return 5 }
	defer func() { maxDelta = old }()
	c.add(t, "added again", pdfTexts(t, "pdf/real/hsaur3-Ch_multiple_linear_regression.pdf"))
	check("after a rebuild")
	if s := ix.snap.Load(); len(s.delta.units) != 0 {
		t.Errorf("after more changes than a delta keeps, the delta still holds %d units", len(s.delta.units))
	}
}

func TestSearchKeepsToAllowedDocuments(t *testing.T) {
	c := realCorpus(t)
	ctx := context.Background()
	ix := currentIndex(t, c)
	keep := c.docs["pdf/real/reportlab-userguide.pdf"]
	ids, _, ok, err := ix.Search(ctx, []string{"tabl", "data", "varianc"}, 50, func(d int64) bool { return d == keep })
	if err != nil || !ok || len(ids) == 0 {
		t.Fatalf("scoped search: %d hits, ok=%v err=%v", len(ids), ok, err)
	}
	docs, err := c.k.Search.UnitDocuments(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if doc := docs[id]; doc != keep {
			t.Fatalf("unit %d of document %d outside the scope", id, doc)
		}
	}
}

// BenchmarkSearch compares the index with FTS5's bm25() on the same queries over real pages repeated to ~20k units.
func BenchmarkSearch(b *testing.B) {
	c := newCorpus(b)
	pages := pdfTexts(b, "pdf/real/reportlab-userguide.pdf")
	for i := range 100 {
		c.add(b, fmt.Sprintf("copy%d", i), pages)
	}
	ctx := context.Background()
	ix := New(c.k.SnapshotDB())
	defer ix.Close()
	t0 := time.Now()
	if err := ix.WaitCurrent(ctx); err != nil {
		b.Fatal(err)
	}
	b.Logf("built over %d units in %v", len(ix.snap.Load().main.units), time.Since(t0))
	qs := [][]string{{"table", "style"}, {"font", "size", "paragraph"}, {"canvas", "drawing", "string", "page"}}
	stem := stemFTS(b)
	var toks [][]string
	for _, q := range qs {
		var ts []string
		for _, w := range q {
			ts = append(ts, stem(w))
		}
		toks = append(toks, ts)
	}
	b.Run("fts5", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			c.fts5(b, qs[i%len(qs)], 100)
		}
	})
	b.Run("index", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			ix.Search(ctx, toks[i%len(qs)], 100, nil)
		}
	})
}

// TestConcurrentSearchesDuringRefresh searches from several goroutines while documents come and go and the index
// refreshes (run with -race): every served ranking is sorted, and the index ends current and equal to FTS5.
func TestConcurrentSearchesDuringRefresh(t *testing.T) {
	c := newCorpus(t)
	pages := pdfTexts(t, "pdf/real/hsaur3-Ch_analysis_of_variance.pdf")
	c.add(t, "first", pages)
	ctx := context.Background()
	ix := New(c.k.SnapshotDB())
	defer ix.Close()
	stem := stemFTS(t)
	words := []string{"analysis", "variance", "weight"}
	toks := tokensOf(t, stem, words)
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			served := 0
			for {
				select {
				case <-stop:
					if served == 0 {
						errs <- fmt.Errorf("no search was served from memory")
					} else {
						errs <- nil
					}
					return
				default:
				}
				_, scores, ok, err := ix.Search(ctx, toks, 20, nil)
				if err != nil {
					errs <- err
					return
				}
				if ok {
					served++
					for i := 1; i < len(scores); i++ {
						if scores[i] > scores[i-1] {
							errs <- fmt.Errorf("ranking not sorted: %v", scores)
							return
						}
					}
				}
			}
		}()
	}
	for i := range 6 {
		id := c.add(t, fmt.Sprintf("copy%d", i), pages)
		if err := ix.WaitCurrent(ctx); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			c.remove(t, id)
		}
	}
	if err := ix.WaitCurrent(ctx); err != nil {
		t.Fatal(err)
	}
	close(stop)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	ids, scores, ok, err := ix.Search(ctx, toks, 1000, nil)
	if err != nil || !ok {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	wantIDs, want := c.fts5(t, words, 1000)
	sameRanking(t, "after the churn", ids, scores, wantIDs, want)
}

// TestSearchesDoNotRefreshBackToBack: while changes stream in, a search starts a refresh only once the last one is
// refreshIdle times its duration behind; an explicit wait still refreshes at once.
func TestSearchesDoNotRefreshBackToBack(t *testing.T) {
	c := newCorpus(t)
	c.add(t, "a", []string{"alpha beta", "gamma"})
	ctx := context.Background()
	ix := currentIndex(t, c)
	ix.mu.Lock()
	ix.nextAuto = time.Now().Add(time.Hour)
	ix.mu.Unlock()
	c.add(t, "b", []string{"alpha delta"})
	if _, _, ok, err := ix.Search(ctx, []string{"alpha"}, 10, nil); ok || err != nil {
		t.Fatalf("stale index served: ok=%v err=%v", ok, err)
	}
	ix.mu.Lock()
	running := ix.running
	ix.mu.Unlock()
	if running {
		t.Fatal("a search started a refresh right after the last one")
	}
	if err := ix.WaitCurrent(ctx); err != nil {
		t.Fatal(err)
	}
	ids, _, ok, err := ix.Search(ctx, []string{"alpha"}, 10, nil)
	if err != nil || !ok || len(ids) != 2 {
		t.Fatalf("after WaitCurrent: %v ok=%v err=%v, want both pages with alpha", ids, ok, err)
	}
}

// currentIndex builds the word index of c's knowledge base and waits until it serves; it is closed with the test.
func currentIndex(t *testing.T, c *corpus) *Index {
	t.Helper()
	ix := New(c.k.SnapshotDB())
	t.Cleanup(ix.Close)
	if err := ix.WaitCurrent(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ix
}
