package kb

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// Scope is the documents a search may return: those of Collections, narrowed to Documents and to Kinds when they
// are set.
type Scope struct {
	Collections map[int64]bool
	Documents   map[int64]bool
	Kinds       map[string]bool
}

// where is the scope as a condition on documents d.
func (sc Scope) where() (string, []any) {
	var conds []string
	var args []any
	in := func(col string, n int) string {
		return col + " IN (" + strings.TrimSuffix(strings.Repeat("?,", n), ",") + ")"
	}
	conds = append(conds, in("d.collection_id", len(sc.Collections)))
	for id := range sc.Collections {
		args = append(args, id)
	}
	if len(sc.Documents) > 0 {
		conds = append(conds, in("d.id", len(sc.Documents)))
		for id := range sc.Documents {
			args = append(args, id)
		}
	}
	if len(sc.Kinds) > 0 {
		conds = append(conds, in("d.kind", len(sc.Kinds)))
		for k := range sc.Kinds {
			args = append(args, k)
		}
	}
	return strings.Join(conds, " AND "), args
}

// ScopeDocuments lists the documents a scope admits.
func (k *Search) ScopeDocuments(ctx context.Context, sc Scope) (map[int64]bool, error) {
	where, args := sc.where()
	return queryMap(ctx, k.db, "documents in scope", func(r rowScanner) (int64, bool, error) {
		var id int64
		err := r.Scan(&id)
		return id, true, err
	}, `SELECT d.id FROM documents d WHERE `+where, args...)
}

// Ranked is a ranking of units: ids, best first, with their scores.
type Ranked struct {
	IDs    []int64
	Scores []float64
}

func (k *store) ranked(ctx context.Context, query string, args ...any) (Ranked, error) {
	rows, err := k.db.QueryContext(ctx, query, args...)
	if err != nil {
		return Ranked{}, err
	}
	defer rows.Close()
	var r Ranked
	for rows.Next() {
		var id int64
		var score float64
		if err := rows.Scan(&id, &score); err != nil {
			return Ranked{}, err
		}
		r.IDs = append(r.IDs, id)
		r.Scores = append(r.Scores, score)
	}
	return r, rows.Err()
}

// RankFTS ranks the units matching the FTS5 query match in the word index (units_fts) by BM25 (higher is better),
// the best depth of them. With a nil scope every unit may match: the ranking reads the index alone, without
// visiting the (large) unit rows.
func (k *Search) RankFTS(ctx context.Context, match string, sc *Scope, depth int) (Ranked, error) {
	if sc == nil {
		return k.ranked(ctx, `SELECT rowid, -bm25(units_fts) FROM units_fts WHERE units_fts MATCH ? ORDER BY bm25(units_fts) LIMIT ?`,
			match, depth)
	}
	where, args := sc.where()
	return k.ranked(ctx, `SELECT units_fts.rowid, -bm25(units_fts) FROM units_fts JOIN units u ON u.id = units_fts.rowid
			JOIN documents d ON d.id = u.document_id WHERE units_fts MATCH ? AND `+where+
		` ORDER BY bm25(units_fts) LIMIT ?`, append(append([]any{match}, args...), depth)...)
}

// RankFTSBigram is RankFTS over the bigram index of CJK text (units_fts_bigram), within sc; match is an FTS5 query
// of quoted bigrams and words (CJKBigrams).
func (k *Search) RankFTSBigram(ctx context.Context, match string, sc Scope, depth int) (Ranked, error) {
	where, args := sc.where()
	return k.ranked(ctx, `SELECT units_fts_bigram.rowid, -bm25(units_fts_bigram) FROM units_fts_bigram
			JOIN units u ON u.id = units_fts_bigram.rowid JOIN documents d ON d.id = u.document_id
			WHERE units_fts_bigram MATCH ? AND `+where+` ORDER BY bm25(units_fts_bigram) LIMIT ?`,
		append(append([]any{match}, args...), depth)...)
}

// RankSubstrings ranks the units of sc by the number of subs (lower case) their lower-cased text contains, the best
// depth with at least one, ties by id: a scan of every unit in scope, for single CJK characters, which the bigram index holds only where they stand alone.
func (k *Search) RankSubstrings(ctx context.Context, subs []string, sc Scope, depth int) (Ranked, error) {
	where, args := sc.where()
	sum := make([]string, len(subs))
	var qargs []any
	for i, x := range subs {
		sum[i] = "(instr(lower(u.text), ?) > 0)"
		qargs = append(qargs, x)
	}
	expr := strings.Join(sum, " + ")
	query := `SELECT id, s FROM (SELECT u.id AS id, ` + expr + ` AS s FROM units u JOIN documents d ON d.id = u.document_id
			WHERE ` + where + `) WHERE s > 0 ORDER BY s DESC, id LIMIT ?`
	return k.ranked(ctx, query, append(append(qargs, args...), depth)...)
}

