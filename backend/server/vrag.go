package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"

	"proofglass/backend/library"
	"proofglass/backend/pagefile"
	"proofglass/backend/search"
)

// VRAG's search API in both shapes. Every query is answered on its own: a blank query, a query the full-text
// syntax would choke on, or one that finds nothing still gets min(N, top_k) pages, completed in fill order (see
// fillItems), so a VRAG client never sees an empty list while the collection has pages. Errors are {"detail": …}.

// resultItem is one item of the newer API's data list: VRAG's {type, file_path} plus where it came from.
type resultItem struct {
	Type     string `json:"type"`
	FilePath string `json:"file_path"`
	// Name is VRAG's whole name of the page, {stem}_{page}: file_path's base name without ".jpg", unless the stem
	// had to be cut to fit a file name (255 bytes); a client scoring against its golden pages compares this.
	Name       string  `json:"name"`
	UnitType   string  `json:"unit_type"` // page, image or video_frame
	UnitID     int64   `json:"unit_id"`
	DocumentID int64   `json:"document_id"`
	Doc        string  `json:"doc"`
	Collection string  `json:"collection"`
	Page       int     `json:"page"`
	Text       string  `json:"snippet,omitempty"`
	Score      float64 `json:"score"`
	// Found is false for an item that completes the list in fill order rather than matching the query.
	Found bool `json:"found"`
	// Rerank and FirstRank are set when a reranker scored the item: its relevance and the first stage's rank
	// (Score stays the first stage's fused score).
	Rerank    *float64 `json:"rerank,omitempty"`
	FirstRank int      `json:"first_rank,omitempty"`
}

type queryResult struct {
	Score  []float64    `json:"score"`
	Indice []int64      `json:"indice"`
	Data   []resultItem `json:"data"`
}

// legacyItem is the HEAD API's shape: {"idx", "image_file"}.
type legacyItem struct {
	Idx       int    `json:"idx"`
	ImageFile string `json:"image_file"`
}

func detail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"detail": msg})
}

func (s *Server) searchPOST(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxSearchBody))
	if err != nil {
		status, msg := bodyStatus(err, maxSearchBody)
		switch status {
		case http.StatusRequestEntityTooLarge:
			msg += ": split the batch"
		case http.StatusBadRequest:
			msg = fmt.Sprintf("reading the request body: %v", err)
		}
		detail(w, status, msg)
		return
	}
	p, err := parseSearchPOST(body)
	if err != nil {
		detail(w, http.StatusBadRequest, err.Error())
		return
	}
	s.answerSearch(w, r, p, !p.VRAGRet)
}

// searchGET is the HEAD API: GET /search?queries=a&queries=b, ten results per query, lists of {idx, image_file}.
func (s *Server) searchGET(w http.ResponseWriter, r *http.Request) {
	p, err := parseSearchGET(r.URL.Query())
	if err != nil {
		detail(w, http.StatusBadRequest, err.Error())
		return
	}
	s.answerSearch(w, r, p, false)
}

func (s *Server) answerSearch(w http.ResponseWriter, r *http.Request, p searchParams, newer bool) {
	// A request weighs what it will run side by side: one unit per distinct query, up to the whole machine.
	distinct := map[string]bool{}
	for _, q := range p.Queries {
		distinct[q] = true
	}
	release, ok := s.work.acquire(r.Context(), int64(len(distinct)))
	if !ok {
		busy(w, s.work)
		return
	}
	defer release()
	results, rerankErr, err := s.search(r.Context(), p)
	if rerankErr != "" {
		// Neither VRAG shape has room for it: a header says the results are in first-stage order, and why.
		w.Header().Set(RerankHeader, "failed: "+headerSafe(rerankErr))
	}
	switch {
	case err == nil:
	case errors.Is(err, library.ErrNoCollection):
		detail(w, http.StatusNotFound, err.Error())
		return
	case r.Context().Err() != nil:
		return // the client went away
	default:
		s.log.Error("search", "err", err)
		detail(w, http.StatusInternalServerError, s.public(err))
		return
	}
	if newer {
		writeJSON(w, http.StatusOK, map[string]any{"results": results})
		return
	}
	writeJSON(w, http.StatusOK, legacy(results))
}

func legacy(results []queryResult) [][]legacyItem {
	out := make([][]legacyItem, len(results))
	for i, r := range results {
		out[i] = make([]legacyItem, 0, len(r.Data))
		for j, d := range r.Data {
			out[i] = append(out[i], legacyItem{Idx: j, ImageFile: d.FilePath})
		}
	}
	return out
}

// RerankHeader is set on a /search answer whose reranker failed ("failed: reason"): its queries were answered in
// the first stage's order.
const RerankHeader = "X-Proofglass-Rerank"

// headerSafe makes an error message fit one header line.
func headerSafe(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r > 0x7e {
			return ' '
		}
		return r
	}, s)
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}

// search answers every query of p, and says why a reranker failed if it did for any query.
func (s *Server) search(ctx context.Context, p searchParams) ([]queryResult, string, error) {
	base, err := s.lib.SearchQuery(ctx, library.SearchRequest{K: p.TopK, Mode: p.Mode, Collections: p.Collections,
		Scope: library.Scope{Where: p.Where}})
	if err != nil {
		return nil, "", err
	}
	hits, rerankErr := s.searchDistinct(ctx, base, p.Queries)
	if err := ctx.Err(); err != nil {
		return nil, rerankErr, err
	}
	cands, err := s.candidates(ctx, p, len(base.Where) > 0, hits)
	if err != nil {
		return nil, rerankErr, err
	}
	paths, err := s.candidatePages(ctx, cands, p.TopK)
	if err != nil {
		return nil, rerankErr, err
	}
	out := make([]queryResult, len(p.Queries))
	for qi, cs := range cands {
		out[qi] = queryResultOf(cs, paths, p.TopK)
	}
	return out, rerankErr, nil
}

