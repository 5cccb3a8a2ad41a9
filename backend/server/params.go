package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"proofglass/backend/facets"
	"proofglass/backend/search"
	"proofglass/backend/vision"
)

// Limits of the VRAG search endpoints. A request is bounded by its total work (queries × top_k pages), not by a
// count of queries: VRAG-RL sends 100 queries per GET and its validation a whole batch at once.
const (
	// MaxTopK is the most pages one query may ask for.
	MaxTopK = 100
	// MaxPagesPerRequest bounds Σ top_k over a request's queries (1,000 queries × 10 pages fit twice).
	MaxPagesPerRequest = 20000
	// MaxQueryTerms and MaxQueryRunes cut a long query: it keeps its first 64 whitespace-separated terms and at most
	// 512 characters of them. A 90 KB query is searched as its beginning, not refused and not run in full.
	MaxQueryTerms = 64
	MaxQueryRunes = 512
	// maxSearchBody bounds a POST /search body (1,000 queries of 8 KB each).
	maxSearchBody = 8 << 20
	// maxRegionCoord bounds region coordinates (raw pixels) before any page is looked at.
	maxRegionCoord = 1 << 20
	// maxImagePixels bounds one /v1/units/ID/image render, and is its default size.
	maxImagePixels = 4 << 20
	// maxImageSide bounds either side of a /v1/units/ID/image render.
	maxImageSide = 8192
)

// searchParams is a parsed, validated VRAG search request.
type searchParams struct {
	Queries     []string // already cut to MaxQueryTerms/MaxQueryRunes; may be blank
	TopK        int
	VRAGRet     bool
	Collections []string // search_corpus / collection; empty = all
	Mode        search.Mode
	// Where admits only documents whose facets pass it ("org=acme,year=2022"), as given: the library reads it for
	// the search; with it set, no page from outside the filter completes a short list.
	Where string
}

// maxWhereBytes bounds a facet filter (a few clauses are plenty).
const maxWhereBytes = 1 << 10

// badParam is a request the client must change; the handlers answer 400 with its text.
type badParam struct{ msg string }

func (b badParam) Error() string { return b.msg }

func badf(format string, a ...any) error { return badParam{fmt.Sprintf(format, a...)} }

// CutQuery applies MaxQueryTerms and MaxQueryRunes, and replaces invalid UTF-8.
func CutQuery(q string) string {
	q = strings.ToValidUTF8(q, "\uFFFD")
	fields := strings.Fields(q)
	if len(fields) > MaxQueryTerms {
		fields = fields[:MaxQueryTerms]
	}
	q = strings.Join(fields, " ")
	if utf8.RuneCountInString(q) > MaxQueryRunes {
		n := 0
		for i := range q {
			if n == MaxQueryRunes {
				q = q[:i]
				break
			}
			n++
		}
	}
	return q
}

// searchBody is VRAG's POST /search body: the newer API's {"queries", "top_k", "vrag_ret"}, the FAISS API's
// "search_corpus", and Proofglass's "collection" and "mode".
type searchBody struct {
	Queries      *[]string       `json:"queries"`
	TopK         *int            `json:"top_k"`
	VRAGRet      bool            `json:"vrag_ret"`
	SearchCorpus json.RawMessage `json:"search_corpus"`
	Collection   string          `json:"collection"`
	Mode         string          `json:"mode"`
	Where        string          `json:"where"`
}

// parseSearchPOST validates a POST /search body. top_k defaults to 3, the newer API's default.
func parseSearchPOST(body []byte) (searchParams, error) {
	var b searchBody
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&b); err != nil {
		return searchParams{}, badf(`body must be JSON like {"queries":["…"],"top_k":3}: %v`, err)
	}
	if dec.More() {
		return searchParams{}, badf("body must be one JSON object")
	}
	if b.Queries == nil {
		return searchParams{}, badf(`"queries" is required: a list of strings`)
	}
	p := searchParams{TopK: 3, VRAGRet: b.VRAGRet}
	if b.TopK != nil {
		p.TopK = *b.TopK
	}
	var corpus []string
	if len(b.SearchCorpus) > 0 && string(b.SearchCorpus) != "null" {
		var one string
		if err := json.Unmarshal(b.SearchCorpus, &one); err == nil {
			corpus = []string{one}
		} else if err := json.Unmarshal(b.SearchCorpus, &corpus); err != nil {
			return searchParams{}, badf(`"search_corpus" must be a collection name, a list of names, or null`)
		}
	}
	if b.Collection != "" {
		corpus = append(corpus, b.Collection)
	}
	return p.finish(*b.Queries, corpus, b.Mode, b.Where)
}

