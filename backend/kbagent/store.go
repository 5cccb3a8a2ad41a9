package kbagent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"proofglass/backend/agent"
	"proofglass/backend/kb"
)

// Blobs stores the agent's images in the knowledge base's blob store and ties them to a run, so they outlive
// blob garbage collection as long as the run does.
type Blobs struct {
	KB    *kb.KB
	RunID int64
}

// PutBlob stores data; id must be its SHA-256, as the agent computes it.
func (b *Blobs) PutBlob(ctx context.Context, id, _ string, data []byte) error {
	h, err := b.KB.Blobs.Put(data)
	if err != nil {
		return fmt.Errorf("store blob of run %d: %w", b.RunID, err)
	}
	if h != id {
		return fmt.Errorf("store blob of run %d: agent named it %s but its hash is %s", b.RunID, id, h)
	}
	if err := b.KB.History.AddRunBlob(ctx, b.RunID, h); err != nil {
		return fmt.Errorf("tie blob %s to run %d: %w", h, b.RunID, err)
	}
	return nil
}

// Recorder is an agent.Sink that stores every event of a run, its memory-graph nodes, and its outcome. Storage
// uses a context that outlives the run's own, so the cancelled and done events of a cancelled run are kept.
type Recorder struct {
	KB    *kb.KB
	RunID int64
	Next  agent.Sink // receives every event after it is stored (the live transcript, SSE)

	ctx    context.Context
	mu     sync.Mutex
	err    error
	answer string
	items  map[string]json.RawMessage // vimrag node → its memorised items
}

// NewRecorder records into run runID; ctx's values (not its cancellation) are kept for storage calls.
func NewRecorder(ctx context.Context, k *kb.KB, runID int64, next agent.Sink) *Recorder {
	return &Recorder{KB: k, RunID: runID, Next: next, ctx: context.WithoutCancel(ctx), items: map[string]json.RawMessage{}}
}

// Err is the first storage failure, if any: the run went on, but its stored copy is incomplete.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Sink stores ev, then passes it on.
func (r *Recorder) Sink(ev agent.Event) {
	r.mu.Lock()
	if err := r.store(ev); err != nil && r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	if r.Next != nil {
		r.Next(ev)
	}
}

func (r *Recorder) store(ev agent.Event) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encode event %d of run %d: %w", ev.Seq, r.RunID, err)
	}
	if err := r.KB.History.AppendEvent(r.ctx, r.RunID, ev.Seq, string(ev.Kind), data); err != nil {
		return err
	}
	switch ev.Kind {
	case agent.KindMemorize:
		items, err := json.Marshal(ev.Memorize.Items)
		if err != nil {
			return err
		}
		r.items[ev.Memorize.NodeID] = items
	case agent.KindGraph:
		for _, n := range ev.Graph.Nodes {
			summary := n.Summary
			switch n.Type {
			case "answer":
				summary = n.Answer
			case "calculation":
				summary = n.Expression + " = " + n.Result
			}
			gn := kb.GraphNode{NodeID: n.ID, Parents: n.Parents, Query: n.Query, Summary: summary, Items: r.items[n.ID]}
			if err := r.KB.History.PutGraphNode(r.ctx, r.RunID, gn); err != nil {
				return err
			}
		}
	case agent.KindAnswer:
		r.answer = ev.Answer.Text
	case agent.KindDone:
		usage, err := json.Marshal(ev.Done.Usage)
		if err != nil {
			return err
		}
		return r.KB.History.FinishRun(r.ctx, r.RunID, RunStatus(ev.Done.Status), r.answer, usage)
	}
	return nil
}

// RunStatus maps how a run ended to the runs table's status.
func RunStatus(s agent.Status) string {
	switch s {
	case agent.StatusCancelled:
		return "cancelled"
	case agent.StatusFailed:
		return "failed"
	}
	return "done"
}

// Events reads a stored run's events back, in order.
func Events(ctx context.Context, k *kb.KB, runID int64) ([]agent.Event, error) {
	stored, err := k.History.Events(ctx, runID)
	if err != nil {
		return nil, err
	}
	out := make([]agent.Event, len(stored))
	for i, s := range stored {
		if err := json.Unmarshal(s.Data, &out[i]); err != nil {
			return nil, fmt.Errorf("run %d event %d: %w", runID, s.Seq, err)
		}
		if out[i].Seq != s.Seq || string(out[i].Kind) != s.Type {
			return nil, fmt.Errorf("run %d event %d: stored as %d/%s but holds %d/%s", runID, s.Seq, s.Seq, s.Type,
				out[i].Seq, out[i].Kind)
		}
	}
	return out, nil
}
