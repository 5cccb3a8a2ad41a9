package kb

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// facetLibrary holds n documents with a year, an organisation and, for every third, a kind; every hundredth has
// the user's own organisation.
func facetLibrary(t testing.TB, n int) *KB {
	t.Helper()
	k := openTest(t)
	ctx := context.Background()
	stmts := fmt.Sprintf(`INSERT INTO collections(id, name, text_embedder, text_dim, created_at) VALUES (1, 'c', 'e', 1, 0);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < %d)
INSERT INTO documents(collection_id, sha256, name, kind, status, created_at, updated_at)
  SELECT 1, 'h'||i, 'd'||i||'.pdf', 'pdf', 'ready', 0, 0 FROM n;
INSERT INTO document_facets SELECT id, 'year', 'extracted', 2000 + id %% 25, 2000 + id %% 25 FROM documents;
INSERT INTO document_facets SELECT id, 'org', 'extracted', 'Company '||(id %% 500), 'company '||(id %% 500) FROM documents;
INSERT INTO document_facets SELECT id, 'kind', 'extracted', '10-K', '10-k' FROM documents WHERE id %% 3 = 0;
INSERT INTO document_facets SELECT id, 'org', 'user', 'Mine '||id, 'mine '||id FROM documents WHERE id %% 100 = 0;
ANALYZE;`, n)
	if _, err := k.db.ExecContext(ctx, stmts); err != nil {
		t.Fatal(err)
	}
	return k
}

func TestFacetsUserWins(t *testing.T) {
	ctx := context.Background()
	k := facetLibrary(t, 300)
	// Document 100's organisation is the user's; re-extraction rewrites only extracted rows.
	if err := k.Facets.ReplaceExtractedFacets(ctx, 100, []Facet{{Name: "org", Value: "Other", Norm: "other"}, {Name: "kind", Value: "", Norm: ""}}); err != nil {
		t.Fatal(err)
	}
	fs, err := k.Facets.DocumentFacets(ctx, []int64{100, 101})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fs[100], []Facet{{Name: "org", Value: "Mine 100", Source: FacetUser, Norm: "mine 100"}}) {
		t.Errorf("document 100 (user's org, extracted year dropped by re-extraction): %+v", fs[100])
	}
	if len(fs[101]) != 2 {
		t.Errorf("document 101: %+v", fs[101])
	}
	// Clearing a facet hides the extracted value; resetting shows it again.
	if err := k.Facets.SetUserFacet(ctx, 101, Facet{Name: "year", Value: "", Norm: ""}); err != nil {
		t.Fatal(err)
	}
	if fs, _ := k.Facets.DocumentFacets(ctx, []int64{101}); len(fs[101]) != 2 || fs[101][1] != (Facet{Name: "year", Source: FacetUser}) {
		t.Errorf("after clearing the year: %+v", fs[101])
	}
	if err := k.Facets.ResetUserFacet(ctx, 101, "year"); err != nil {
		t.Fatal(err)
	}
	if fs, _ := k.Facets.DocumentFacets(ctx, []int64{101}); len(fs[101]) != 2 {
		t.Errorf("after resetting the year: %+v", fs[101])
	}
	if err := k.Facets.SetUserFacet(ctx, 99999, Facet{Name: "org", Value: "x", Norm: "x"}); err != nil {
		t.Fatal(err)
	}
	if fs, _ := k.Facets.DocumentFacets(ctx, []int64{99999}); len(fs[99999]) != 0 {
		t.Error("a facet was stored for a missing document")
	}
}

func TestDocumentsWhere(t *testing.T) {
	ctx := context.Background()
	k := facetLibrary(t, 300)
	ids := func(f FacetFilter) []int64 {
		t.Helper()
		m, err := k.Facets.DocumentsWhere(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for id := range m {
			out = append(out, id)
		}
		slices.Sort(out)
		return out
	}
	if got := ids(FacetFilter{{Name: "year", Op: FacetEq, Values: []string{"2022"}}, {Name: "kind", Op: FacetEq, Values: []string{"10-k"}}}); !reflect.DeepEqual(got, []int64{72, 147, 222, 297}) {
		t.Errorf("year=2022,kind=10-k: %v", got)
	}
	// Document 200's organisation is the user's "Mine 200": its extracted "company 200" no longer matches.
	if got := ids(FacetFilter{{Name: "org", Op: FacetContains, Values: []string{"pany 200"}}}); len(got) != 0 {
		t.Errorf("org contains 'pany 200': %v", got)
	}
	if got := ids(FacetFilter{{Name: "org", Op: FacetContains, Values: []string{"mine 2", "company 7"}}}); !reflect.DeepEqual(got, []int64{7, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 200}) {
		t.Errorf("org mine 2 | company 7: %v", got)
	}
	// LIKE's wildcards are literal.
	if got := ids(FacetFilter{{Name: "org", Op: FacetContains, Values: []string{"%"}}}); len(got) != 0 {
		t.Errorf("org contains %%: %v", got)
	}
	if got := ids(FacetFilter{{Name: "year", Op: FacetPrefix, Values: []string{"202"}}}); len(got) != 60 {
		t.Errorf("year prefix 202: %d documents", len(got))
	}
	if _, err := k.Facets.DocumentsWhere(ctx, FacetFilter{{Name: "year", Op: "regex", Values: []string{"x"}}}); err == nil {
		t.Error("an unknown operator was accepted")
	}
	vs, err := k.Facets.FacetValues(ctx, "org")
	if err != nil || len(vs) != 300 || vs[0].Norm != "company 1" || vs[299].Norm != "mine 300" {
		t.Errorf("FacetValues: %d values, %v", len(vs), err)
	}
	// Every change, a document's deletion included, moves the version.
	v0, _ := k.Facets.FacetsVersion(ctx)
	if err := k.Facets.SetUserFacet(ctx, 5, Facet{Name: "org", Value: "X", Norm: "x"}); err != nil {
		t.Fatal(err)
	}
	v1, _ := k.Facets.FacetsVersion(ctx)
	if err := k.Docs.DeleteDocument(ctx, 6); err != nil {
		t.Fatal(err)
	}
	v2, err := k.Facets.FacetsVersion(ctx)
	if err != nil || !(v0 < v1 && v1 < v2) {
		t.Errorf("facets versions %d %d %d, %v", v0, v1, v2, err)
	}
}

// TestFacetQueryPlans checks that a facet filter uses the (name, norm) index on a library of 20,000 documents, not
// a scan of the facet table.
func TestFacetQueryPlans(t *testing.T) {
	k := facetLibrary(t, 20000)
	ctx := context.Background()
	plan := func(q string, args ...any) string {
		rows, err := k.db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			out = append(out, detail)
		}
		return strings.Join(out, "\n")
	}
	where, args, err := FacetFilter{{Name: "year", Op: FacetEq, Values: []string{"2022"}}, {Name: "kind", Op: FacetEq, Values: []string{"10-k"}}}.where()
	if err != nil {
		t.Fatal(err)
	}
	p := plan(`SELECT d.id FROM documents d WHERE `+where, args...)
	if strings.Contains(p, "SCAN") || !strings.Contains(p, "document_facets_value (name=? AND norm=?)") {
		t.Errorf("DocumentsWhere plan:\n%s", p)
	}
}

