package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// DocumentSummary is a document's stored summary: Body is backend/summary's JSON, which kb does not read.
type DocumentSummary struct {
	DocumentID int64     `json:"document_id"`
	Model      string    `json:"model"`
	Body       string    `json:"body"`
	Created    time.Time `json:"created"`
}

// PutDocumentSummary stores a document's summary, replacing the one it had.
func (k *Docs) PutDocumentSummary(ctx context.Context, s DocumentSummary) error {
	if s.Created.IsZero() {
		s.Created = time.Now()
	}
	_, err := k.db.ExecContext(ctx, `INSERT INTO document_summaries(document_id, model, body, created) VALUES (?, ?, ?, ?)
		ON CONFLICT(document_id) DO UPDATE SET model = excluded.model, body = excluded.body, created = excluded.created`,
		s.DocumentID, s.Model, s.Body, s.Created.UnixMilli())
	if err != nil {
		return fmt.Errorf("store the summary of document %d: %w", s.DocumentID, err)
	}
	return nil
}

// DocumentSummary returns a document's stored summary, or ErrNotFound when it has none.
func (k *Docs) DocumentSummary(ctx context.Context, documentID int64) (DocumentSummary, error) {
	s := DocumentSummary{DocumentID: documentID}
	var created int64
	err := k.db.QueryRowContext(ctx, `SELECT model, body, created FROM document_summaries WHERE document_id = ?`, documentID).
		Scan(&s.Model, &s.Body, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("summary of document %d: %w", documentID, ErrNotFound)
	}
	if err != nil {
		return s, fmt.Errorf("summary of document %d: %w", documentID, err)
	}
	s.Created = time.UnixMilli(created)
	return s, nil
}
