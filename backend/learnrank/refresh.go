package learnrank

import (
	"context"
	"encoding/json"
	"fmt"

	"proofglass/backend/kb"
)

// Asked are the choices a training's questions were written with.
type Asked struct {
	Collections []string `json:"collections,omitempty"`
	Questions   int      `json:"questions"`
	Held        float64  `json:"held"`
	Seed        uint64   `json:"seed"`
}

// Options are the choices to write a refresh's questions with: the same as the report's.
func (a Asked) Options() Options {
	return Options{Collections: a.Collections, Questions: a.Questions, Held: a.Held, Seed: a.Seed, Train: true}
}

// Pages counts the pages of the documents a ranker learns from: the ready PDFs of the collections (all when none
// is named).
func Pages(ctx context.Context, k *kb.KB, collections []string) (int, error) {
	docs, err := documents(ctx, k, collections)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range docs {
		n += d.Pages
	}
	return n, nil
}

// Stale says why a ranker trained as rep says should be trained again for a library of pages pages: it has grown
// or shrunk by a quarter (and by at least 50 pages) since it was trained, or since a refresh last tried. "" when
// it is current.
func Stale(rep *Report, pages int) string {
	base := max(rep.Pages, rep.CheckedPages)
	step := max(50, base/4)
	switch {
	case pages >= base+step:
		return fmt.Sprintf("the library has grown from %d to %d pages since the ranker was trained", base, pages)
	case pages <= base-step:
		return fmt.Sprintf("the library has shrunk from %d to %d pages since the ranker was trained", base, pages)
	}
	return ""
}

// MarkChecked notes in the stored rankers' reports that a refresh trained at pages pages and kept none, so the next
// refresh waits for the library to change by another quarter. The models stay as they are.
func MarkChecked(ctx context.Context, k *kb.KB, pages int) error {
	for _, scope := range []string{kb.RankLibrary, kb.RankDocument} {
		model, saved, err := k.Search.Ranker(ctx, scope)
		if err != nil {
			return err
		}
		if len(model) == 0 {
			continue
		}
		s, err := k.Search.ScopeReport(ctx, scope)
		if err != nil {
			return err
		}
		var rep Report
		if err := json.Unmarshal([]byte(s), &rep); err != nil {
			return fmt.Errorf("refresh ranker: report of scope %q: %w", scope, err)
		}
		rep.CheckedPages = pages
		b, err := json.Marshal(rep)
		if err != nil {
			return fmt.Errorf("refresh ranker: %w", err)
		}
		if err := k.Search.SaveRanker(ctx, scope, model, string(b), saved); err != nil {
			return err
		}
	}
	return nil
}