func BenchmarkFacets(b *testing.B) {
	k := facetLibrary(b, 20000)
	ctx := context.Background()
	b.Run("DocumentsWhere/year+kind", func(b *testing.B) {
		f := FacetFilter{{Name: "year", Op: FacetEq, Values: []string{"2022"}}, {Name: "kind", Op: FacetEq, Values: []string{"10-k"}}}
		for b.Loop() {
			if _, err := k.Facets.DocumentsWhere(ctx, f); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("DocumentsWhere/org-contains", func(b *testing.B) {
		f := FacetFilter{{Name: "org", Op: FacetContains, Values: []string{"company 42"}}}
		for b.Loop() {
			if _, err := k.Facets.DocumentsWhere(ctx, f); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("CollectionFacetValues", func(b *testing.B) {
		for b.Loop() {
			if _, err := k.Facets.CollectionFacetValues(ctx, 1, []string{"kind", "year", "org"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("FacetsVersion", func(b *testing.B) {
		for b.Loop() {
			if _, err := k.Facets.FacetsVersion(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestCollectionFacetValues: the values the library offers for a collection are those of its ready documents, the
// user's value where set, each with its documents; on 20,000 documents the query reads each document's facets by
// its key, not the whole facets table.
func TestCollectionFacetValues(t *testing.T) {
	ctx := context.Background()
	k := facetLibrary(t, 300)
	if _, err := k.db.ExecContext(ctx, `UPDATE documents SET status = 'failed' WHERE id = 25`); err != nil {
		t.Fatal(err)
	}
	got, err := k.Facets.CollectionFacetValues(ctx, 1, []string{"year", "org", "kind"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got["year"]); n != 25 {
		t.Fatalf("%d years, want 25", n)
	}
	docs := 0
	for _, v := range got["year"] {
		docs += len(v.Documents)
		if v.Value == "2000" && slices.Contains(v.Documents, 25) {
			t.Errorf("a failed document is offered: %+v", v)
		}
	}
	if docs != 299 {
		t.Errorf("%d documents under the years, want the 299 ready ones", docs)
	}
	var mine, company0 []int64
	for _, v := range got["org"] {
		switch v.Norm {
		case "mine 100":
			mine = v.Documents
		case "company 100":
			company0 = v.Documents
		}
	}
	if !slices.Equal(mine, []int64{100}) || slices.Contains(company0, 100) {
		t.Errorf("the user's organisation of document 100 must replace the extracted one: mine %v, company 100 %v", mine, company0)
	}
	if n := len(got["kind"]); n != 1 || len(got["kind"][0].Documents) != 100 {
		t.Errorf("kinds %+v, want 10-k on 100 documents", got["kind"])
	}
	if other, err := k.Facets.CollectionFacetValues(ctx, 2, []string{"year"}); err != nil || len(other["year"]) != 0 {
		t.Errorf("another collection: %v %v", other, err)
	}

	big := facetLibrary(t, 20000)
	rows, err := big.db.QueryContext(ctx, `EXPLAIN QUERY PLAN SELECT f.document_id, f.name, f.source, f.value, f.norm FROM documents d
		JOIN document_facets f ON f.document_id = d.id
		WHERE d.collection_id = ? AND d.status = ? AND f.name IN (?,?,?)`, 1, StatusReady, "year", "org", "kind")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	p := strings.Join(plan, "\n")
	t.Logf("plan:\n%s", p)
	if strings.Contains(p, "SCAN ") {
		t.Errorf("a table is scanned:\n%s", p)
	}
}
