package library

import (
	"context"
	"testing"

	"proofglass/backend/kb"
)

// Search resolves its scope the way Prepare does, so every face refuses the same mistakes and narrows the same way;
// a filter that nothing passes finds nothing instead of failing.
func TestSearchScopeAndRefusals(t *testing.T) {
	ctx := context.Background()
	lib, docs := openWithDocs(t)
	pdf, img := docs["pdf"], docs["image"]
	whole, err := lib.Search(ctx, SearchRequest{Text: "blood loss", K: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Hits) == 0 || whole.Hits[0].DocumentID != pdf.ID {
		t.Fatalf("whole library: %d hits, want the report first", len(whole.Hits))
	}
	narrowed := map[string]struct {
		req  SearchRequest
		only int64 // every hit from this document; 0 = no hit at all
	}{
		"by id":               {SearchRequest{Scope: Scope{Documents: []int64{pdf.ID}}}, pdf.ID},
		"the other document":  {SearchRequest{Scope: Scope{Documents: []int64{img.ID}}}, 0},
		"by file name":        {SearchRequest{Scope: Scope{DocumentNames: []string{pdf.Name}}}, pdf.ID},
		"in the collection":   {SearchRequest{Scope: Scope{Collection: "docs", Documents: []int64{pdf.ID}}}, pdf.ID},
		"any of collections":  {SearchRequest{Collections: []string{"docs"}, Scope: Scope{Documents: []int64{pdf.ID}}}, pdf.ID},
		"filter passes none":  {SearchRequest{Scope: Scope{Where: "org=nobody at all"}}, 0},
		"explicit result cap": {SearchRequest{K: 1, Scope: Scope{DocumentNames: []string{pdf.Name}}}, pdf.ID},
	}
	for name, c := range narrowed {
		t.Run(name, func(t *testing.T) {
			c.req.Text = "blood loss"
			res, err := lib.Search(ctx, c.req)
			if err != nil {
				t.Fatal(err)
			}
			if c.only == 0 && len(res.Hits) != 0 {
				t.Fatalf("%d hits, want none", len(res.Hits))
			}
			if c.only != 0 && len(res.Hits) == 0 {
				t.Fatal("no hits in the scope")
			}
			if c.req.K > 0 && len(res.Hits) > c.req.K {
				t.Errorf("%d hits, asked for %d", len(res.Hits), c.req.K)
			}
			for _, h := range res.Hits {
				if h.DocumentID != c.only {
					t.Errorf("hit from document %d, want only %d", h.DocumentID, c.only)
				}
			}
		})
	}
	refused := map[string]struct {
		req  SearchRequest
		want string
		is   error
	}{
		"unknown collection":        {SearchRequest{Scope: Scope{Collection: "elsewhere"}}, "elsewhere", ErrNoCollection},
		"unknown in collections":    {SearchRequest{Collections: []string{"docs", "nope"}}, "nope", ErrNoCollection},
		"unknown file name":         {SearchRequest{Scope: Scope{DocumentNames: []string{"nope.pdf"}}}, "nope.pdf", kb.ErrNotFound},
		"unknown id":                {SearchRequest{Scope: Scope{Documents: []int64{999999}}}, "999999", kb.ErrNotFound},
		"filter unreadable":         {SearchRequest{Scope: Scope{Where: "year=soon"}}, "want a year", nil},
		"unknown mode":              {SearchRequest{Mode: "psychic"}, "unknown mode", nil},
		"more results than allowed": {SearchRequest{K: MaxSearchK + 1}, "k must be", nil},
		"negative results":          {SearchRequest{K: -1}, "k must be", nil},
	}
	for name, c := range refused {
		t.Run(name, func(t *testing.T) {
			c.req.Text = "blood loss"
			_, err := lib.Search(ctx, c.req)
			wantRefusal(t, err, c.want, c.is)
		})
	}
}
