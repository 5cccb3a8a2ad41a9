package library

import (
	"context"
	"errors"

	"proofglass/backend/summary"
)

// SummaryRequest asks for a document's summary: by the chat model of a provider profile ("" = the agent default)
// and model ("" = the profile's chat model), asked again when Refresh is set.
type SummaryRequest struct {
	Profile string
	Model   string
	Refresh bool
}

// Outline is a document at a glance, read offline: sections, tables, figures and key figures with their pages.
// A missing document is a RequestError.
func (l *Library) Outline(ctx context.Context, docID int64) (summary.Glance, error) {
	g, err := summary.Outline(ctx, l.KB, docID)
	if errors.Is(err, summary.ErrNoDocument) {
		return g, refused(err)
	}
	return g, err
}

// StoredSummary is a document's stored summary with its outline (false: none stored yet, the outline alone).
func (l *Library) StoredSummary(ctx context.Context, docID int64) (summary.Summary, bool, error) {
	s, ok, err := summary.Stored(ctx, l.KB, docID)
	if errors.Is(err, summary.ErrNoDocument) {
		return s, false, refused(err)
	}
	return s, ok, err
}

// Summarize asks the chat model for a document's summary, each figure checked against the page it cites; a stored
// one comes back at once unless req.Refresh. With the error of a model that fails, the outline still comes back.
// A missing document or no chat model configured is a RequestError.
func (l *Library) Summarize(ctx context.Context, docID int64, req SummaryRequest) (summary.Summary, error) {
	opts := summary.Options{Refresh: req.Refresh}
	chat, p, modelName, chatErr := l.Chat(req.Profile, req.Model)
	if chatErr == nil {
		opts.Model = modelName
		if p.ContextLength > 0 {
			opts.NumCtx = p.ContextLength
		}
	} else {
		chat = nil
		opts.Model = req.Model
	}
	s, err := summary.Summarize(ctx, l.KB, chat, docID, opts)
	if errors.Is(err, summary.ErrNoDocument) {
		return s, refused(err)
	}
	if errors.Is(err, summary.ErrNoModel) && chatErr != nil {
		return s, refused(errors.Join(err, chatErr))
	}
	return s, err
}