// parseSearchGET validates VRAG's first API: GET /search?queries=a&queries=b (top_k 10 unless given).
func parseSearchGET(q url.Values) (searchParams, error) {
	qs, ok := q["queries"]
	if !ok {
		return searchParams{}, badf("queries is required: /search?queries=…&queries=…")
	}
	p := searchParams{TopK: 10}
	if v := q.Get("top_k"); v != "" {
		k, err := strconv.Atoi(v)
		if err != nil {
			return searchParams{}, badf("top_k must be a whole number, got %q", v)
		}
		p.TopK = k
	}
	var corpus []string
	for _, name := range []string{"search_corpus", "collection"} {
		for _, c := range q[name] {
			if c != "" {
				corpus = append(corpus, c)
			}
		}
	}
	return p.finish(qs, corpus, q.Get("mode"), q.Get("where"))
}

func (p searchParams) finish(queries, corpus []string, mode, where string) (searchParams, error) {
	if len(where) > maxWhereBytes {
		return p, badf("where is over %d bytes", maxWhereBytes)
	}
	if _, err := facets.ParseWhere(where); err != nil { // refused before the request takes a search slot
		return p, badParam{err.Error()}
	}
	p.Where = where
	if p.TopK < 1 || p.TopK > MaxTopK {
		return p, badf("top_k must be between 1 and %d, got %d", MaxTopK, p.TopK)
	}
	if len(queries)*p.TopK > MaxPagesPerRequest {
		return p, badf("%d queries × top_k %d = %d pages: at most %d pages per request; split the batch",
			len(queries), p.TopK, len(queries)*p.TopK, MaxPagesPerRequest)
	}
	m, err := search.ParseMode(mode)
	if err != nil {
		return p, badParam{err.Error()}
	}
	p.Mode = m
	for _, c := range corpus {
		if len(c) > 200 {
			return p, badf("collection name longer than 200 bytes")
		}
	}
	p.Collections = corpus
	p.Queries = make([]string, len(queries))
	for i, q := range queries {
		p.Queries[i] = CutQuery(q)
	}
	return p, nil
}

// imageParams is a parsed /v1/units/ID/image request.
type imageParams struct {
	UnitID    int64
	Region    vision.Rect // zero = whole unit
	MaxPixels int
}

// parseImageParams validates the unit id, region and max_pixels of /v1/units/ID/image, before any lookup.
func parseImageParams(id string, q url.Values) (imageParams, error) {
	var p imageParams
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return p, badf("unit id must be a positive number, got %q", id)
	}
	p.UnitID = n
	if v := q.Get("region"); v != "" {
		r, err := ParseRegion(v)
		if err != nil {
			return p, err
		}
		p.Region = r
	}
	p.MaxPixels = maxImagePixels
	if v := q.Get("max_pixels"); v != "" {
		m, err := strconv.Atoi(v)
		if err != nil || m < 1 || m > maxImagePixels {
			return p, badf("max_pixels must be a whole number from 1 to %d, got %q", maxImagePixels, v)
		}
		p.MaxPixels = m
	}
	return p, nil
}

// ParseRegion reads "x0,y0,x1,y1" in raw page pixels: four finite numbers from 0 to 2^20 with x0 < x1 and y0 < y1.
func ParseRegion(s string) (vision.Rect, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return vision.Rect{}, badf("region must be x0,y0,x1,y1 (four numbers), got %q", truncate(s, 80))
	}
	var v [4]float64
	for i, part := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return vision.Rect{}, badf("region coordinate %q is not a finite number", truncate(part, 40))
		}
		if f < 0 || f > maxRegionCoord {
			return vision.Rect{}, badf("region coordinate %g is outside 0…%d raw pixels", f, maxRegionCoord)
		}
		v[i] = f
	}
	r := vision.Rect{X0: v[0], Y0: v[1], X1: v[2], Y1: v[3]}
	if !(r.X1 > r.X0 && r.Y1 > r.Y0) {
		return vision.Rect{}, badf("region must have x0 < x1 and y0 < y1 (a non-empty area), got %q", truncate(s, 80))
	}
	return r, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
