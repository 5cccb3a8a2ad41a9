package desktop

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"proofglass/backend/agent"
	"proofglass/backend/filegate"
	"proofglass/backend/kb"
	"proofglass/backend/kbagent"
	"proofglass/backend/library"
)

// ChatService is the chat screen: asking (an agent run whose events stream as agent:event), stopping a run, the
// stored conversations, their messages and run events, and exporting a conversation to a file the user chose.
type ChatService struct {
	c *core

	mu   sync.Mutex
	runs map[string]context.CancelFunc // in-flight agent runs by id, for Stop

	exports filegate.Gate // the one path the last save dialog returned
}

func newChatService(c *core) *ChatService {
	return &ChatService{c: c, runs: map[string]context.CancelFunc{},
		exports: filegate.Gate{Exts: []string{".md", ".markdown", ".html", ".htm"}}}
}

// AskRequest is a question from the chat screen.
type AskRequest struct {
	ConversationID int64   `json:"conversation_id"` // 0 starts a new conversation
	Question       string  `json:"question"`
	Documents      []int64 `json:"documents,omitempty"` // the scope: the agent searches these documents only; empty = all
	// Where narrows the scope to the documents whose facets pass it ("org=acme,year=2022,kind=10-K"; "" = none).
	Where string `json:"where,omitempty"`
	// Mode, model, sampling, limits and the context window of this run; unset = the profile's, else the mode's.
	library.AskOptions
}

// AskStarted names the run whose events will follow as agent:event.
type AskStarted struct {
	RunID          string `json:"run_id"`
	ConversationID int64  `json:"conversation_id"`
}

// Ask starts an agent run in the background; its events stream as agent:event and are stored for replay.
func (s *ChatService) Ask(r AskRequest) (AskStarted, error) {
	c := s.c
	if err := checkQuery("question", r.Question); err != nil {
		return AskStarted{}, err
	}
	for what, v := range map[string]string{"mode": r.Mode, "collection": r.Collection, "provider": r.Provider, "model": r.Model} {
		if err := checkName(what, v); err != nil {
			return AskStarted{}, err
		}
	}
	if len(r.Documents) > maxPaths {
		return AskStarted{}, errors.New("ask: too many documents in scope")
	}
	if err := c.ready(); err != nil {
		return AskStarted{}, err
	}
	if err := checkFacet("where", r.Where); err != nil {
		return AskStarted{}, err
	}
	q, err := c.lib.Prepare(c.ctx, library.AskRequest{Question: r.Question, ConversationID: r.ConversationID,
		Scope: library.Scope{Documents: r.Documents, Where: r.Where}, Options: r.RunOptions()})
	if err != nil {
		return AskStarted{}, err
	}
	ctx, cancel := context.WithCancel(c.ctx)
	started := make(chan string, 1)
	sink := func(ev agent.Event) {
		if ev.Kind == agent.KindRunStarted {
			s.mu.Lock()
			s.runs[ev.RunID] = cancel
			s.mu.Unlock()
			started <- ev.RunID
		}
		c.emit(eventAgent, ev)
	}
	failed := make(chan error, 1)
	go func() {
		defer cancel()
		t, err := q.Ask(ctx, sink)
		s.mu.Lock()
		delete(s.runs, kbagent.ID(t.RunID))
		s.mu.Unlock()
		if t.Result.RunID == "" {
			if err == nil {
				err = errors.New("the run did not start")
			}
			failed <- err
		}
	}()
	select {
	case id := <-started:
		return AskStarted{RunID: id, ConversationID: q.ConversationID()}, nil
	case err := <-failed:
		return AskStarted{}, err
	}
}

// Stop cancels a running agent run; it ends with a cancelled done event.
func (s *ChatService) Stop(runID string) {
	s.mu.Lock()
	cancel := s.runs[runID]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// stopAll cancels every running agent run, as the window closes.
func (s *ChatService) stopAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cancel := range s.runs {
		cancel()
	}
}

// Conversations lists chat threads, newest first.
func (s *ChatService) Conversations() ([]kb.Conversation, error) {
	if err := s.c.ready(); err != nil {
		return nil, err
	}
	return s.c.lib.KB.History.Conversations(s.c.ctx)
}

// Messages lists a conversation's turns.
func (s *ChatService) Messages(conversationID int64) ([]kb.Message, error) {
	if err := checkID("conversation", conversationID); err != nil {
		return nil, err
	}
	if err := s.c.ready(); err != nil {
		return nil, err
	}
	return s.c.lib.KB.History.Messages(s.c.ctx, conversationID)
}

// DeleteConversation removes a thread.
func (s *ChatService) DeleteConversation(id int64) error {
	if err := checkID("conversation", id); err != nil {
		return err
	}
	if err := s.c.ready(); err != nil {
		return err
	}
	return s.c.lib.KB.History.DeleteConversation(s.c.ctx, id)
}

// RunEvents returns a stored run's events (each the JSON of an agent.Event), for replay.
func (s *ChatService) RunEvents(runID int64) ([]json.RawMessage, error) {
	if err := checkID("run", runID); err != nil {
		return nil, err
	}
	if err := s.c.ready(); err != nil {
		return nil, err
	}
	evs, err := s.c.lib.KB.History.Events(s.c.ctx, runID)
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, len(evs))
	for i, e := range evs {
		out[i] = e.Data
	}
	return out, nil
}

// ChooseSavePath asks where to save an export, in a dialog titled in the window's language; "" when cancelled. The path chosen is remembered: it is the only
// one WriteTextFile will write, once.
func (s *ChatService) ChooseSavePath(defaultName, title string) (string, error) {
	if len(defaultName) > 255 || strings.ContainsAny(defaultName, "/\\\x00") {
		defaultName = "conversation.md"
	}
	ui := s.c.window()
	if ui == nil {
		return "", errNoWindow
	}
	path, err := ui.SaveFile(dialogTitle(title, "Export conversation"), defaultName)
	if err != nil {
		s.exports.Choose("")
		return "", err
	}
	s.exports.Choose(path)
	return path, nil
}

// WriteTextFile writes an export (Markdown or self-contained HTML) to the path the last ChooseSavePath returned,
// once: a script in the webview cannot use it to write ~/.bashrc or any path the user did not choose.
func (s *ChatService) WriteTextFile(path, content string) error {
	return s.exports.Write(path, []byte(content))
}
