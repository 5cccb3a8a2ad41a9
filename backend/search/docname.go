package search

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"proofglass/backend/glove"
)

// The document-name signal. A question often names its document: by title ("the LOGIC-LM paper"), by the subject
// its cover states ("the hearing on improving … child nutrition programs"), by file name. A document's name is its
// file name, the title its metadata gives and the first words of its first page (where titles and covers stand);
// the candidates' documents are ranked by the rarity-weighted share of the question's words their names hold, and
// each candidate page takes its document's rank, as in the document-level pass.

const (
	// docNameWords is how much of a document's first page counts as its name: a title block, a cover.
	docNameWords = 40
	// docNameDocs bounds the documents whose names one search reads: those of the best candidates.
	docNameDocs = 20
)

// nameCache keeps the stems of documents' names, keyed by document and its last update (a re-ingested document
// gets a new name text): reading and stemming first pages is most of the signal's cost.
type nameCache struct {
	mu sync.Mutex
	m  map[int64]cachedName
}

type cachedName struct {
	updated int64
	stems   []string
}

// maxCachedNames bounds the cache; past it, it starts afresh.
const maxCachedNames = 4096

func (c *nameCache) get(doc, updated int64) ([]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.m[doc]
	return n.stems, ok && n.updated == updated
}

func (c *nameCache) put(doc, updated int64, stems []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedNames {
		c.m = map[int64]cachedName{}
	}
	c.m[doc] = cachedName{updated, stems}
}

// nameStems returns the content stems of the given documents' names, from the cache where it is current.
func (s *Searcher) nameStems(ctx context.Context, docs []int64) (map[int64][]string, error) {
	updated, err := s.kb.Search.DocumentsUpdated(ctx, docs)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	out := make(map[int64][]string, len(docs))
	var miss []int64
	for id, up := range updated {
		if st, ok := s.names.get(id, up); ok {
			out[id] = st
		} else {
			miss = append(miss, id)
		}
	}
	if len(miss) == 0 {
		return out, nil
	}
	names, err := s.kb.Search.DocumentNamings(ctx, miss)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	for _, n := range names {
		st := contentStems(docName(n.Name, n.Meta, n.FirstUnitText))
		s.names.put(n.ID, updated[n.ID], st)
		out[n.ID] = st
	}
	return out, nil
}

// docName is the text a document is named by.
func docName(file, meta, firstPage string) string {
	var m struct {
		PDF struct {
			Title string `json:"title"`
		} `json:"pdf"`
	}
	_ = json.Unmarshal([]byte(meta), &m) // no title without valid metadata
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	words := strings.Fields(firstPage)
	return base + "\n" + m.PDF.Title + "\n" + strings.Join(words[:min(len(words), docNameWords)], " ")
}

// contentStems are text's words as the word index matches them (Porter stems), stop words left out.
func contentStems(text string) []string {
	var out []string
	glove.Tokens(text, func(tok string) {
		if !glove.IsStopWord(tok) {
			out = append(out, stem(tok))
		}
	})
	return out
}

// nameShare is the rarity-weighted share (0 to 1) of the question's distinct words that stand in the name next to
// another question word they stand next to in the question: a name is cited by a phrase of it ("Limes Residential
// Home", "commodity distribution"), and lone words shared with a cover page are mostly chance.
func (q *queryWords) nameShare(question, ns []string) float64 {
	if q.total == 0 {
		return 0
	}
	pairs := map[[2]string]bool{}
	for i := 1; i < len(question); i++ {
		pairs[[2]string{question[i-1], question[i]}] = true
	}
	seen := map[string]bool{}
	var got float64
	for i := 1; i < len(ns); i++ {
		if !pairs[[2]string{ns[i-1], ns[i]}] {
			continue
		}
		for _, w := range ns[i-1 : i+1] {
			if j, ok := q.index[w]; ok && !seen[w] {
				seen[w] = true
				got += q.weight[j]
			}
		}
	}
	return got / q.total
}

// docNameSignal lists the fused candidates whose documents' names hold some of the question's words, best named
// document first; within a document the fused order decides.
func (s *Searcher) docNameSignal(ctx context.Context, fused []fusedUnit, info map[int64]pageInfo, text string, base map[int64]float64) (signal, error) {
	var docs []int64
	for _, f := range fused {
		if p, ok := info[f.id]; ok && !slices.Contains(docs, p.doc) {
			if docs = append(docs, p.doc); len(docs) == docNameDocs {
				break
			}
		}
	}
	if len(docs) == 0 {
		return signal{}, nil
	}
	qs := contentStems(text)
	if len(qs) < 2 {
		return signal{}, nil // no phrase to cite a name by
	}
	q, err := newQueryWords(text)
	if err != nil || q.total == 0 {
		return signal{}, err
	}
	names, err := s.nameStems(ctx, docs)
	if err != nil {
		return signal{}, err
	}
	share := map[int64]float64{}
	for id, ns := range names {
		if sh := q.nameShare(qs, ns); sh > 0 {
			share[id] = sh
		}
	}
	var sig signal
	for _, f := range fused {
		if p, ok := info[f.id]; ok && share[p.doc] > 0 {
			sig.ids = append(sig.ids, f.id)
			sig.scores = append(sig.scores, share[p.doc])
		}
	}
	sortByKeyThenBase(&sig, base, true)
	return sig, nil
}
