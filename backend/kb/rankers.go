package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The library's learned ranker (backend/rank): one model for the whole library, trained on questions from its own
// pages by `proofglass eval library --train`, read by every searcher.

// Ranker returns the stored ranker model and when it was saved; no model (nil) when none is stored.
func (k *Search) Ranker(ctx context.Context) ([]byte, time.Time, error) {
	var b []byte
	var saved int64
	err := k.db.QueryRowContext(ctx, `SELECT model, saved FROM rankers WHERE scope = ''`).Scan(&b, &saved)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, time.Time{}, nil
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read ranker: %w", err)
	}
	return b, time.UnixMilli(saved), nil
}

// RankerReport returns the report saved with the ranker ("" and the zero time when none is stored).
func (k *Search) RankerReport(ctx context.Context) (string, time.Time, error) {
	var r string
	var saved int64
	err := k.db.QueryRowContext(ctx, `SELECT report, saved FROM rankers WHERE scope = ''`).Scan(&r, &saved)
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, nil
	}
	if err != nil {
		return "", time.Time{}, fmt.Errorf("read ranker report: %w", err)
	}
	return r, time.UnixMilli(saved), nil
}

// SaveRanker stores the library's ranker model with the report of its evaluation, replacing any other.
func (k *Search) SaveRanker(ctx context.Context, model []byte, report string, saved time.Time) error {
	_, err := k.db.ExecContext(ctx, `INSERT INTO rankers(scope, model, saved, report) VALUES ('', ?, ?, ?)
		ON CONFLICT(scope) DO UPDATE SET model = excluded.model, saved = excluded.saved, report = excluded.report`,
		model, saved.UnixMilli(), report)
	if err != nil {
		return fmt.Errorf("save ranker: %w", err)
	}
	return nil
}

// DeleteRanker forgets the library's ranker: searches go back to the hand-set weights.
func (k *Search) DeleteRanker(ctx context.Context) error {
	if _, err := k.db.ExecContext(ctx, `DELETE FROM rankers WHERE scope = ''`); err != nil {
		return fmt.Errorf("delete ranker: %w", err)
	}
	return nil
}
