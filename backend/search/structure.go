package search

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
)

// Structure signals re-rank the fused list with what page text and the question's form say beyond word overlap:
// the documents whose pages together match best (a document-level pass), the pages that caption or head the
// figures, tables and sections a question names, and the pages it names by number. Each is a ranked list fused by
// reciprocal rank like the base signals.

// StructureWeights scale the structure signals (0 turns one off).
type StructureWeights struct {
	Doc   float64 `json:"doc"`   // document-level pass
	Label float64 `json:"label"` // pages that caption/head a named figure, table or section
	Page  float64 `json:"page"`  // pages named by number ("page 3", "the last page")
	Name  float64 `json:"name"`  // pages of the documents whose names the question's words match (docname.go)
	// Figure lists the captioned pages among the best candidates for questions about an unnamed figure (figintent.go).
	Figure float64 `json:"figure"`
	// Passage is λ of the passage boost of BM25 scores (passage.go), applied before fusion.
	Passage float64 `json:"passage"`
	// Facet ranks the pages of the documents whose facets the question names (a year, a quarter, an organisation,
	// a kind of filing) by BM25 among those documents (facetsignal.go).
	Facet float64 `json:"facet"`
}

// DefaultStructure are the weights a search uses unless Query.Structure sets others, as measured on
// shared/eval/dev with `proofglass eval retrieval` (whole collection, recall@5): the document pass alone took 0.594 to
// 0.636, page references at 0.3 to 0.646; captions/headings of named labels at 0.3 kept recall@5 and raised recall@1
// 0.353 → 0.372 and MRR 0.571 → 0.586 (at 1 they cost recall@5). A neighbouring-page signal cost 0.04 recall@5 and
// was dropped; so was dropping question words ("answer", "shown"), which cost 0.03.
// The passage boost took recall@5 0.646 → 0.672 and MRR 0.586 → 0.620 (passage.go). Document names at 0.3 (and
// equally at 1) took recall@1 0.421 → 0.439 and MRR 0.634 → 0.643, recall@5 unchanged (docname.go). Captioned
// pages for figure questions at 0.3 (the label weight) took recall@5 0.672 → 0.691 (figure 0.464 → 0.536), per
// document 0.800 → 0.819; at 1 the same recall@5, lower MRR. With the document pass and names in place, labels
// at BM25's own weight (1, plain reciprocal-rank fusion) took recall@5 0.691 → 0.703 (table 0.743 → 0.774,
// pure text 0.718 → 0.724, no source lower), MRR 0.649 → 0.660, per document unchanged; 0.5–0.7 gave 0.694, 1.5
// 0.703, 2 0.694 (figure lower). Try others with `proofglass eval retrieval --structure label=…`.
var DefaultStructure = StructureWeights{Doc: 1, Label: 1, Page: 0.3, Passage: 1, Name: 0.3, Figure: 0.3, Facet: 2}

// ParseStructure reads structure weights as "doc=1,label=0.5"; unnamed signals keep DefaultStructure's weights.
func ParseStructure(s string) (StructureWeights, error) {
	w := DefaultStructure
	err := parseNamedWeights(s, "structure weight", []string{"doc", "label", "page", "name", "figure", "passage", "facet"},
		[]*float64{&w.Doc, &w.Label, &w.Page, &w.Name, &w.Figure, &w.Passage, &w.Facet})
	return w, err
}

// docTopPages is how many of a document's best pages sum to its document-level score: enough to reward a
// document whose pages between them hold the question's words, few enough not to favour long documents.
const docTopPages = 3

// The structure signals, in the order a candidate's ranks in them are kept (fusedUnit.structure).
const (
	structDoc = iota
	structName
	structFacet
	structFigure
	structLabel
	structPage
	numStructure
)

// pageInfo is where a candidate unit sits.
type pageInfo struct {
	doc int64
}

