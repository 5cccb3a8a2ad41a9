package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// A document's page list, its cover and its text are asked for far more often than its word boxes, which are most
// of a unit row (a 2,415-page manual holds 79 MB of them). These readers leave the word boxes unread.

const unitRefCols = `id, document_id, ordinal, kind, width, height, t_start_ms, t_end_ms, text_source, thumb_blob, image_blob`

// scanUnitRef reads unitRefCols, then any further columns selected after them into more.
func scanUnitRef(row rowScanner, more ...any) (Unit, error) {
	var u Unit
	err := row.Scan(append([]any{&u.ID, &u.DocumentID, &u.Ordinal, &u.Kind, &u.Width, &u.Height, &u.TStartMS, &u.TEndMS,
		&u.TextSource, &u.ThumbBlob, &u.ImageBlob}, more...)...)
	return u, err
}

// UnitRefs lists a document's units in order without their text and word boxes (Text and Words are empty): what a
// page grid needs.
func (k *Content) UnitRefs(ctx context.Context, documentID int64) ([]Unit, error) {
	rows, err := k.db.QueryContext(ctx, `SELECT `+unitRefCols+` FROM units WHERE document_id = ? ORDER BY ordinal`, documentID)
	if err != nil {
		return nil, fmt.Errorf("list units of document %d: %w", documentID, err)
	}
	defer rows.Close()
	var out []Unit
	for rows.Next() {
		u, err := scanUnitRef(rows)
		if err != nil {
			return nil, fmt.Errorf("list units of document %d: %w", documentID, err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list units of document %d: %w", documentID, err)
	}
	return out, nil
}

// FirstUnitRef returns a document's first unit without its text and word boxes (its cover), or ErrNotFound while it
// has none.
func (k *Content) FirstUnitRef(ctx context.Context, documentID int64) (Unit, error) {
	u, err := scanUnitRef(k.db.QueryRowContext(ctx,
		`SELECT `+unitRefCols+` FROM units WHERE document_id = ? ORDER BY ordinal LIMIT 1`, documentID))
	if errors.Is(err, sql.ErrNoRows) {
		return Unit{}, fmt.Errorf("first unit of document %d: %w", documentID, ErrNotFound)
	}
	if err != nil {
		return Unit{}, fmt.Errorf("first unit of document %d: %w", documentID, err)
	}
	return u, nil
}

// EachUnitText calls fn with a document's units in order, with their text but without word boxes, until fn returns
// false.
func (k *Content) EachUnitText(ctx context.Context, documentID int64, fn func(Unit) bool) error {
	rows, err := k.db.QueryContext(ctx, `SELECT `+unitRefCols+`, text FROM units WHERE document_id = ? ORDER BY ordinal`, documentID)
	if err != nil {
		return fmt.Errorf("read units of document %d: %w", documentID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var text string
		u, err := scanUnitRef(rows, &text)
		if err != nil {
			return fmt.Errorf("read units of document %d: %w", documentID, err)
		}
		u.Text = text
		if !fn(u) {
			return nil
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read units of document %d: %w", documentID, err)
	}
	return nil
}
