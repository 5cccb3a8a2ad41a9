package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Passage is the vector of one window of a unit's text: Start and End are byte offsets into the unit's Text, and
// Ordinal numbers the windows of a unit from 0.
type Passage struct {
	Ordinal int       `json:"ordinal"`
	Start   int       `json:"start"`
	End     int       `json:"end"`
	Vec     []float32 `json:"-"`
}

// PutPassages replaces the passages a unit has from one embedder.
func (k *Content) PutPassages(ctx context.Context, unitID int64, embedder string, ps []Passage) error {
	return k.tx(ctx, func(tx *sql.Tx) error { return putPassages(ctx, tx, unitID, embedder, ps) })
}

// nextPassageID never hands out an id twice, so a saved dense index can be brought up to date by comparing ids:
// a replaced passage gets a new id rather than its predecessor's. The vectors counter rises with every insert into
// passages (a trigger), so it is at least the largest id ever given; max(id) covers databases that had passages
// before the counter.
const nextPassageID = `max((SELECT value FROM counters WHERE name = 'vectors'), (SELECT coalesce(max(id), 0) FROM passages)) + 1`

// passagesPerInsert bounds the rows of one INSERT into passages (8 bound values each).
const passagesPerInsert = 128

// putPassages replaces a unit's passages, inserting them with a few statements: the ids are consecutive from
// nextPassageID, exactly what a statement per passage computed (each insert raises the counter by one).
func putPassages(ctx context.Context, db execer, unitID int64, embedder string, ps []Passage) error {
	if _, err := db.ExecContext(ctx, `DELETE FROM passages WHERE unit_id = ? AND embedder = ?`, unitID, embedder); err != nil {
		return fmt.Errorf("replace passages of unit %d: %w", unitID, err)
	}
	for _, p := range ps {
		if len(p.Vec) == 0 {
			return fmt.Errorf("passage %d of unit %d from %s is empty", p.Ordinal, unitID, embedder)
		}
	}
	for start, size := range rowChunks(len(ps), passagesPerInsert) {
		part := ps[start : start+size]
		var next int64
		if err := db.QueryRowContext(ctx, `SELECT `+nextPassageID).Scan(&next); err != nil {
			return fmt.Errorf("store passages of unit %d: %w", unitID, err)
		}
		args := make([]any, 0, 8*len(part))
		for i, p := range part {
			args = append(args, next+int64(i), unitID, embedder, p.Ordinal, p.Start, p.End, len(p.Vec), EncodeVector(p.Vec))
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO passages(id, unit_id, embedder, ordinal, start, end, dim, vec)
			VALUES (?,?,?,?,?,?,?,?)`+strings.Repeat(",(?,?,?,?,?,?,?,?)", len(part)-1), args...); err != nil {
			return fmt.Errorf("store passages %d-%d of unit %d: %w", part[0].Ordinal, part[len(part)-1].Ordinal, unitID, err)
		}
	}
	return nil
}

// Passages lists a unit's passages from one embedder in order.
func (k *Content) Passages(ctx context.Context, unitID int64, embedder string) ([]Passage, error) {
	rows, err := k.db.QueryContext(ctx, `SELECT ordinal, start, end, vec FROM passages WHERE unit_id = ? AND embedder = ?
		ORDER BY ordinal`, unitID, embedder)
	if err != nil {
		return nil, fmt.Errorf("passages of unit %d: %w", unitID, err)
	}
	defer rows.Close()
	var out []Passage
	for rows.Next() {
		var p Passage
		var b []byte
		if err := rows.Scan(&p.Ordinal, &p.Start, &p.End, &b); err != nil {
			return nil, err
		}
		if p.Vec, err = DecodeVector(b); err != nil {
			return nil, fmt.Errorf("passage %d of unit %d: %w", p.Ordinal, unitID, err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// VectorsGeneration is a counter that every insert, update or delete of a vector or passage increases (by
// triggers, so writers need not remember). A derived index stores the value it was built at; a different value
// means it is stale, even when the number of vectors did not change.
func (k *Content) VectorsGeneration(ctx context.Context) (int64, error) {
	var g int64
	err := k.db.QueryRowContext(ctx, `SELECT value FROM counters WHERE name = 'vectors'`).Scan(&g)
	if err != nil {
		return 0, fmt.Errorf("read vectors generation: %w", err)
	}
	return g, nil
}

// SetEmbedders re-pins a collection's embedders. When they change, the recorded embed steps of its documents are
// cleared in the same transaction, so re-embedding (ingest.Reembed) knows what is left to do and resumes after an
// interruption; vectors of the old embedders stay until they are replaced (search ignores them, because it only
// uses the pinned embedders' vectors). It reports whether anything changed.
func (k *Docs) SetEmbedders(ctx context.Context, name, textEmbedder string, textDim int, imageEmbedder string, imageDim int) (Collection, bool, error) {
	textEmbedder, imageEmbedder = strings.TrimSpace(textEmbedder), strings.TrimSpace(imageEmbedder)
	if textEmbedder == "" || textDim <= 0 {
		return Collection{}, false, fmt.Errorf("collection %q: a text embedder needs a model id and a dimension > 0", name)
	}
	if (imageEmbedder == "") != (imageDim <= 0) {
		return Collection{}, false, fmt.Errorf("collection %q: an image embedder needs a model id and a dimension > 0", name)
	}
	c, err := k.CollectionByName(ctx, name)
	if err != nil {
		return Collection{}, false, err
	}
	if c.TextEmbedder == textEmbedder && c.TextDim == textDim && c.ImageEmbedder == imageEmbedder && c.ImageDim == imageDim {
		return c, false, nil
	}
	err = k.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE collections SET text_embedder = ?, text_dim = ?, image_embedder = ?,
			image_dim = ? WHERE id = ?`, textEmbedder, textDim, imageEmbedder, imageDim, c.ID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM ingest_steps WHERE stage = 'embed'
			AND document_id IN (SELECT id FROM documents WHERE collection_id = ?)`, c.ID)
		return err
	})
	if err != nil {
		return Collection{}, false, fmt.Errorf("collection %q: change embedders: %w", name, err)
	}
	c, err = k.CollectionByName(ctx, name)
	return c, true, err
}

// DropStaleEmbeddings deletes the vectors and passages of a collection's units that come from embedders the
// collection no longer pins (left behind by SetEmbedders once re-embedding is complete). It returns how many rows
// went.
func (k *Docs) DropStaleEmbeddings(ctx context.Context, collectionID int64) (int64, error) {
	c, err := k.Collection(ctx, collectionID)
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var n int64
	err = k.tx(ctx, func(tx *sql.Tx) error {
		units := `SELECT u.id FROM units u JOIN documents d ON d.id = u.document_id WHERE d.collection_id = ?`
		r, err := tx.ExecContext(ctx, `DELETE FROM vectors WHERE unit_id IN (`+units+`) AND NOT (
			(modality = 'text' AND embedder = ? AND dim = ?) OR (modality = 'image' AND embedder = ? AND dim = ?))`,
			c.ID, c.TextEmbedder, c.TextDim, c.ImageEmbedder, c.ImageDim)
		if err != nil {
			return err
		}
		a, _ := r.RowsAffected()
		r, err = tx.ExecContext(ctx, `DELETE FROM passages WHERE unit_id IN (`+units+`) AND NOT (embedder = ? AND dim = ?)`,
			c.ID, c.TextEmbedder, c.TextDim)
		if err != nil {
			return err
		}
		b, _ := r.RowsAffected()
		n = a + b
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("collection %q: drop old embeddings: %w", c.Name, err)
	}
	return n, nil
}
