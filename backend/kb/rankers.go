package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The library's learned rankers (backend/rank), trained on questions from its own pages by `proofglass eval library
// --train`, read by every searcher: one for searches of the whole library, one for searches of chosen documents.

// Ranker scopes.
const (
	RankLibrary  = ""         // searches of the whole library (or of collections)
	RankDocument = "document" // searches of chosen documents
)

// Ranker returns the stored ranker model of a scope and when it was saved; no model (nil) when none is stored.
func (k *Search) Ranker(ctx context.Context, scope string) ([]byte, time.Time, error) {
	var b []byte
	var saved int64
	err := k.db.QueryRowContext(ctx, `SELECT model, saved FROM rankers WHERE scope = ?`, scope).Scan(&b, &saved)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, time.Time{}, nil
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read ranker: %w", err)
	}
	return b, time.UnixMilli(saved), nil
}

// RankerReport returns the report of the last training that saved a ranker ("" and the zero time when none is
// stored).
func (k *Search) RankerReport(ctx context.Context) (string, time.Time, error) {
	var r string
	var saved int64
	err := k.db.QueryRowContext(ctx, `SELECT report, saved FROM rankers ORDER BY saved DESC LIMIT 1`).Scan(&r, &saved)
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, nil
	}
	if err != nil {
		return "", time.Time{}, fmt.Errorf("read ranker report: %w", err)
	}
	return r, time.UnixMilli(saved), nil
}

// SaveRanker stores a scope's ranker model with the report of its evaluation, replacing the scope's other one.
func (k *Search) SaveRanker(ctx context.Context, scope string, model []byte, report string, saved time.Time) error {
	_, err := k.db.ExecContext(ctx, `INSERT INTO rankers(scope, model, saved, report) VALUES (?, ?, ?, ?)
		ON CONFLICT(scope) DO UPDATE SET model = excluded.model, saved = excluded.saved, report = excluded.report`,
		scope, model, saved.UnixMilli(), report)
	if err != nil {
		return fmt.Errorf("save ranker: %w", err)
	}
	return nil
}

// DeleteRankers forgets the library's rankers: searches go back to the hand-set weights.
func (k *Search) DeleteRankers(ctx context.Context) error {
	if _, err := k.db.ExecContext(ctx, `DELETE FROM rankers`); err != nil {
		return fmt.Errorf("delete rankers: %w", err)
	}
	return nil
}
