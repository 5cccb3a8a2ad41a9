package ingest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"unicode"

	"proofglass/backend/kb"
)

// TestCancelMidBatch cancels an ingest while pages are extracted and batched: what was stored is whole (every
// unit has its extract step and its thumbnail on disk, every extract step its unit), the next ingest redoes only the
// pages not recorded, and afterwards every page of the document is in the full-text index.
func TestCancelMidBatch(t *testing.T) {
	path := testdata(t, "pdf", "real", crashDoc) // 134 pages: several batches
	const pages = 134
	in, k := newIngester(t, Options{NoOCR: true})
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	res, _ := in.Add(ctx, "c", []string{path}, func(p Progress) {
		if p.Stage == StageExtract {
			once.Do(cancel) // the first batch is committed; later pages are in flight or pending
		}
	})
	cancel()
	if len(res) != 1 || res[0].Document.ID == 0 {
		t.Fatalf("results %+v", res)
	}
	doc := res[0].Document.ID
	d, err := k.Docs.Document(context.Background(), doc)
	if err != nil || d.Status != kb.StatusIngesting {
		t.Fatalf("after cancel: %+v %v, want the document still ingesting", d, err)
	}
	bg := context.Background()
	steps, err := k.Content.Steps(bg, doc)
	if err != nil {
		t.Fatal(err)
	}
	extracted := map[int]bool{}
	for _, s := range steps {
		if s.Stage == StageExtract {
			extracted[s.Ordinal] = true
		}
	}
	us := units(t, k, doc)
	if len(extracted) == 0 || len(extracted) >= pages {
		t.Fatalf("%d pages recorded as extracted after the cancel, want some but not all %d", len(extracted), pages)
	}
	if len(us) != len(extracted) {
		t.Errorf("%d units stored, %d extract steps: a unit without its step or a step without its unit", len(us), len(extracted))
	}
	for _, u := range us {
		if !extracted[u.Ordinal] {
			t.Errorf("unit %d stored without its extract step", u.Ordinal)
		}
		if u.ThumbBlob == "" || !k.Blobs.Has(u.ThumbBlob) {
			t.Errorf("unit %d: thumbnail %q not on disk", u.Ordinal, u.ThumbBlob)
		}
	}

	var c collect
	res, err = in.Add(bg, "c", []string{path}, c.fn)
	if err != nil || res[0].Document.Status != kb.StatusReady {
		t.Fatalf("second ingest: %+v %v", res, err)
	}
	if got := c.stages(doc, StageExtract); got != pages-len(extracted) {
		t.Errorf("second ingest extracted %d pages, want only the %d not recorded", got, pages-len(extracted))
	}
	us = units(t, k, doc)
	if len(us) != pages {
		t.Fatalf("%d units, want %d", len(us), pages)
	}
	docRow, err := k.Docs.Document(bg, doc)
	if err != nil {
		t.Fatal(err)
	}
	sc := kb.Scope{Collections: map[int64]bool{docRow.CollectionID: true}, Documents: map[int64]bool{doc: true}}
	for _, u := range us {
		w := longestWord(u.Text)
		if w == "" {
			continue
		}
		hits, err := k.Search.MatchingUnitTexts(bg, `"`+w+`"`, sc, len(us))
		found := false
		for _, h := range hits {
			found = found || h.ID == u.ID
		}
		if err != nil || !found {
			t.Errorf("page %d: %q not found in the full-text index (%v)", u.Ordinal, w, err)
		}
	}
	if probs, err := k.Integrity(bg); err != nil || len(probs) > 0 {
		t.Errorf("integrity: %v %v", probs, err)
	}
}

// longestWord is the longest run of ASCII letters in s, a term the full-text index must have for its unit.
func longestWord(s string) string {
	best := ""
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r > unicode.MaxASCII || !unicode.IsLetter(r) }) {
		if len(f) > len(best) {
			best = f
		}
	}
	return best
}
