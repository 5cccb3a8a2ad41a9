package grounding

import (
	"context"
	"strings"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/kb"
)

// TestGroundScannedPage grounds figures of a scanned page without a text layer (linn.pdf, a 1985 brochure) in the
// words tesseract recognised at ingest: "holds over 110,000 notes per disk", "Each of the 100 sequences contains 32
// simultaneous, polyphonic tracks", "one of 16 MIDI channels", "up to 999 bars".
func TestGroundScannedPage(t *testing.T) {
	k, docs := ingested(t, true, "pdf/scanned/linn.pdf")
	u := docs["linn.pdf"][0]
	if u.TextSource != kb.TextOCR || len(u.Words) == 0 {
		t.Fatalf("page text source %q with %d words: want OCR words", u.TextSource, len(u.Words))
	}
	row := rowRegion(t, u, "110,000")
	c := agent.Citation{UnitID: ref(u), DocumentName: "linn.pdf", Page: 1, Region: row}
	crop := agent.Event{Kind: agent.KindCrop, Crop: &agent.CropInfo{UnitID: ref(u), DocumentName: "linn.pdf", Page: 1, Region: *row}}
	g := &Grounder{KB: k.Content}
	cases := []struct {
		answer string
		want   map[string]string // claim → status
		found  map[string]string // claim → the words found
	}{
		{"The disk drive holds over 110,000 notes per disk. Each of the 100 sequences has 32 tracks on 16 MIDI channels; a song runs up to 999 bars.",
			map[string]string{"110,000": agent.GroundRegion, "100": agent.GroundCitedPage,
				"32": agent.GroundRegion, // the zoomed line reads "Ultra-fast 32” disk drive … 110,000 notes"
				"16": agent.GroundCitedPage, "999": agent.GroundCitedPage},
			map[string]string{"110,000": "110,000"}},
		{"The disk drive holds over 120,000 notes per disk.",
			map[string]string{"120,000": agent.GroundMismatch},
			map[string]string{"120,000": "110,000"}},
	}
	for _, tc := range cases {
		info, err := g.Ground(context.Background(), agent.AnswerInfo{Text: tc.answer, Citations: []agent.Citation{c}}, []agent.Event{crop})
		if err != nil {
			t.Fatal(err)
		}
		for claim, status := range tc.want {
			got := claimNamed(t, info, claim)
			if got.Status != status {
				t.Errorf("%q: %s (%s), want %s", claim, got.Status, got.Note, status)
				continue
			}
			if got.Found == nil || len(got.Found.Boxes) == 0 {
				t.Errorf("%q: no OCR word boxes: %+v", claim, got.Found)
				continue
			}
			if w, ok := tc.found[claim]; ok && strings.TrimRight(got.Found.Text, ".,;!") != w {
				t.Errorf("%q: found %q, want %q", claim, got.Found.Text, w)
			}
		}
	}
}
