package kbagent

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"proofglass/backend/agent"
	"proofglass/backend/grounding"
	"proofglass/backend/kb"
	"proofglass/backend/model"
	"proofglass/backend/pdf"
	"proofglass/backend/search"
)

// Deps are the long-lived parts a question is answered with.
type Deps struct {
	KB     *kb.KB
	Search *search.Searcher
	PDF    *pdf.Renderer
	Chat   model.Chat
	Log    *slog.Logger
	// Password returns the remembered password of an encrypted PDF; nil means none.
	Password func(kb.Document) string
	// Query is the base of every search (mode, weights); the run's collection is added to it.
	Query search.Query
	// Grounder checks every answer against its evidence; nil means one over KB without on-demand OCR. A long-lived
	// one (the library's) keeps the regions it OCRed across runs.
	Grounder *grounding.Grounder
	// LookupTimeout bounds the model look-ups before a run (0: agent.DefaultLookupTimeout).
	LookupTimeout time.Duration
	// Hold, when set, marks a run as alive while it goes (a lock file its process holds): a later start of
	// Proofglass marks a run no process holds as interrupted. It returns the release, called once the run is stored.
	Hold func(runID int64) (release func())
}

// Ask answers question as a stored run: it creates the run, runs the agent with the knowledge base behind it,
// stores every event (and the outcome) and passes each to sink after storing it. It returns the run's id even
// when the run failed or was cancelled.
func Ask(ctx context.Context, d Deps, conversationID int64, cfg agent.Config, question string, sink agent.Sink) (int64, agent.Result, error) {
	mode := cfg.Mode
	if mode == "" {
		mode = agent.ModeVRAG
	}
	run, err := d.KB.History.CreateRun(ctx, kb.Run{ConversationID: conversationID, Question: question, Mode: string(mode),
		Provider: cfg.Provider, Model: cfg.Model})
	if err != nil {
		return 0, agent.Result{}, err
	}
	if d.Hold != nil {
		defer d.Hold(run.ID)()
	}
	cfg.Conversation = conversationID
	q := d.Query
	if cfg.Collection != "" {
		q.Collections = []string{cfg.Collection}
	}
	if len(cfg.Documents) > 0 {
		q.DocumentIDs = cfg.Documents // every search of the run stays inside the scope
	}
	a := &agent.Agent{
		Chat:      d.Chat,
		Retriever: &Retriever{Searcher: d.Search, Base: q, Prefer: docIDs(cfg.Prefer)},
		Renderer:  &Renderer{KB: d.KB, PDF: d.PDF, Password: d.Password},
		Frames:    &Frames{KB: d.KB},
		Blobs:     &Blobs{KB: d.KB, RunID: run.ID},
		Log:       d.Log,

		LookupTimeout: d.LookupTimeout,
	}
	// Every answer is checked against the words of the regions and pages it cites (no model call).
	if d.Grounder != nil {
		a.Grounder = d.Grounder
	} else {
		a.Grounder = &grounding.Grounder{KB: d.KB.Content, Log: d.Log}
	}
	rec := NewRecorder(ctx, d.KB, run.ID, sink)
	res, runErr := a.Run(ctx, ID(run.ID), cfg, question, rec.Sink)
	if res.RunID == "" {
		// The agent refused to start (a bad mode): no done event will close the run, so close it here.
		_ = d.KB.History.FinishRun(context.WithoutCancel(ctx), run.ID, "failed", "", nil)
		return run.ID, res, runErr
	}
	if err := rec.Err(); err != nil {
		return run.ID, res, fmt.Errorf("run %d: stored copy incomplete: %w", run.ID, err)
	}
	return run.ID, res, runErr
}

// docIDs are the numeric ids of refs (refs with a malformed id are left out).
func docIDs(refs []agent.DocRef) []int64 {
	var ids []int64
	for _, r := range refs {
		if id, err := strconv.ParseInt(r.ID, 10, 64); err == nil && id > 0 {
			ids = append(ids, id)
		}
	}
	return ids
}
