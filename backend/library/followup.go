package library

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"proofglass/backend/agent"
	"proofglass/backend/followup"
	"proofglass/backend/kb"
)

// maxPreferredDocs bounds the soft scope hint: the documents the most recent answers cited, newest first.
const maxPreferredDocs = 5

// FollowUp returns what a new question of conversationID continues: the earlier turns (question, answer and the
// pages it cited) and the documents those answers cited, as the run's soft scope hint. The newest user message is
// the question being asked (BeginTurn stored it) and is left out. A new conversation gives nil, nil.
func (l *Library) FollowUp(ctx context.Context, conversationID int64) (*agent.FollowUp, []agent.DocRef, error) {
	msgs, err := l.KB.History.Messages(ctx, conversationID)
	if err != nil {
		return nil, nil, fmt.Errorf("conversation %d: %w", conversationID, err)
	}
	if n := len(msgs); n > 0 && msgs[n-1].Role == "user" {
		msgs = msgs[:n-1]
	}
	// Each run's events are read once, for both the turns and the scope hint.
	outcomes := map[int64]runOutcome{}
	outcome := func(runID int64) (runOutcome, error) {
		if o, ok := outcomes[runID]; ok {
			return o, nil
		}
		o, err := l.runOutcome(ctx, runID)
		if err == nil {
			outcomes[runID] = o
		}
		return o, err
	}
	left := 0 // user messages not yet visited: a rewrite sees only the last followup.MaxTurns turns
	for _, m := range msgs {
		if m.Role == "user" {
			left++
		}
	}
	var turns []followup.Turn
	for i, m := range msgs {
		if m.Role != "user" {
			continue
		}
		left--
		turns = append(turns, followup.Turn{Question: m.Content})
		if i+1 >= len(msgs) || msgs[i+1].Role != "assistant" {
			continue
		}
		a := msgs[i+1]
		turns[len(turns)-1].Answer = a.Content
		if a.RunID == 0 || left >= followup.MaxTurns {
			continue // older than the rewrite looks: its run need not be read
		}
		o, err := outcome(a.RunID)
		if err != nil {
			return nil, nil, err
		}
		t := &turns[len(turns)-1]
		if o.rewrite != nil && o.rewrite.Rewritten {
			t.Question = o.rewrite.Question // the standalone form carries its own context into later rewrites
		}
		if o.answer != nil {
			for _, c := range o.answer.Citations {
				t.Citations = append(t.Citations, followup.Citation{Document: c.DocumentName, Page: c.Page})
			}
		}
	}
	if len(turns) == 0 {
		return nil, nil, nil
	}
	fu := &agent.FollowUp{History: turns, Off: l.Config.Current().Agent.FollowUps == "off"}
	return fu, l.citedDocs(ctx, msgs, outcome), nil
}

// citedDocs are the documents the conversation's answers cited, most recent answer first, that still exist.
func (l *Library) citedDocs(ctx context.Context, msgs []kb.Message, outcome func(int64) (runOutcome, error)) []agent.DocRef {
	var refs []agent.DocRef
	seen := map[string]bool{}
	for i := len(msgs) - 1; i >= 0 && len(refs) < maxPreferredDocs; i-- {
		if msgs[i].Role != "assistant" || msgs[i].RunID == 0 {
			continue
		}
		o, err := outcome(msgs[i].RunID)
		if err != nil || o.answer == nil {
			continue
		}
		for _, c := range o.answer.Citations {
			if seen[c.DocumentID] || len(refs) == maxPreferredDocs {
				continue
			}
			seen[c.DocumentID] = true
			id, err := strconv.ParseInt(c.DocumentID, 10, 64)
			if err != nil {
				continue
			}
			d, err := l.KB.Docs.Document(ctx, id)
			if err != nil { // deleted since: nothing to prefer
				continue
			}
			refs = append(refs, agent.DocRef{ID: c.DocumentID, Name: d.Name})
		}
	}
	return refs
}

// runOutcome is what a stored run's answer and rewrite events said (nil where it had none).
type runOutcome struct {
	answer  *agent.AnswerInfo
	rewrite *agent.RewriteInfo
}

func (l *Library) runOutcome(ctx context.Context, runID int64) (runOutcome, error) {
	var o runOutcome
	evs, err := l.KB.History.Events(ctx, runID)
	if err != nil {
		return o, fmt.Errorf("events of run %d: %w", runID, err)
	}
	for _, e := range evs {
		if e.Type != string(agent.KindAnswer) && e.Type != string(agent.KindRewrite) {
			continue
		}
		var ev agent.Event
		if err := json.Unmarshal(e.Data, &ev); err != nil {
			return o, fmt.Errorf("%s event of run %d: %w", e.Type, runID, err)
		}
		if ev.Answer != nil {
			o.answer = ev.Answer
		}
		if ev.Rewrite != nil {
			o.rewrite = ev.Rewrite
		}
	}
	return o, nil
}