// restructure adds the structure signals to the fused candidates and re-sorts them.
func (s *Searcher) restructure(ctx context.Context, fused []fusedUnit, bm25 signal, q question, t terms, sc *scope, w StructureWeights, k, depth int) ([]fusedUnit, error) {
	if len(fused) == 0 {
		return fused, nil
	}
	ids := make([]int64, len(fused))
	for i, f := range fused {
		ids[i] = f.id
	}
	info, err := s.pageInfo(ctx, ids)
	if err != nil {
		return nil, err
	}
	base := make(map[int64]float64, len(fused))
	for _, f := range fused {
		base[f.id] = f.score
	}
	var extra []signal
	var weights []float64
	var kinds []int // which structure signal each of extra is

	// Document-level pass: documents by the sum of their best pages' BM25 scores.
	if w.Doc > 0 && len(bm25.ids) > 0 {
		docScore := map[int64][]float64{}
		for i, id := range bm25.ids {
			if p, ok := info[id]; ok && len(docScore[p.doc]) < docTopPages {
				docScore[p.doc] = append(docScore[p.doc], bm25.scores[i])
			}
		}
		type ds struct {
			doc int64
			s   float64
		}
		var docs []ds
		for d, ss := range docScore {
			var t float64
			for _, x := range ss {
				t += x
			}
			docs = append(docs, ds{d, t})
		}
		slices.SortFunc(docs, func(a, b ds) int { return cmp.Or(cmp.Compare(b.s, a.s), cmp.Compare(a.doc, b.doc)) })
		docRank := map[int64]int{}
		for i, d := range docs {
			docRank[d.doc] = i + 1
		}
		// Each page takes its document's rank; within a document the fused order decides.
		var sig signal
		for _, f := range fused {
			if p, ok := info[f.id]; ok && docRank[p.doc] > 0 {
				sig.ids = append(sig.ids, f.id)
				sig.scores = append(sig.scores, float64(docRank[p.doc]))
			}
		}
		sortByKeyThenBase(&sig, base, false)
		extra, weights, kinds = append(extra, sig), append(weights, w.Doc), append(kinds, structDoc)
	}

	if w.Name > 0 {
		// "page 1" names a page, not a document.
		text := pageEndRE.ReplaceAllString(pageNumRE.ReplaceAllString(q.text, " "), " ")
		sig, err := s.docNameSignal(ctx, fused, info, text, base)
		if err != nil {
			return nil, err
		}
		extra, weights, kinds = append(extra, sig), append(weights, w.Name), append(kinds, structName)
	}

	if w.Facet > 0 {
		sig, err := s.facetSignal(ctx, q.text, t, sc, depth)
		if err != nil {
			return nil, err
		}
		extra, weights, kinds = append(extra, sig), append(weights, w.Facet), append(kinds, structFacet)
	}

	if w.Figure > 0 && len(q.labels) == 0 && figureIntentRE.MatchString(q.text) {
		sig, err := s.figureSignal(ctx, fused, base)
		if err != nil {
			return nil, err
		}
		extra, weights, kinds = append(extra, sig), append(weights, w.Figure), append(kinds, structFigure)
	}

	if w.Label > 0 && len(q.labels) > 0 {
		sig, err := s.labelSignal(ctx, q.labels, sc, base)
		if err != nil {
			return nil, err
		}
		extra, weights, kinds = append(extra, sig), append(weights, w.Label), append(kinds, structLabel)
	}
	if w.Page > 0 && len(q.pages) > 0 {
		sig, err := s.pageSignal(ctx, q.pages, sc, base)
		if err != nil {
			return nil, err
		}
		printed, err := s.folioPages(ctx, fused, q.pages)
		if err != nil {
			return nil, err
		}
		for _, id := range printed {
			if !slices.Contains(sig.ids, id) {
				sig.ids = append(sig.ids, id)
				sig.scores = append(sig.scores, 0)
			}
		}
		sortByKeyThenBase(&sig, base, false)
		extra, weights, kinds = append(extra, sig), append(weights, w.Page), append(kinds, structPage)
	}
	add := map[int64]float64{}
	ranks := map[int64]*[numStructure]int{}
	for i, sig := range extra {
		for r, id := range sig.ids {
			add[id] += weights[i] / float64(k+r+1)
			if ranks[id] == nil {
				ranks[id] = &[numStructure]int{}
			}
			if ranks[id][kinds[i]] == 0 {
				ranks[id][kinds[i]] = r + 1
			}
		}
	}
	for i := range fused {
		fused[i].score += add[fused[i].id]
		if r := ranks[fused[i].id]; r != nil {
			fused[i].structure = *r
		}
		delete(add, fused[i].id)
	}
	for id, sc := range add { // pages only a structure signal found
		fused = append(fused, fusedUnit{id: id, score: sc, structure: *ranks[id]})
	}
	slices.SortStableFunc(fused, func(a, b fusedUnit) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(base[b.id], base[a.id]), cmp.Compare(a.id, b.id))
	})
	return fused, nil
}

