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
	saved, err := k.rankerRow(ctx, "read ranker", &b, `SELECT model, saved FROM rankers WHERE scope = ?`, scope)
	return b, saved, err
}

// RankerReport returns the report of the last training that saved a ranker ("" and the zero time when none is
// stored).
func (k *Search) RankerReport(ctx context.Context) (string, time.Time, error) {
	var r string
	saved, err := k.rankerRow(ctx, "read ranker report", &r, `SELECT report, saved FROM rankers ORDER BY saved DESC LIMIT 1`)
	return r, saved, err
}

// ScopeReport returns the report saved with a scope's ranker ("" when none is stored).
func (k *Search) ScopeReport(ctx context.Context, scope string) (string, error) {
	var r string
	_, err := k.rankerRow(ctx, "read ranker report", &r, `SELECT report, saved FROM rankers WHERE scope = ?`, scope)
	return r, err
}

// rankerRow reads one column of a rankers row into dest, with its saved time; a missing row leaves dest as it is
// and gives the zero time, without an error.
func (k *Search) rankerRow(ctx context.Context, what string, dest any, query string, args ...any) (time.Time, error) {
	var saved int64
	err := k.db.QueryRowContext(ctx, query, args...).Scan(dest, &saved)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %w", what, err)
	}
	return time.UnixMilli(saved), nil
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