// UnitText is a unit's id and text.
type UnitText struct {
	ID   int64
	Text string
}

// MatchingUnitTexts lists up to limit units of sc matching the FTS5 query match in the word index, with their text.
func (k *Search) MatchingUnitTexts(ctx context.Context, match string, sc Scope, limit int) ([]UnitText, error) {
	where, args := sc.where()
	return queryAll(ctx, k.db, "read matching unit texts", func(r rowScanner) (u UnitText, err error) {
		err = r.Scan(&u.ID, &u.Text)
		return
	}, `SELECT u.id, u.text FROM units_fts JOIN units u ON u.id = units_fts.rowid
			JOIN documents d ON d.id = u.document_id WHERE units_fts MATCH ? AND `+where+` LIMIT ?`,
		append(append([]any{match}, args...), limit)...)
}

// UnitsAtOrdinal lists up to 200 units of sc at an ordinal (a page number), or, with last, each document's last.
func (k *Search) UnitsAtOrdinal(ctx context.Context, sc Scope, ordinal int, last bool) ([]int64, error) {
	where, args := sc.where()
	cond, a := "u.ordinal = ?", []any{ordinal}
	if last {
		cond, a = "u.ordinal = d.pages", nil
	}
	return k.ids(ctx, `SELECT u.id FROM units u JOIN documents d ON d.id = u.document_id
			WHERE `+cond+` AND `+where+` LIMIT 200`, append(a, args...)...)
}

// rowsByID runs query, whose "IN (%s)" takes the ids, in chunks well under SQLite's bound-variable limit, and
// calls scan for every row.
func (k *store) rowsByID(ctx context.Context, query string, ids []int64, scan func(*sql.Rows) error) error {
	for chunk := range slices.Chunk(ids, 500) {
		in, args := idArgs(chunk)
		rows, err := k.db.QueryContext(ctx, fmt.Sprintf(query, in), args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			if err := scan(rows); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// UnitTexts reads the text of the given units (those deleted meanwhile are absent).
func (k *Search) UnitTexts(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	err := k.rowsByID(ctx, `SELECT id, text FROM units WHERE id IN (%s)`, ids, func(rows *sql.Rows) error {
		var id int64
		var t string
		if err := rows.Scan(&id, &t); err != nil {
			return err
		}
		out[id] = t
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("unit text: %w", err)
	}
	return out, nil
}

// EachLibraryUnitText calls fn with the text of every unit of the library, in id order, stopping at fn's first error.
func (k *Search) EachLibraryUnitText(ctx context.Context, fn func(text string) error) error {
	rows, err := k.db.QueryContext(ctx, `SELECT text FROM units ORDER BY id`)
	if err != nil {
		return fmt.Errorf("unit texts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return fmt.Errorf("unit texts: %w", err)
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return rows.Err()
}

// UnitDocuments maps the given units to their documents, from the unit rows alone.
func (k *Search) UnitDocuments(ctx context.Context, ids []int64) (map[int64]int64, error) {
	out := make(map[int64]int64, len(ids))
	err := k.rowsByID(ctx, `SELECT id, document_id FROM units WHERE id IN (%s)`, ids, func(rows *sql.Rows) error {
		var id, doc int64
		if err := rows.Scan(&id, &doc); err != nil {
			return err
		}
		out[id] = doc
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("documents of units: %w", err)
	}
	return out, nil
}

// DocumentsByID reads the given documents' ID, CollectionID, Name and Kind (the other fields are left zero).
func (k *Search) DocumentsByID(ctx context.Context, ids []int64) (map[int64]Document, error) {
	out := make(map[int64]Document, len(ids))
	err := k.rowsByID(ctx, `SELECT id, collection_id, name, kind FROM documents WHERE id IN (%s)`, ids, func(rows *sql.Rows) error {
		var d Document
		if err := rows.Scan(&d.ID, &d.CollectionID, &d.Name, &d.Kind); err != nil {
			return err
		}
		out[d.ID] = d
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("documents: %w", err)
	}
	return out, nil
}
