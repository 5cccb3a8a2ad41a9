package kb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Conversation is a chat thread.
type Conversation struct {
	ID           int64     `json:"id"`
	Title        string    `json:"title"`
	CollectionID int64     `json:"collection_id,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// Message is one turn of a conversation; an assistant turn points at the run that produced it.
type Message struct {
	ID             int64     `json:"id"`
	ConversationID int64     `json:"conversation_id"`
	Role           string    `json:"role"` // user | assistant
	Content        string    `json:"content"`
	RunID          int64     `json:"run_id,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
}

// Run is one agent run answering a question.
type Run struct {
	ID             int64           `json:"id"`
	ConversationID int64           `json:"conversation_id,omitempty"`
	Question       string          `json:"question"`
	Mode           string          `json:"mode"`
	Provider       string          `json:"provider,omitempty"`
	Model          string          `json:"model,omitempty"`
	Status         string          `json:"status"` // running | done | failed | cancelled
	Answer         string          `json:"answer,omitempty"`
	Usage          json.RawMessage `json:"usage,omitempty"`
	StartedAt      time.Time       `json:"started_at"`
	FinishedAt     time.Time       `json:"finished_at,omitzero"`
}

// StoredEvent is one event of a run as stored: its sequence number, type and JSON body.
type StoredEvent struct {
	Seq  int             `json:"seq"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// GraphNode is one node of a run's memory graph (VimRAG).
type GraphNode struct {
	NodeID  string          `json:"node_id"`
	Parents []string        `json:"parents"`
	Query   string          `json:"query,omitempty"`
	Summary string          `json:"summary,omitempty"`
	Items   json.RawMessage `json:"items,omitempty"`
}

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// CreateConversation starts a conversation.
func (k *History) CreateConversation(ctx context.Context, title string, collectionID int64) (Conversation, error) {
	ts := now()
	res, err := k.db.ExecContext(ctx, `INSERT INTO conversations(title, collection_id, created_at, updated_at) VALUES (?,?,?,?)`,
		title, nullID(collectionID), ts, ts)
	if err != nil {
		return Conversation{}, fmt.Errorf("create conversation: %w", err)
	}
	id, _ := res.LastInsertId()
	return Conversation{ID: id, Title: title, CollectionID: collectionID, CreatedAt: time.UnixMilli(ts), UpdatedAt: time.UnixMilli(ts)}, nil
}

// Conversations lists conversations, most recently active first.
func (k *History) Conversations(ctx context.Context) ([]Conversation, error) {
	return queryAll(ctx, k.db, "list conversations", func(r rowScanner) (c Conversation, err error) {
		var cr, up int64
		if err = r.Scan(&c.ID, &c.Title, &c.CollectionID, &cr, &up); err != nil {
			return
		}
		c.CreatedAt, c.UpdatedAt = time.UnixMilli(cr), time.UnixMilli(up)
		return
	}, `SELECT id, title, coalesce(collection_id, 0), created_at, updated_at FROM conversations
		ORDER BY updated_at DESC, id DESC`)
}

// DeleteConversation removes a conversation with its messages and runs.
func (k *History) DeleteConversation(ctx context.Context, id int64) error {
	_, err := k.db.ExecContext(ctx, `DELETE FROM conversations WHERE id = ?`, id)
	return err
}

// AddMessage appends a message and touches its conversation.
func (k *History) AddMessage(ctx context.Context, m Message) (Message, error) {
	err := k.tx(ctx, func(tx *sql.Tx) error {
		ts := now()
		res, err := tx.ExecContext(ctx, `INSERT INTO messages(conversation_id, role, content, run_id, created_at) VALUES (?,?,?,?,?)`,
			m.ConversationID, m.Role, m.Content, nullID(m.RunID), ts)
		if err != nil {
			return err
		}
		m.ID, _ = res.LastInsertId()
		m.CreatedAt = time.UnixMilli(ts)
		_, err = tx.ExecContext(ctx, `UPDATE conversations SET updated_at = ? WHERE id = ?`, ts, m.ConversationID)
		return err
	})
	if err != nil {
		return Message{}, fmt.Errorf("add message to conversation %d: %w", m.ConversationID, err)
	}
	return m, nil
}

// Messages lists a conversation's messages in order.
func (k *History) Messages(ctx context.Context, conversationID int64) ([]Message, error) {
	return queryAll(ctx, k.db, "read messages", func(r rowScanner) (m Message, err error) {
		var ts int64
		if err = r.Scan(&m.ID, &m.ConversationID, &m.Role, &m.Content, &m.RunID, &ts); err != nil {
			return
		}
		m.CreatedAt = time.UnixMilli(ts)
		return
	}, `SELECT id, conversation_id, role, content, coalesce(run_id, 0), created_at FROM messages
		WHERE conversation_id = ? ORDER BY id`, conversationID)
}

// CreateRun records the start of an agent run.
func (k *History) CreateRun(ctx context.Context, r Run) (Run, error) {
	ts := now()
	res, err := k.db.ExecContext(ctx, `INSERT INTO runs(conversation_id, question, mode, provider, model, status, started_at)
		VALUES (?,?,?,?,?, 'running', ?)`, nullID(r.ConversationID), r.Question, r.Mode, r.Provider, r.Model, ts)
	if err != nil {
		return Run{}, fmt.Errorf("create run: %w", err)
	}
	r.ID, _ = res.LastInsertId()
	r.Status = "running"
	r.StartedAt = time.UnixMilli(ts)
	return r, nil
}

// AppendEvent stores one event of a run. Events are numbered by the agent; storing the same seq twice is an error.
func (k *History) AppendEvent(ctx context.Context, runID int64, seq int, typ string, data []byte) error {
	if !json.Valid(data) {
		return fmt.Errorf("event %d of run %d is not JSON", seq, runID)
	}
	_, err := k.db.ExecContext(ctx, `INSERT INTO run_events(run_id, seq, type, data) VALUES (?,?,?,?)`, runID, seq, typ, string(data))
	if err != nil {
		return fmt.Errorf("store event %d of run %d: %w", seq, runID, err)
	}
	return nil
}

// Events returns a run's events in order, for replay.
func (k *History) Events(ctx context.Context, runID int64) ([]StoredEvent, error) {
	return queryAll(ctx, k.db, fmt.Sprintf("read events of run %d", runID), func(r rowScanner) (e StoredEvent, err error) {
		var data string
		if err = r.Scan(&e.Seq, &e.Type, &data); err != nil {
			return
		}
		e.Data = json.RawMessage(data)
		return
	}, `SELECT seq, type, data FROM run_events WHERE run_id = ? ORDER BY seq`, runID)
}

// AddRunBlob records that a run's events refer to a blob (a crop, a memory image), so it is kept.
func (k *History) AddRunBlob(ctx context.Context, runID int64, hash string) error {
	_, err := k.db.ExecContext(ctx, `INSERT OR IGNORE INTO run_blobs(run_id, hash) VALUES (?,?)`, runID, hash)
	return err
}

// FinishRun records a run's outcome.
func (k *History) FinishRun(ctx context.Context, runID int64, status, answer string, usage json.RawMessage) error {
	if len(usage) == 0 {
		usage = json.RawMessage("{}")
	}
	_, err := k.db.ExecContext(ctx, `UPDATE runs SET status=?, answer=?, usage=?, finished_at=? WHERE id=?`,
		status, answer, string(usage), now(), runID)
	if err != nil {
		return fmt.Errorf("finish run %d: %w", runID, err)
	}
	return nil
}

// RunningRuns are the ids of the runs still marked running that started at or before the given time (in the same
// millisecond counts: a grace of 0 takes every run).
func (k *History) RunningRuns(ctx context.Context, startedBefore time.Time) ([]int64, error) {
	return queryAll(ctx, k.db, "list running runs", func(r rowScanner) (id int64, err error) {
		err = r.Scan(&id)
		return
	}, `SELECT id FROM runs WHERE status = 'running' AND started_at <= ? ORDER BY id`, startedBefore.UnixMilli())
}

const runCols = `id, coalesce(conversation_id, 0), question, mode, provider, model, status, answer, usage, started_at, finished_at`

func scanRun(row rowScanner) (Run, error) {
	var r Run
	var usage string
	var st, fin int64
	err := row.Scan(&r.ID, &r.ConversationID, &r.Question, &r.Mode, &r.Provider, &r.Model, &r.Status, &r.Answer, &usage, &st, &fin)
	if err != nil {
		return Run{}, err
	}
	r.Usage = json.RawMessage(usage)
	r.StartedAt = time.UnixMilli(st)
	if fin != 0 {
		r.FinishedAt = time.UnixMilli(fin)
	}
	return r, nil
}

// Run finds a run by id.
func (k *History) Run(ctx context.Context, id int64) (Run, error) {
	r, err := scanRun(k.db.QueryRowContext(ctx, `SELECT `+runCols+` FROM runs WHERE id = ?`, id))
	return found(r, err, "run %d", id)
}

// Runs lists runs newest first; limit <= 0 means all.
func (k *History) Runs(ctx context.Context, limit int) ([]Run, error) {
	if limit <= 0 {
		limit = -1
	}
	return queryAll(ctx, k.db, "list runs", scanRun, `SELECT `+runCols+` FROM runs ORDER BY id DESC LIMIT ?`, limit)
}

// PutGraphNode stores or replaces a memory-graph node of a run.
func (k *History) PutGraphNode(ctx context.Context, runID int64, n GraphNode) error {
	parents, err := json.Marshal(n.Parents)
	if err != nil {
		return err
	}
	if n.Parents == nil {
		parents = []byte("[]")
	}
	items := n.Items
	if len(items) == 0 {
		items = json.RawMessage("[]")
	}
	_, err = k.db.ExecContext(ctx, `INSERT INTO graph_nodes(run_id, node_id, parents, query, summary, items) VALUES (?,?,?,?,?,?)
		ON CONFLICT(run_id, node_id) DO UPDATE SET parents=excluded.parents, query=excluded.query, summary=excluded.summary,
		items=excluded.items`, runID, n.NodeID, string(parents), n.Query, n.Summary, string(items))
	if err != nil {
		return fmt.Errorf("store graph node %s of run %d: %w", n.NodeID, runID, err)
	}
	return nil
}

// GraphNodes lists a run's memory graph nodes in insertion order.
func (k *History) GraphNodes(ctx context.Context, runID int64) ([]GraphNode, error) {
	rows, err := k.db.QueryContext(ctx, `SELECT node_id, parents, query, summary, items FROM graph_nodes WHERE run_id = ?
		ORDER BY rowid`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []GraphNode
	for rows.Next() {
		var n GraphNode
		var parents, items string
		if err := rows.Scan(&n.NodeID, &parents, &n.Query, &n.Summary, &items); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(parents), &n.Parents); err != nil {
			return nil, fmt.Errorf("graph node %s parents: %w", n.NodeID, err)
		}
		n.Items = json.RawMessage(items)
		out = append(out, n)
	}
	return out, rows.Err()
}

// Conversation returns one conversation.
func (k *History) Conversation(ctx context.Context, id int64) (Conversation, error) {
	var c Conversation
	var cr, up int64
	err := k.db.QueryRowContext(ctx, `SELECT id, title, coalesce(collection_id, 0), created_at, updated_at FROM conversations
		WHERE id = ?`, id).Scan(&c.ID, &c.Title, &c.CollectionID, &cr, &up)
	if errors.Is(err, sql.ErrNoRows) {
		return c, fmt.Errorf("conversation %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return c, fmt.Errorf("conversation %d: %w", id, err)
	}
	c.CreatedAt, c.UpdatedAt = time.UnixMilli(cr), time.UnixMilli(up)
	return c, nil
}
