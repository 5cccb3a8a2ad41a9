package library

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"proofglass/backend/kb"
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

// maxAutoSummaries bounds the documents one background pass summarises: a folder of a thousand files dropped in
// makes a thousand model calls only over many batches, never at once.
const maxAutoSummaries = 16

// autoSummaries is the background summariser of new documents: one pass at a time, asked again when a batch ends
// during a pass, stopped (and waited for) when the library closes.
type autoSummaries struct {
	mu      sync.Mutex
	running bool
	again   bool
	closed  bool
	cancel  context.CancelFunc
	done    chan struct{}
	// passed, when set (tests), is called after each pass with the documents it summarised.
	passed func(n int)
}

// summarizeNewDocuments starts a background pass over the ready documents without a summary, when the settings'
// ingest.summarize_after is on and a chat model is configured.
func (l *Library) summarizeNewDocuments() {
	if !l.Config.Current().Ingest.SummarizeAfter {
		return
	}
	if _, _, _, err := l.Chat("", ""); err != nil {
		slog.Debug("summaries after ingest: no chat model", "err", err)
		return
	}
	a := &l.summaries
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return
	}
	if a.running {
		a.again = true
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	a.running, a.cancel, a.done = true, cancel, make(chan struct{})
	go func() {
		defer close(a.done)
		defer cancel()
		for {
			n := l.summaryPass(ctx)
			a.mu.Lock()
			passed := a.passed
			again := a.again && ctx.Err() == nil
			a.again = false
			if !again {
				a.running = false
			}
			a.mu.Unlock()
			if passed != nil {
				passed(n)
			}
			if !again {
				return
			}
		}
	}()
}

// summaryPass summarises up to maxAutoSummaries ready documents that have no summary, newest first; it returns how
// many it summarised. A model that fails stops the pass (the next batch tries again).
func (l *Library) summaryPass(ctx context.Context) int {
	docs, err := l.KB.Docs.Documents(ctx, 0)
	if err != nil {
		slog.Warn("summaries after ingest: documents not listed", "err", err)
		return 0
	}
	n := 0
	for _, d := range docs {
		if n >= maxAutoSummaries || ctx.Err() != nil {
			break
		}
		if d.Status != kb.StatusReady || d.Pages == 0 {
			continue
		}
		if _, err := l.KB.Docs.DocumentSummary(ctx, d.ID); !errors.Is(err, kb.ErrNotFound) {
			continue // summarised already (or unreadable: not this pass's business)
		}
		s, err := l.Summarize(ctx, d.ID, SummaryRequest{})
		if err != nil {
			if ctx.Err() == nil {
				slog.Warn("summaries after ingest: stopped", "document", d.ID, "err", err)
			}
			break
		}
		n++
		slog.Info("document summarised after ingest", "document", d.ID, "figures", s.Figures, "grounded", s.Grounded,
			"mismatched", s.Mismatched)
	}
	return n
}

// stopSummaries cancels a background pass and waits for it to end.
func (l *Library) stopSummaries() {
	a := &l.summaries
	a.mu.Lock()
	a.closed = true
	cancel, done := a.cancel, a.done
	a.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}
