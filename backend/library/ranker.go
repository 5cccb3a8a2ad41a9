package library

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"proofglass/backend/learnrank"
	"proofglass/backend/model"
	"proofglass/backend/questioner"
)

// TeachRanker writes questions from the library's own pages and measures its ranking on the questions of documents
// held out; with o.Train it also trains a ranker on the other documents' questions and saves it, and every search
// uses it from then on. Every named collection must exist.
func (l *Library) TeachRanker(ctx context.Context, o learnrank.Options) (*learnrank.Report, error) {
	for _, c := range o.Collections {
		if err := l.collectionExists(ctx, c); err != nil {
			return nil, err
		}
	}
	return learnrank.Run(ctx, l.KB, l.Searcher, o)
}

// RankerReport is the report saved with the library's learned ranker; nil when it has none.
func (l *Library) RankerReport(ctx context.Context) (*learnrank.Report, error) {
	s, saved, err := l.KB.Search.RankerReport(ctx)
	if err != nil || saved.IsZero() {
		return nil, err
	}
	var r learnrank.Report
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return nil, fmt.Errorf("read ranker report: %w", err)
	}
	if r.Saved.IsZero() {
		r.Saved = saved.UTC().Truncate(time.Millisecond)
	}
	return &r, nil
}

// ForgetRanker deletes the library's learned rankers: searches go back to the hand-set weights.
func (l *Library) ForgetRanker(ctx context.Context) error {
	if err := l.KB.Search.DeleteRankers(ctx); err != nil {
		return err
	}
	l.Searcher.ForgetRanker()
	return nil
}

// RefreshRanker trains the library's learned ranker again when the library has grown or shrunk by a quarter since it
// was trained, asking as that training did: the ranker follows the library without the user asking. It returns
// the new report and why it ran; nil and "" when the library has no learned ranker, it is current, or a refresh is
// already running. A refreshed ranker that does worse is not kept (the gate of TeachRanker), and the next refresh
// then waits for the library to change by another quarter.
func (l *Library) RefreshRanker(ctx context.Context) (*learnrank.Report, string, error) {
	if !l.refreshMu.TryLock() {
		return nil, "", nil
	}
	defer l.refreshMu.Unlock()
	old, err := l.RankerReport(ctx)
	if err != nil || old == nil {
		return nil, "", err
	}
	pages, err := learnrank.Pages(ctx, l.KB, old.Asked.Collections)
	if err != nil {
		return nil, "", err
	}
	why := learnrank.Stale(old, pages)
	if why == "" {
		return nil, "", nil
	}
	o := old.Asked.Options()
	o.Log = slog.Default()
	rep, err := learnrank.Run(ctx, l.KB, l.Searcher, o)
	if err != nil {
		return nil, why, fmt.Errorf("refresh ranker (%s): %w", why, err)
	}
	if rep.Kept != "" && rep.KeptDocument != "" {
		if err := learnrank.MarkChecked(ctx, l.KB, pages); err != nil {
			return rep, why, err
		}
	}
	return rep, why, nil
}

// refreshRankerAfterBatch refreshes the learned ranker after an ingest batch, logging what it did: a failure to
// refresh never fails the ingest.
func (l *Library) refreshRankerAfterBatch(ctx context.Context) {
	rep, why, err := l.RefreshRanker(ctx)
	switch {
	case err != nil:
		slog.Warn("learned ranker not refreshed; searches keep the one they had", "err", err)
	case rep != nil:
		kept := "kept"
		if rep.Kept != "" {
			kept = rep.Kept
		}
		slog.Info("learned ranker refreshed", "why", why, "pages", rep.Pages, "held_out_hit5", rep.Library.HandSet.Hit5,
			"learned_hit5", rep.Library.Learned.Hit5, "whole_library", kept)
	}
}

// visualWidth is how wide a page is drawn for a vision model's questions: wide enough to read a table's figures,
// small enough for a local model's image budget.
const visualWidth = 1024

// VisualQuestioner is a questioner that shows page images to the vision model of a provider profile ("" = the
// agent default) and asks it for questions (modelName, or the profile's chat model).
func (l *Library) VisualQuestioner(profile, modelName string) (*questioner.Visual, error) {
	chat, _, name, err := l.Chat(profile, modelName)
	if err != nil {
		return nil, err
	}
	return &questioner.Visual{Chat: chat, Model: name, PerPage: 3,
		// A little temperature gives questions of more kinds than greedy decoding's first thought.
		Options: model.Options{Temperature: model.Float(0.7), MaxTokens: 256, Seed: model.Int(1)},
		Image: func(ctx context.Context, unitID int64) (*model.Image, error) {
			b, err := l.PageImage(ctx, unitID, visualWidth)
			if err != nil {
				return nil, err
			}
			return &model.Image{Data: b, MIME: http.DetectContentType(b)}, nil
		}}, nil
}
