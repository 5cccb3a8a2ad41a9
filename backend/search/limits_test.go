package search

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestHugeQueriesStayWithinSQLiteLimits: any query text, however long, is searched without SQLite's "Expression
// tree is too large" or an FTS5 syntax error reaching the user, and the words of the query still find their page.
func TestHugeQueriesStayWithinSQLiteLimits(t *testing.T) {
	ctx := context.Background()
	k := openWithRealPDF(t)
	addPDF(t, k, collection(t, k, "c"), testdata(t, "pdf/cjk/zhlipsum.pdf"))
	s := New(k, Options{})
	words := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "w%dq ", i)
		}
		return b.String()
	}
	cases := map[string]string{
		"1,000 words and a 2-char CJK run":  words(1000) + "中文 variance",
		"1,000 words and a 1-char CJK run":  "variance 中 " + words(1000),
		"1,000 distinct CJK runs":           strings.Repeat("中a文b", 1000),
		"100 KB of words":                   strings.Repeat("variance analysis of the data ", 100<<10/30),
		"100 KB of distinct words":          words(100 << 10 / 7),
		"100 KB of CJK text":                strings.Repeat("统计分析方差检验", 100<<10/24),
		"100 KB of FTS5 syntax":             strings.Repeat(`"a" OR (b NEAR c) AND -d* ^e:f `, 100<<10/32),
		"1,000 words of 1-2 char CJK runs":  strings.Repeat("中 文字 ", 1000),
		"mixed 100 KB with short CJK first": "中 " + words(100<<10/7),
	}
	for name, q := range cases {
		t.Run(name, func(t *testing.T) {
			for _, mode := range []Mode{BM25, Hybrid} {
				if _, err := s.Search(ctx, Query{Text: q, K: 5, Mode: mode}); err != nil {
					t.Fatalf("%s (%d bytes): %v", mode, len(q), err)
				}
			}
		})
	}
	// The cap keeps the query useful: a word the page holds still finds it after a long tail of other words.
	res, err := s.Search(ctx, Query{Text: "variance 中 " + words(1000), K: 3, Mode: BM25})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("capped query found nothing: %v", err)
	}
}
