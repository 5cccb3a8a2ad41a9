package questioner

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"

	"proofglass/backend/kb"
)

// Page is one page of a document to write questions from: its unit (text and word boxes, as the knowledge base
// stores them), its document's name and facets.
type Page struct {
	Unit         kb.Unit
	DocumentName string
	Facets       map[string]string // e.g. "org", "year", "kind", "title": may be empty
}

// Question is a retrieval example.
type Question struct {
	Text       string
	UnitID     int64
	DocumentID int64
	Page       int    // the unit's Ordinal
	Kind       string // "table-cell", "caption", "heading", "sentence"
}

// The kinds of question, as Question.Kind names them.
const (
	kindTableCell = "table-cell"
	kindCaption   = "caption"
	kindHeading   = "heading"
	kindSentence  = "sentence"
)

// Options bound and seed the questions Generate writes.
type Options struct {
	Seed    uint64 // the same pages and seed give the same questions
	PerPage int    // at most this many questions per page (default 2)
	Max     int    // at most this many questions in all (default 0 = no limit)
}

// minPageWords is the least text a page needs: below it a page is a cover, a figure or a blank, and a question
// about it would mostly be about its neighbours.
const minPageWords = 20

// Generate writes questions whose answer is on their page, from the pages' text and structure.
func Generate(pages []Page, o Options) []Question {
	gs := generate(pages, o)
	out := make([]Question, len(gs))
	for i, g := range gs {
		out[i] = g.Question
	}
	return out
}

// generated is a question with what the tests check it against: the figure a table-cell question asks for.
type generated struct {
	Question
	value string
}

// pick is a page's chosen candidate, with the page's index and its own order on the page.
type pick struct {
	page, order int
	c           candidate
	r           *rand.Rand
}

// generate is Generate keeping each table-cell question's value.
func generate(pages []Page, o Options) []generated {
	if o.PerPage <= 0 {
		o.PerPage = 2
	}
	perPage := make([][]pick, len(pages))
	for i, p := range pages {
		pg := readPage(p)
		if pg == nil {
			continue
		}
		r := pageRand(o.Seed, i, p.Unit)
		for j, c := range choose(candidates(pg, r), o.PerPage, r) {
			perPage[i] = append(perPage[i], pick{page: i, order: j, c: c, r: r})
		}
	}
	chosen := spread(perPage, o.Max)
	seen := map[string]bool{}
	var out []generated
	for _, pk := range chosen {
		text := finish(pk.c, pk.r)
		key := strings.ToLower(text)
		if text == "" || seen[key] {
			continue
		}
		seen[key] = true
		u := pages[pk.page].Unit
		out = append(out, generated{Question: Question{Text: text, UnitID: u.ID, DocumentID: u.DocumentID,
			Page: u.Ordinal, Kind: pk.c.kind}, value: pk.c.value})
	}
	return out
}

// pageRand is a page's own random source: the seed and the page, so a page's questions do not depend on how many
// random draws the pages before it took.
func pageRand(seed uint64, index int, u kb.Unit) *rand.Rand {
	h := uint64(u.ID)*0x9e3779b97f4a7c15 ^ uint64(u.DocumentID)*0xbf58476d1ce4e5b9 ^
		uint64(u.Ordinal)*0x94d049bb133111eb ^ uint64(index+1)
	return rand.New(rand.NewPCG(seed, h))
}

// choose takes up to n of a page's candidates, cycling through the kinds in a random order so one page's questions
// are of different kinds where it offers them.
func choose(cs []candidate, n int, r *rand.Rand) []candidate {
	byKind := map[string][]candidate{}
	var kinds []string
	for _, c := range cs {
		if byKind[c.kind] == nil {
			kinds = append(kinds, c.kind)
		}
		byKind[c.kind] = append(byKind[c.kind], c)
	}
	r.Shuffle(len(kinds), func(a, b int) { kinds[a], kinds[b] = kinds[b], kinds[a] })
	var out []candidate
	for len(out) < n {
		took := false
		for _, k := range kinds {
			if len(out) == n || len(byKind[k]) == 0 {
				continue
			}
			list := byKind[k]
			i := r.IntN(len(list))
			out = append(out, list[i])
			byKind[k] = append(list[:i:i], list[i+1:]...)
			took = true
		}
		if !took {
			break
		}
	}
	return out
}

// spread keeps at most max picks (all when max is 0): round by round it takes each page's next pick, and where a
// round has more pages than room left it takes pages evenly spaced through the list, so a limit samples the whole
// library rather than its first documents. The picks come back in page order.
func spread(perPage [][]pick, max int) []pick {
	var out []pick
	for round := 0; ; round++ {
		var avail []pick
		for _, ps := range perPage {
			if round < len(ps) {
				avail = append(avail, ps[round])
			}
		}
		if len(avail) == 0 {
			break
		}
		if room := max - len(out); max > 0 && room < len(avail) {
			for i := range room {
				out = append(out, avail[(2*i+1)*len(avail)/(2*room)])
			}
			break
		}
		out = append(out, avail...)
	}
	slices.SortFunc(out, func(a, b pick) int {
		return cmp.Or(cmp.Compare(a.page, b.page), cmp.Compare(a.order, b.order))
	})
	return out
}
