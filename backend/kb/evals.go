package kb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Evaluation is one answer evaluation: a dataset run through the agent with one configuration.
type Evaluation struct {
	ID         int64           `json:"id"`
	Dataset    string          `json:"dataset"`
	Collection string          `json:"collection"`
	ConfigKey  string          `json:"config_key"` // what must be equal for a later invocation to resume this one
	Config     json.RawMessage `json:"config"`
	Status     string          `json:"status"` // running | done
	CreatedAt  time.Time       `json:"created_at"`
	UpdatedAt  time.Time       `json:"updated_at"`
	Items      int             `json:"items"` // scored items
}

// EvalItem is one scored answer of an evaluation: a question in one mode, one sample of its group.
type EvalItem struct {
	QuestionID string          `json:"question_id"`
	Mode       string          `json:"mode"`
	Sample     int             `json:"sample"`
	RunID      int64           `json:"run_id,omitempty"`
	Result     json.RawMessage `json:"result"`
}

// CreateEvaluation starts an evaluation.
func (k *History) CreateEvaluation(ctx context.Context, e Evaluation) (Evaluation, error) {
	if len(e.Config) == 0 {
		e.Config = json.RawMessage("{}")
	}
	ts := now()
	res, err := k.db.ExecContext(ctx, `INSERT INTO evaluations(dataset, collection, config_key, config, status, created_at, updated_at)
		VALUES (?,?,?,?, 'running', ?,?)`, e.Dataset, e.Collection, e.ConfigKey, string(e.Config), ts, ts)
	if err != nil {
		return Evaluation{}, fmt.Errorf("create evaluation: %w", err)
	}
	e.ID, _ = res.LastInsertId()
	e.Status = "running"
	e.CreatedAt, e.UpdatedAt = time.UnixMilli(ts), time.UnixMilli(ts)
	return e, nil
}

const evalCols = `id, dataset, collection, config_key, config, status, created_at, updated_at,
	(SELECT count(*) FROM evaluation_items i WHERE i.evaluation_id = evaluations.id)`

func scanEvaluation(row rowScanner) (Evaluation, error) {
	var e Evaluation
	var cfg string
	var cr, up int64
	if err := row.Scan(&e.ID, &e.Dataset, &e.Collection, &e.ConfigKey, &cfg, &e.Status, &cr, &up, &e.Items); err != nil {
		return Evaluation{}, err
	}
	e.Config = json.RawMessage(cfg)
	e.CreatedAt, e.UpdatedAt = time.UnixMilli(cr), time.UnixMilli(up)
	return e, nil
}

// Evaluation finds an evaluation by id.
func (k *History) Evaluation(ctx context.Context, id int64) (Evaluation, error) {
	e, err := scanEvaluation(k.db.QueryRowContext(ctx, `SELECT `+evalCols+` FROM evaluations WHERE id = ?`, id))
	return found(e, err, "evaluation %d", id)
}

// UnfinishedEvaluation finds the newest evaluation with this configuration key that did not finish.
func (k *History) UnfinishedEvaluation(ctx context.Context, key string) (Evaluation, error) {
	e, err := scanEvaluation(k.db.QueryRowContext(ctx, `SELECT `+evalCols+` FROM evaluations
		WHERE config_key = ? AND status = 'running' ORDER BY id DESC LIMIT 1`, key))
	if errors.Is(err, sql.ErrNoRows) {
		return Evaluation{}, fmt.Errorf("unfinished evaluation: %w", ErrNotFound)
	}
	return e, err
}

// Evaluations lists evaluations newest first.
func (k *History) Evaluations(ctx context.Context) ([]Evaluation, error) {
	return queryAll(ctx, k.db, "list evaluations", scanEvaluation, `SELECT `+evalCols+` FROM evaluations ORDER BY id DESC`)
}

// FinishEvaluation marks an evaluation done.
func (k *History) FinishEvaluation(ctx context.Context, id int64) error {
	_, err := k.db.ExecContext(ctx, `UPDATE evaluations SET status = 'done', updated_at = ? WHERE id = ?`, now(), id)
	if err != nil {
		return fmt.Errorf("finish evaluation %d: %w", id, err)
	}
	return nil
}

// PutEvalItem stores (or replaces) one scored item.
func (k *History) PutEvalItem(ctx context.Context, evalID int64, it EvalItem) error {
	return k.tx(ctx, func(tx *sql.Tx) error {
		ts := now()
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO evaluation_items(evaluation_id, question_id, mode, sample, run_id, result, created_at)
			VALUES (?,?,?,?,?,?,?)`, evalID, it.QuestionID, it.Mode, it.Sample, nullID(it.RunID), string(it.Result), ts); err != nil {
			return fmt.Errorf("store evaluation %d item %s/%s/%d: %w", evalID, it.QuestionID, it.Mode, it.Sample, err)
		}
		_, err := tx.ExecContext(ctx, `UPDATE evaluations SET updated_at = ? WHERE id = ?`, ts, evalID)
		return err
	})
}

// EvalItems lists an evaluation's scored items in the order they were stored.
func (k *History) EvalItems(ctx context.Context, evalID int64) ([]EvalItem, error) {
	return queryAll(ctx, k.db, fmt.Sprintf("evaluation %d items", evalID), func(r rowScanner) (it EvalItem, err error) {
		var res string
		if err = r.Scan(&it.QuestionID, &it.Mode, &it.Sample, &it.RunID, &res); err != nil {
			return
		}
		it.Result = json.RawMessage(res)
		return
	}, `SELECT question_id, mode, sample, coalesce(run_id, 0), result FROM evaluation_items
		WHERE evaluation_id = ? ORDER BY created_at, question_id, mode, sample`, evalID)
}
