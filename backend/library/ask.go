package library

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync/atomic"

	"proofglass/backend/agent"
	"proofglass/backend/facets"
	"proofglass/backend/kbagent"
	"proofglass/backend/model"
	"proofglass/backend/search"
)

// Scope is where a question or a search looks: a collection, documents by id or by file name, and a facet filter;
// each narrows the others, and all empty is the whole library.
type Scope struct {
	Collection    string
	Documents     []int64
	DocumentNames []string // ids or file names, as the CLI's --doc and /v1/ask's documents give them
	Where         string   // "org=acme,year=2022,kind=10-K"
}

// ErrNoCollection is a scope naming a collection the library does not have (HTTP 404).
var ErrNoCollection = errors.New("no such collection")

// RequestError is a question or search the library refuses as asked: an unknown document, a bad filter, options out
// of range. Faces answer it as the caller's mistake (HTTP 400); errors.Is still sees kb.ErrNotFound through it.
type RequestError struct{ Err error }

func (e *RequestError) Error() string { return e.Err.Error() }
func (e *RequestError) Unwrap() error { return e.Err }

// IsRequestError reports whether err is the caller's mistake rather than the library's failure.
func IsRequestError(err error) bool {
	var re *RequestError
	return errors.As(err, &re)
}

func refused(err error) error {
	if err == nil {
		return nil
	}
	return &RequestError{Err: err}
}

// Documents resolves a scope to the ids of the documents it allows (nil = no document limit; the collection and
// where filter may still narrow a search). Names and ids are checked one way for every face: each must exist and,
// with a collection, belong to it.
func (l *Library) Documents(ctx context.Context, s Scope) ([]int64, error) {
	refs := make([]string, 0, len(s.Documents)+len(s.DocumentNames))
	for _, id := range s.Documents {
		refs = append(refs, strconv.FormatInt(id, 10))
	}
	refs = append(refs, s.DocumentNames...)
	if s.Collection != "" {
		if err := l.collectionExists(ctx, s.Collection); err != nil {
			return nil, err
		}
	}
	var ids []int64
	if len(refs) > 0 {
		var err error
		if ids, err = search.ResolveDocuments(ctx, l.KB, s.Collection, refs); err != nil {
			return nil, refused(err)
		}
	}
	ids, err := facets.ScopeDocuments(ctx, l.KB, s.Where, ids)
	return ids, refused(err)
}

// AskRequest is one question as every face hands it to the library.
type AskRequest struct {
	Question string
	// ConversationID continues a conversation (0 starts one, titled by the question); a follow-up is understood
	// from its earlier turns.
	ConversationID int64
	// RunOnly stores the run without a conversation (MCP's ask, evaluations): no messages, no follow-up rewrite.
	RunOnly bool
	Scope
	Options RunOptions
	// Chat runs the question with this client instead of the profile's (tests; servers given a model).
	Chat model.Chat
	Log  *slog.Logger
}

// Question is a checked question, ready to ask: its scope resolved and its run configured, nothing stored yet.
type Question struct {
	l      *Library
	req    AskRequest
	chat   model.Chat
	cfg    agent.Config
	convID atomic.Int64
}

// Prepare checks a question before anything is stored or any model called: its scope (every document named exists,
// the filter reads) and its run options (mode, profile, limits, sampling, context window). A refusal is a
// RequestError.
func (l *Library) Prepare(ctx context.Context, req AskRequest) (*Question, error) {
	if req.Question == "" {
		return nil, refused(errors.New("the question is empty"))
	}
	if req.Collection != "" && req.Options.Collection == "" {
		req.Options.Collection = req.Collection
	}
	req.Scope.Collection = req.Options.Collection
	docs, err := l.Documents(ctx, req.Scope)
	if err != nil {
		return nil, err
	}
	chat, cfg, err := l.agentConfig(req.Chat, req.Options)
	if err != nil {
		return nil, refused(err)
	}
	cfg.Documents = docs
	return &Question{l: l, req: req, chat: chat, cfg: cfg}, nil
}

// Config is the agent configuration the question will run with.
func (q *Question) Config() agent.Config { return q.cfg }

// ConversationID is the question's conversation once Ask has recorded it (0 before, and for a run-only question).
func (q *Question) ConversationID() int64 { return q.convID.Load() }

// Ask records the question in its conversation, answers it as a stored run (follow-up rewrite, scope hint from the
// documents earlier answers cited, grounding) and records the answer; sink sees every event as it happens. An
// unknown conversation is kb.ErrNotFound, before any event.
func (q *Question) Ask(ctx context.Context, sink agent.Sink) (Turn, error) {
	l := q.l
	if q.req.RunOnly {
		var t Turn
		var err error
		t.RunID, t.Result, err = kbagent.Ask(ctx, l.AgentDeps(q.chat, q.req.Log), 0, q.cfg, q.req.Question, sink)
		return t, err
	}
	convID, err := l.BeginTurn(ctx, q.req.ConversationID, q.req.Question)
	if err != nil {
		return Turn{}, err
	}
	q.convID.Store(convID)
	t, err := l.answerTurn(ctx, convID, q.chat, q.cfg, q.req.Question, q.req.Log, sink)
	t.ConversationID = convID
	return t, err
}

// Ask checks and answers one question: Prepare, then Question.Ask.
func (l *Library) Ask(ctx context.Context, req AskRequest, sink agent.Sink) (Turn, error) {
	q, err := l.Prepare(ctx, req)
	if err != nil {
		return Turn{}, err
	}
	return q.Ask(ctx, sink)
}
