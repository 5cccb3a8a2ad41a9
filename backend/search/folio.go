package search

import (
	"context"
	"regexp"
	"strconv"
	"strings"
)

// Printed page numbers. A question may name a page by the number printed on it ("the figure at the top of page
// 6985", "the beginning of page(1)"), which differs from its place in the file when a document has front matter
// or is an excerpt of a journal. The candidates whose first or last line is such a folio join the pages named by
// position in the page-reference signal. Only the fused candidates are read, so the cost is bounded whatever the
// size of the knowledge base.

// folioDepth is how many of the best fused candidates are checked for a printed page number.
const folioDepth = 100

// folioRE matches a line that is only a page number: "12", "(1)", "- 7 -", "Page 3", "Page 3 of 17", "p. 4".
var folioRE = regexp.MustCompile(`(?i)^[\s\-–—(\[]*(?:page|p\.)?\s*(\d{1,5})\s*(?:of\s+\d{1,5})?[\s\-–—)\]]*$`)

// folio returns the number printed as a header or footer of a page's text: its first or last non-empty line.
func folio(text string) (int, bool) {
	first, last := "", ""
	for line := range strings.Lines(text) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if first == "" {
			first = line
		}
		last = line
	}
	for _, l := range []string{first, last} {
		if m := folioRE.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				return n, true
			}
		}
	}
	return 0, false
}

// folioPages returns the fused candidates (best first) whose printed page number is one the question names.
func (s *Searcher) folioPages(ctx context.Context, fused []fusedUnit, refs []pageRef) ([]int64, error) {
	want := map[int]bool{}
	for _, r := range refs {
		if !r.last {
			want[r.n] = true
		}
	}
	if len(want) == 0 || len(fused) == 0 {
		return nil, nil
	}
	ids := make([]int64, min(len(fused), folioDepth))
	for i := range ids {
		ids[i] = fused[i].id
	}
	texts, err := s.unitTexts(ctx, ids)
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, id := range ids {
		if n, ok := folio(texts[id]); ok && want[n] {
			out = append(out, id)
		}
	}
	return out, nil
}
