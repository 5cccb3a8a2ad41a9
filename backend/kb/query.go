package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// querier is what a read runs on: the pool, a transaction or a connection.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// rowScanner is one row to scan: *sql.Row or *sql.Rows.
type rowScanner interface{ Scan(...any) error }

// queryAll runs query and returns one value per row, read by scan; what names the read in its errors.
func queryAll[T any](ctx context.Context, q querier, what string, scan func(rowScanner) (T, error), query string, args ...any) ([]T, error) {
	var out []T
	err := eachRow(ctx, q, what, func(rows *sql.Rows) error {
		v, err := scan(rows)
		out = append(out, v)
		return err
	}, query, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachRow runs query and calls fn on every row until fn fails; what names the read in its errors.
func eachRow(ctx context.Context, q querier, what string, fn func(*sql.Rows) error, query string, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// queryMap runs query and returns a map of one entry per row, read by scan; what names the read in its errors. The
// map is never nil.
func queryMap[K comparable, V any](ctx context.Context, q querier, what string, scan func(rowScanner) (K, V, error), query string, args ...any) (map[K]V, error) {
	out := map[K]V{}
	err := eachRow(ctx, q, what, func(rows *sql.Rows) error {
		k, v, err := scan(rows)
		out[k] = v
		return err
	}, query, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// found passes a looked-up row's value through, and turns a missing row into ErrNotFound, named by format and args.
func found[T any](v T, err error, format string, args ...any) (T, error) {
	if errors.Is(err, sql.ErrNoRows) {
		var zero T
		return zero, fmt.Errorf(format+": %w", append(args, ErrNotFound)...)
	}
	return v, err
}
