package search

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"loupe/backend/glove"
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
func (q *queryWords) nameShare(question []string, name string) float64 {
	if q.total == 0 {
		return 0
	}
	pairs := map[[2]string]bool{}
	for i := 1; i < len(question); i++ {
		pairs[[2]string{question[i-1], question[i]}] = true
	}
	seen := map[string]bool{}
	var got float64
	ns := contentStems(name)
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
	q, err := newQueryWords(text)
	if err != nil || q.total == 0 {
		return signal{}, err
	}
	args := make([]any, len(docs))
	for i, d := range docs {
		args[i] = d
	}
	rows, err := s.kb.DB().QueryContext(ctx, `SELECT d.id, d.name, d.meta,
		coalesce((SELECT u.text FROM units u WHERE u.document_id = d.id ORDER BY u.ordinal LIMIT 1), '')
		FROM documents d WHERE d.id IN (`+placeholders(len(docs))+`)`, args...)
	if err != nil {
		return signal{}, fmt.Errorf("search: document names: %w", err)
	}
	defer rows.Close()
	share := map[int64]float64{}
	qs := contentStems(text)
	for rows.Next() {
		var id int64
		var name, meta, first string
		if err := rows.Scan(&id, &name, &meta, &first); err != nil {
			return signal{}, fmt.Errorf("search: document names: %w", err)
		}
		if sh := q.nameShare(qs, docName(name, meta, first)); sh > 0 {
			share[id] = sh
		}
	}
	if err := rows.Err(); err != nil {
		return signal{}, fmt.Errorf("search: document names: %w", err)
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
