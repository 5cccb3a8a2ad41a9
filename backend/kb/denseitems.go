package kb

import (
	"context"
	"fmt"
	"strings"
)

// The reads that build a dense index and bring a saved one up to date. Their plans are checked by
// TestDenseItemsPlans: at library size (12k units, 173k passages) a probe through the wrong index made the load
// quadratic.

// VectorSet names the vectors of one dense index: an embedder, a modality and a dimension.
type VectorSet struct {
	Embedder, Modality string
	Dim                int
}

// IndexItem is one vector of a VectorSet with its unit's filter fields. A text set holds passages under their
// passage ids and the units embedded before passages existed (a whole-text vector, no passages) under minus their
// unit ids; an image set holds units under their ids.
type IndexItem struct {
	ID, Unit, Collection, Document int64
	Kind                           string    // the document's
	Vec                            []float32 // nil unless asked for
}

// itemsSQL selects the items of vs: indexed id, unit id, collection, document, kind (and the vector when withVec).
//
// The unary + on the subquery's embedder and dim keeps them out of index selection: the probe must go through
// (unit_id, …) — a unit has a handful of passages — and never through passages_embedder, which without statistics
// SQLite may prefer and which visits every passage of the embedder for every unit (12k × 173k at library size).
func itemsSQL(vs VectorSet, withVec bool) (string, []any) {
	vec := ""
	if withVec {
		vec = ", x.vec"
	}
	join := ` JOIN units u ON u.id = x.unit_id JOIN documents d ON d.id = u.document_id`
	if vs.Modality != ModalityText {
		return `SELECT x.unit_id, x.unit_id, d.collection_id, d.id, d.kind` + vec + ` FROM vectors x` + join +
			` WHERE x.embedder = ? AND x.modality = ? AND x.dim = ?`, []any{vs.Embedder, vs.Modality, vs.Dim}
	}
	return `SELECT x.id, x.unit_id, d.collection_id, d.id, d.kind` + vec + ` FROM passages x` + join +
			` WHERE x.embedder = ? AND x.dim = ?
		UNION ALL
		SELECT -x.unit_id, x.unit_id, d.collection_id, d.id, d.kind` + vec + ` FROM vectors x` + join +
			` WHERE x.embedder = ? AND x.modality = 'text' AND x.dim = ? AND NOT EXISTS
			(SELECT 1 FROM passages p WHERE p.unit_id = x.unit_id AND +p.embedder = x.embedder AND +p.dim = x.dim)`,
		[]any{vs.Embedder, vs.Dim, vs.Embedder, vs.Dim}
}

// indexedIDsSQL selects just the ids itemsSQL would: the cheap first half of a delta against a saved index.
func indexedIDsSQL(vs VectorSet) (string, []any) {
	if vs.Modality != ModalityText {
		return `SELECT x.unit_id FROM vectors x WHERE x.embedder = ? AND x.modality = ? AND x.dim = ?`,
			[]any{vs.Embedder, vs.Modality, vs.Dim}
	}
	return `SELECT x.id FROM passages x WHERE x.embedder = ? AND x.dim = ?
		UNION ALL
		SELECT -x.unit_id FROM vectors x WHERE x.embedder = ? AND x.modality = 'text' AND x.dim = ? AND NOT EXISTS
			(SELECT 1 FROM passages p WHERE p.unit_id = x.unit_id AND +p.embedder = x.embedder AND +p.dim = x.dim)`,
		[]any{vs.Embedder, vs.Dim, vs.Embedder, vs.Dim}
}

// itemsByIDSQL is itemsSQL (with vectors) limited to some ids: pos are passage ids (text) or unit ids (image), neg
// the unit ids of text units indexed by their whole-text vector.
func itemsByIDSQL(vs VectorSet, pos, neg []any) (string, []any) {
	vars := func(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }
	join := ` JOIN units u ON u.id = x.unit_id JOIN documents d ON d.id = u.document_id`
	if vs.Modality != ModalityText {
		return `SELECT x.unit_id, x.unit_id, d.collection_id, d.id, d.kind, x.vec FROM vectors x` + join +
				` WHERE x.embedder = ? AND x.modality = ? AND x.dim = ? AND x.unit_id IN (` + vars(len(pos)) + `)`,
			append([]any{vs.Embedder, vs.Modality, vs.Dim}, pos...)
	}
	var parts []string
	var args []any
	if len(pos) > 0 {
		parts = append(parts, `SELECT x.id, x.unit_id, d.collection_id, d.id, d.kind, x.vec FROM passages x`+join+
			` WHERE x.embedder = ? AND x.dim = ? AND x.id IN (`+vars(len(pos))+`)`)
		args = append(append(args, vs.Embedder, vs.Dim), pos...)
	}
	if len(neg) > 0 {
		parts = append(parts, `SELECT -x.unit_id, x.unit_id, d.collection_id, d.id, d.kind, x.vec FROM vectors x`+join+
			` WHERE x.embedder = ? AND x.modality = 'text' AND x.dim = ? AND x.unit_id IN (`+vars(len(neg))+`)`)
		args = append(append(args, vs.Embedder, vs.Dim), neg...)
	}
	return strings.Join(parts, " UNION ALL "), args
}

