package kb

import (
	"context"
	"fmt"
	"strings"
)

// The reads search makes on each query or index check. Each is one statement; those on a hot path have their plan
// checked by TestSearchReadsPlans.

// CollectionEmbedders lists the collections, by name, with their embedders only (ID, Name, TextEmbedder, TextDim,
// ImageEmbedder, ImageDim): Collections also counts documents and units, which scans every unit, too slow to run on
// each search of a large knowledge base.
func (k *Search) CollectionEmbedders(ctx context.Context) ([]Collection, error) {
	return queryAll(ctx, k.db, "list collections", func(r rowScanner) (c Collection, err error) {
		err = r.Scan(&c.ID, &c.Name, &c.TextEmbedder, &c.TextDim, &c.ImageEmbedder, &c.ImageDim)
		return
	}, `SELECT id, name, text_embedder, text_dim, image_embedder, image_dim
		FROM collections ORDER BY name`)
}

func idArgs(ids []int64) (string, []any) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return "?" + strings.Repeat(",?", max(len(ids)-1, 0)), args
}

// DocumentsUpdated maps the given documents that exist to their updated_at (Unix milliseconds).
func (k *Search) DocumentsUpdated(ctx context.Context, ids []int64) (map[int64]int64, error) {
	out := make(map[int64]int64, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	in, args := idArgs(ids)
	rows, err := k.db.QueryContext(ctx, `SELECT id, updated_at FROM documents WHERE id IN (`+in+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("documents updated: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, up int64
		if err := rows.Scan(&id, &up); err != nil {
			return nil, fmt.Errorf("documents updated: %w", err)
		}
		out[id] = up
	}
	return out, rows.Err()
}

// DocumentNaming is what a document is named by: its file name, its metadata (JSON) and the text of its first unit.
type DocumentNaming struct {
	ID            int64
	Name, Meta    string
	FirstUnitText string
}

// DocumentNamings reads the naming of the given documents that exist.
func (k *Search) DocumentNamings(ctx context.Context, ids []int64) ([]DocumentNaming, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	in, args := idArgs(ids)
	return queryAll(ctx, k.db, "document names", func(r rowScanner) (n DocumentNaming, err error) {
		err = r.Scan(&n.ID, &n.Name, &n.Meta, &n.FirstUnitText)
		return
	}, `SELECT d.id, d.name, d.meta,
		coalesce((SELECT u.text FROM units u WHERE u.document_id = d.id ORDER BY u.ordinal LIMIT 1), '')
		FROM documents d WHERE d.id IN (`+in+`)`, args...)
}

const vectorFingerprintSQL = `SELECT count(*), total(unit_id) FROM vectors WHERE embedder = ? AND modality = ?`

// VectorFingerprint counts the vectors of an embedder and modality and sums their unit ids: with VectorsGeneration,
// what tells a saved dense index whether it is current.
func (k *Search) VectorFingerprint(ctx context.Context, embedder, modality string) (n int64, sum float64, err error) {
	if err := k.db.QueryRowContext(ctx, vectorFingerprintSQL, embedder, modality).Scan(&n, &sum); err != nil {
		return 0, 0, fmt.Errorf("count vectors of %s: %w", embedder, err)
	}
	return n, sum, nil
}

const pendingEmbedsSQL = `SELECT d.collection_id, count(*) FROM units u
		JOIN documents d ON d.id = u.document_id
		WHERE NOT EXISTS (SELECT 1 FROM ingest_steps s WHERE s.document_id = u.document_id AND s.ordinal = u.ordinal
			AND s.stage = 'embed') GROUP BY d.collection_id`

// anyPendingEmbedSQL tells whether any unit may lack its embed step: every unit gets one (done, skipped or failed),
// so as many embed steps as units means none is pending. Two counts over indexes: 2.5 ms at 13k units, where
// pendingEmbedsSQL's probe per unit took 15–30 ms of every new process's first search.
const anyPendingEmbedSQL = `SELECT (SELECT count(*) FROM units) > (SELECT count(*) FROM ingest_steps WHERE stage = 'embed')`

// UnitsAwaitingEmbedding counts, per collection, the units extracted but without a recorded embed step.
func (k *Search) UnitsAwaitingEmbedding(ctx context.Context) (map[int64]int, error) {
	var some bool
	if err := k.db.QueryRowContext(ctx, anyPendingEmbedSQL).Scan(&some); err != nil {
		return nil, fmt.Errorf("count units awaiting embedding: %w", err)
	}
	if !some {
		return map[int64]int{}, nil
	}
	return queryMap(ctx, k.db, "count units awaiting embedding", func(r rowScanner) (int64, int, error) {
		var c int64
		var n int
		err := r.Scan(&c, &n)
		return c, n, err
	}, pendingEmbedsSQL)
}