// searchDistinct searches the queries of p, each distinct one once (a rollout batch repeats queries, and blanks),
// on up to a goroutine a CPU; it says why a reranker failed if it did for any query.
func (s *Server) searchDistinct(ctx context.Context, base search.Query, queries []string) ([][]search.Hit, string) {
	var rerankMu sync.Mutex
	rerankErr := ""
	hits := make([][]search.Hit, len(queries))
	first := map[string]int{}
	var distinct []int
	for i, q := range queries {
		if _, ok := first[q]; !ok {
			first[q] = i
			distinct = append(distinct, i)
		}
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(len(distinct), runtime.NumCPU()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				var failed string
				hits[i], failed = s.searchOne(ctx, base, queries[i])
				if failed != "" {
					rerankMu.Lock()
					rerankErr = failed
					rerankMu.Unlock()
				}
			}
		}()
	}
	for _, i := range distinct {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, q := range queries {
		hits[i] = hits[first[q]]
	}
	return hits, rerankErr
}

// candidate is one unit a query may return: a hit, or a unit of the fill order.
type candidate struct {
	it    item
	hit   *search.Hit
	found bool
}

// candidates are each query's candidates: its hits, then the fill order (none for a filtered search, which returns
// only what passes the filter).
func (s *Server) candidates(ctx context.Context, p searchParams, filtered bool, hits [][]search.Hit) ([][]candidate, error) {
	var fill []item
	if !filtered {
		var err error
		if fill, err = s.fillItems(ctx, p.Collections, 2*p.TopK+16); err != nil {
			return nil, err
		}
	}
	var ids []int64
	seen := map[int64]bool{}
	for _, hs := range hits {
		for _, h := range hs {
			if !seen[h.UnitID] {
				seen[h.UnitID] = true
				ids = append(ids, h.UnitID)
			}
		}
	}
	items, err := s.loadItems(ctx, ids)
	if err != nil {
		return nil, err
	}
	cands := make([][]candidate, len(hits))
	for qi, hs := range hits {
		in := map[int64]bool{}
		for i := range hs {
			if it, ok := items[hs[i].UnitID]; ok && !in[it.UnitID] {
				in[it.UnitID] = true
				cands[qi] = append(cands[qi], candidate{it: it, hit: &hs[i], found: true})
			}
		}
		for _, it := range fill {
			if !in[it.UnitID] {
				in[it.UnitID] = true
				cands[qi] = append(cands[qi], candidate{it: it})
			}
		}
	}
	return cands, nil
}

// candidatePages makes the page files of each query's first topK candidates, in rounds: a candidate whose page file
// fails gives its place to the next one, whose page file the next round makes. It returns the page files by unit.
func (s *Server) candidatePages(ctx context.Context, cands [][]candidate, topK int) (map[int64]string, error) {
	paths := map[int64]string{}
	failed := map[int64]error{}
	for {
		var need []item
		queued := map[int64]bool{}
		for _, cs := range cands {
			got := 0
			for _, c := range cs {
				if got == topK {
					break
				}
				if failed[c.it.UnitID] != nil {
					continue
				}
				got++
				if paths[c.it.UnitID] == "" && !queued[c.it.UnitID] {
					queued[c.it.UnitID] = true
					need = append(need, c.it)
				}
			}
		}
		if len(need) == 0 {
			return paths, nil
		}
		ps, fs := s.pageFiles(ctx, need)
		for id, path := range ps {
			paths[id] = path
		}
		for id, err := range fs {
			failed[id] = err
			s.log.Warn("search: page file", "unit", id, "err", err)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(fs) == 0 && len(ps) == len(need) {
			return paths, nil
		}
	}
}

// queryResultOf is one query's answer: its first topK candidates that have a page file.
func queryResultOf(cs []candidate, paths map[int64]string, topK int) queryResult {
	qr := queryResult{Score: []float64{}, Indice: []int64{}, Data: []resultItem{}}
	for _, c := range cs {
		if len(qr.Data) == topK {
			break
		}
		path := paths[c.it.UnitID]
		if path == "" {
			continue
		}
		ri := resultItem{Type: c.it.vragType(), FilePath: path, Name: pagefile.PageName(c.it.PageItem), UnitType: c.it.unitType(), UnitID: c.it.UnitID,
			DocumentID: c.it.DocID, Doc: c.it.DocName, Collection: c.it.Collection, Page: c.it.Ordinal, Found: c.found}
		if c.hit != nil {
			ri.Score, ri.Text, ri.Rerank, ri.FirstRank = c.hit.Score, c.hit.Snippet, c.hit.Rerank, c.hit.FirstRank
		}
		qr.Score = append(qr.Score, ri.Score)
		qr.Indice = append(qr.Indice, ri.UnitID)
		qr.Data = append(qr.Data, ri)
	}
	return qr
}

// searchOne runs one query; a blank query finds nothing, and a query the engine rejects is logged and answered in
// fill order like one that finds nothing. The second result says why the reranker failed, if it did.
func (s *Server) searchOne(ctx context.Context, base search.Query, text string) ([]search.Hit, string) {
	if strings.TrimSpace(text) == "" || ctx.Err() != nil {
		return nil, ""
	}
	q := base
	q.Text = text
	res, err := s.lib.Searcher.Search(ctx, q)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("search: query failed; answered in fill order", "err", err)
		}
		return nil, ""
	}
	if r := res.Rerank; r != nil && !r.Reranked {
		s.log.Warn("search: reranker failed; answered in first-stage order", "reranker", r.Reranker, "err", r.Error)
		return res.Hits, r.Error
	}
	return res.Hits, ""
}
