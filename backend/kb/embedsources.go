package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// EmbedSource is what embedding a unit takes: its text and page image, and whether the collection's pinned text
// embedder has already stored a vector and passages for it.
type EmbedSource struct {
	UnitID    int64
	Ordinal   int
	Text      string
	ImageBlob string // "" when the unit has no stored image
	// HasTextVector and HasPassages are set by StaleEmbedSources only.
	HasTextVector, HasPassages bool
}

// EmbedSources lists a document's units by ordinal, as embedding reads them.
func (k *Content) EmbedSources(ctx context.Context, documentID int64) ([]EmbedSource, error) {
	return queryAll(ctx, k.db, "read units", func(r rowScanner) (s EmbedSource, err error) {
		err = r.Scan(&s.UnitID, &s.Ordinal, &s.Text, &s.ImageBlob)
		return
	}, `SELECT id, ordinal, text, image_blob FROM units WHERE document_id = ? ORDER BY ordinal`, documentID)
}

// staleEmbedsSQL lists a document's units with whether a text vector and passages of an embedder and dimension are
// stored. The unary + keeps the passages probe on (unit_id, …): through passages_embedder it would visit every
// passage per unit (TestStaleEmbedsPlan).
const staleEmbedsSQL = `SELECT u.id, u.ordinal, u.text, u.image_blob,
		EXISTS (SELECT 1 FROM vectors v WHERE v.unit_id = u.id AND v.embedder = ? AND v.modality = 'text' AND v.dim = ?),
		EXISTS (SELECT 1 FROM passages p WHERE p.unit_id = u.id AND +p.embedder = ? AND +p.dim = ?)
		FROM units u WHERE u.document_id = ? ORDER BY u.ordinal`

// StaleEmbedSources is EmbedSources with HasTextVector and HasPassages set for text embedder textEmbedder of
// dimension dim: what re-embedding a document decides from.
func (k *Content) StaleEmbedSources(ctx context.Context, documentID int64, textEmbedder string, dim int) ([]EmbedSource, error) {
	return queryAll(ctx, k.db, "read units", func(r rowScanner) (s EmbedSource, err error) {
		err = r.Scan(&s.UnitID, &s.Ordinal, &s.Text, &s.ImageBlob, &s.HasTextVector, &s.HasPassages)
		return
	}, staleEmbedsSQL, textEmbedder, dim, textEmbedder, dim, documentID)
}

// UnitCount is the number of units a document has.
func (k *Content) UnitCount(ctx context.Context, documentID int64) (int, error) {
	var n int
	if err := k.db.QueryRowContext(ctx, `SELECT count(*) FROM units WHERE document_id = ?`, documentID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count units of document %d: %w", documentID, err)
	}
	return n, nil
}

// UnitID finds the unit of a document at an ordinal (a page, 1-based; a clip); ErrNotFound when there is none.
func (k *Content) UnitID(ctx context.Context, documentID int64, ordinal int) (int64, error) {
	var id int64
	err := k.db.QueryRowContext(ctx, `SELECT id FROM units WHERE document_id = ? AND ordinal = ?`, documentID, ordinal).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("document %d unit %d: %w", documentID, ordinal, ErrNotFound)
	}
	return id, err
}