// The three parts of a text set's current ids when the saved passages are all still there.
const (
	passagesUpToSQL  = `SELECT count(*) FROM passages WHERE embedder = ? AND dim = ? AND id <= ?`
	passagesAfterSQL = `SELECT id FROM passages WHERE embedder = ? AND dim = ? AND id > ? ORDER BY id`
	wholeTextIDsSQL  = `SELECT -x.unit_id FROM vectors x WHERE x.embedder = ? AND x.modality = 'text' AND x.dim = ? AND NOT EXISTS
		(SELECT 1 FROM passages p WHERE p.unit_id = x.unit_id AND +p.embedder = x.embedder AND +p.dim = x.dim)`
	// The same for the units after a given one only (unit ids are never reused and grow).
	newWholeTextIDsSQL = `SELECT -x.unit_id FROM vectors x WHERE x.unit_id > ? AND x.embedder = ? AND x.modality = 'text' AND x.dim = ?
		AND NOT EXISTS (SELECT 1 FROM passages p WHERE p.unit_id = x.unit_id AND +p.embedder = x.embedder AND +p.dim = x.dim)`
)

// scanItems runs an items query and calls fn for every row, decoding the vector when withVec.
func (k *store) scanItems(ctx context.Context, q string, args []any, withVec bool, fn func(IndexItem) error) error {
	rows, err := k.db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var blob []byte
	for rows.Next() {
		var it IndexItem
		dst := []any{&it.ID, &it.Unit, &it.Collection, &it.Document, &it.Kind}
		if withVec {
			dst = append(dst, &blob)
		}
		if err := rows.Scan(dst...); err != nil {
			return err
		}
		if withVec {
			if it.Vec, err = DecodeVector(blob); err != nil {
				return fmt.Errorf("unit %d: %w", it.Unit, err)
			}
		}
		if err := fn(it); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ScanIndexItems calls fn for every item of vs, with its vector when withVec.
func (k *Search) ScanIndexItems(ctx context.Context, vs VectorSet, withVec bool, fn func(IndexItem) error) error {
	q, args := itemsSQL(vs, withVec)
	if err := k.scanItems(ctx, q, args, withVec, fn); err != nil {
		return fmt.Errorf("load vectors of %s: %w", vs.Embedder, err)
	}
	return nil
}

// IndexItemsByID calls fn for the items of vs with the given ids (see IndexItem; those gone are skipped), with their
// vectors, reading them in batches that keep each statement's variables few.
func (k *Search) IndexItemsByID(ctx context.Context, vs VectorSet, ids []int64, fn func(IndexItem) error) error {
	const batch = 500
	for len(ids) > 0 {
		n := min(batch, len(ids))
		part := ids[:n]
		ids = ids[n:]
		var pos, neg []any
		for _, id := range part {
			if id < 0 && vs.Modality == ModalityText {
				neg = append(neg, -id)
			} else {
				pos = append(pos, id)
			}
		}
		q, args := itemsByIDSQL(vs, pos, neg)
		if err := k.scanItems(ctx, q, args, true, fn); err != nil {
			return fmt.Errorf("load new vectors of %s: %w", vs.Embedder, err)
		}
	}
	return nil
}

func (k *store) ids(ctx context.Context, q string, args ...any) ([]int64, error) {
	return queryAll(ctx, k.db, "read ids", func(r rowScanner) (id int64, err error) {
		err = r.Scan(&id)
		return
	}, q, args...)
}

// IndexedIDs lists the ids of vs's items, unsorted.
func (k *Search) IndexedIDs(ctx context.Context, vs VectorSet) ([]int64, error) {
	q, args := indexedIDsSQL(vs)
	return k.ids(ctx, q, args...)
}

// PassagesUpTo counts the passages of a text set with ids up to top.
func (k *Search) PassagesUpTo(ctx context.Context, vs VectorSet, top int64) (int, error) {
	var n int
	err := k.db.QueryRowContext(ctx, passagesUpToSQL, vs.Embedder, vs.Dim, top).Scan(&n)
	return n, err
}

// PassageIDsAfter lists, in order, the ids above top of a text set's passages.
func (k *Search) PassageIDsAfter(ctx context.Context, vs VectorSet, top int64) ([]int64, error) {
	return k.ids(ctx, passagesAfterSQL, vs.Embedder, vs.Dim, top)
}

// WholeTextIDs lists, unsorted, the items of a text set that are units indexed by their whole text (under minus
// their unit ids).
func (k *Search) WholeTextIDs(ctx context.Context, vs VectorSet) ([]int64, error) {
	return k.ids(ctx, wholeTextIDsSQL, vs.Embedder, vs.Dim)
}

// WholeTextIDsAfter is WholeTextIDs for the units with ids above unit only.
func (k *Search) WholeTextIDsAfter(ctx context.Context, vs VectorSet, unit int64) ([]int64, error) {
	return k.ids(ctx, newWholeTextIDsSQL, unit, vs.Embedder, vs.Dim)
}
