package search

import (
	"context"
	"encoding/json"
	"testing"
)

// TestLexicalIndexSearchesAsFTS5 runs the same searches with the in-memory word index and with FTS5 alone over
// real PDFs: every mode and scope returns the same hits with the same scores, before and after the library changes.
func TestLexicalIndexSearchesAsFTS5(t *testing.T) {
	k := openKB(t)
	ctx := context.Background()
	a, b := collection(t, k, "a"), collection(t, k, "b")
	d1 := addPDF(t, k, a, testdata(t, "pdf/real/hsaur3-Ch_analysis_of_variance.pdf"))
	addPDF(t, k, a, testdata(t, "pdf/real/blood_loss_report.pdf"))
	addPDF(t, k, b, testdata(t, "pdf/real/hsaur3-Ch_logistic_regression_glm.pdf"))
	mem := New(k, Options{Lexical: true})
	defer mem.Close()
	if err := mem.WarmLexical(ctx); err != nil {
		t.Fatal(err)
	}
	fts := New(k, Options{})
	queries := []Query{
		{Text: "analysis of variance table", Mode: BM25},
		{Text: "What does Figure 4.1 show about the mean weight gain?", Mode: Hybrid},
		{Text: "logistic regression deviance residuals", Mode: BM25, K: 30},
		{Text: "blood loss estimation", Mode: Hybrid, Collections: []string{"a"}},
		{Text: "regression model", Mode: BM25, DocumentIDs: []int64{d1}},
		{Text: "variance", Mode: Hybrid, Kinds: []string{"pdf"}, Collections: []string{"b"}},
		{Text: "e-mail Café don't", Mode: BM25}, // words the index cannot tokenize: FTS5 serves them
	}
	same := func(what string) {
		t.Helper()
		if err := mem.WarmLexical(ctx); err != nil {
			t.Fatal(err)
		}
		for i, q := range queries {
			got, err := mem.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want, err := fts.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.Hits) == 0 && i < 6 {
				t.Fatalf("%s: query %q found nothing: the comparison proves nothing", what, q.Text)
			}
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			if string(g) != string(w) {
				t.Errorf("%s: %q differs with the in-memory index:\n got %s\nwant %s", what, q.Text, g, w)
			}
		}
	}
	same("fresh")
	addPDF(t, k, b, testdata(t, "pdf/real/hsaur3-Ch_multiple_linear_regression.pdf"))
	if err := k.Docs.DeleteDocument(ctx, d1); err != nil {
		t.Fatal(err)
	}
	queries[4].DocumentIDs = nil
	same("after adding and deleting documents")
}