// sortByKeyThenBase orders a signal by its scores (ascending ranks when desc is false), ties by the base fused
// score.
func sortByKeyThenBase(sig *signal, base map[int64]float64, desc bool) {
	idx := make([]int, len(sig.ids))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		c := cmp.Compare(sig.scores[a], sig.scores[b])
		if desc {
			c = -c
		}
		return cmp.Or(c, cmp.Compare(base[sig.ids[b]], base[sig.ids[a]]), cmp.Compare(sig.ids[a], sig.ids[b]))
	})
	ids, scores := make([]int64, len(idx)), make([]float64, len(idx))
	for i, j := range idx {
		ids[i], scores[i] = sig.ids[j], sig.scores[j]
	}
	sig.ids, sig.scores = ids, scores
}

// pageInfo loads the document of the given units (from the unit rows alone: each is a lookup in a large table).
func (s *Searcher) pageInfo(ctx context.Context, ids []int64) (map[int64]pageInfo, error) {
	out := make(map[int64]pageInfo, len(ids))
	if ix := s.lex.Load(); ix != nil {
		// The in-memory word index knows most units' documents: only the others cost a query.
		var rest []int64
		for _, id := range ids {
			if d, ok := ix.DocumentOf(id); ok {
				out[id] = pageInfo{doc: d}
			} else {
				rest = append(rest, id)
			}
		}
		ids = rest
	}
	docs, err := s.kb.Search.UnitDocuments(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("search: page info: %w", err)
	}
	for id, d := range docs {
		out[id] = pageInfo{doc: d}
	}
	return out, nil
}

// maxLabelPages bounds the pages one label signal lists: a label mentioned on hundreds of pages says little.
const maxLabelPages = 50

// labelSignal lists the pages that caption or head a named label ("Figure 2: …", "3.3 Results"), by fused score.
func (s *Searcher) labelSignal(ctx context.Context, labels []label, sc *scope, base map[int64]float64) (signal, error) {
	var sig signal
	seen := map[int64]bool{}
	for _, l := range labels {
		phrase := l.kind + " " + l.num
		phrases := []string{phrase}
		switch l.kind {
		case "section":
			phrase, phrases = l.num, []string{l.num} // headings are "3.3 Title", seldom "Section 3.3"
		case "figure", "table":
			// Captions are often abbreviated ("Fig. 2.", "Tab. 1"); the word index drops the dot.
			phrases = append(phrases, l.kind[:3]+" "+l.num)
		}
		matches, err := s.kb.Search.MatchingUnitTexts(ctx, ftsOr(phrases), sc.kbScope(), maxLabelPages)
		if err != nil {
			return signal{}, fmt.Errorf("search: label %s: %w", phrase, err)
		}
		re := captionRE(l)
		for _, m := range matches {
			if seen[m.ID] || !re.MatchString(m.Text) {
				continue // a mere mention is BM25's to weigh
			}
			seen[m.ID] = true
			sig.ids = append(sig.ids, m.ID)
			sig.scores = append(sig.scores, 0)
		}
	}
	sortByKeyThenBase(&sig, base, false)
	return sig, nil
}

// captionRE matches the line that captions a figure or table ("Figure 2: Overview…", "Table 1. Results") or
// heads a section ("3.3 Post-hoc Correction", "Section 3.3 …").
func captionRE(l label) *regexp.Regexp {
	num := regexp.QuoteMeta(l.num)
	var kind string
	switch l.kind {
	case "figure":
		kind = `(?:figure|fig\s*\.?)` // OCR spaces the dot: "FIG . 2 ."
	case "table":
		kind = `(?:table|tab\s*\.?)`
	case "section":
		return regexp.MustCompile(`(?im)^\s*(?:section\s+|§\s*)?` + num + `\.?\s+\p{Lu}`)
	default:
		kind = regexp.QuoteMeta(l.kind)
	}
	return regexp.MustCompile(`(?im)^\s*` + kind + `\s*` + num + `\s*[:.|—–-]`)
}

// pageSignal lists the pages the question names by number, in the documents of the scope.
func (s *Searcher) pageSignal(ctx context.Context, refs []pageRef, sc *scope, base map[int64]float64) (signal, error) {
	var sig signal
	seen := map[int64]bool{}
	for _, r := range refs {
		ids, err := s.kb.Search.UnitsAtOrdinal(ctx, sc.kbScope(), r.n, r.last)
		if err != nil {
			return signal{}, fmt.Errorf("search: page reference: %w", err)
		}
		for _, id := range ids {
			if !seen[id] {
				seen[id] = true
				sig.ids = append(sig.ids, id)
				sig.scores = append(sig.scores, 0)
			}
		}
	}
	sortByKeyThenBase(&sig, base, false)
	return sig, nil
}
