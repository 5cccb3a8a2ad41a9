package kb

import (
	"context"
	"fmt"
)

// Integrity runs SQLite's integrity and foreign-key checks and returns every problem found (empty = healthy).
func (k *KB) Integrity(ctx context.Context) ([]string, error) {
	var problems []string
	rows, err := k.db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return nil, fmt.Errorf("integrity_check: %w", err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return nil, err
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	rows.Close()
	fk, err := k.db.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		return nil, fmt.Errorf("foreign_key_check: %w", err)
	}
	defer fk.Close()
	for fk.Next() {
		var table, parent string
		var rowid, idx any
		if err := fk.Scan(&table, &rowid, &parent, &idx); err != nil {
			return nil, err
		}
		problems = append(problems, fmt.Sprintf("row %v of %s refers to a missing %s row", rowid, table, parent))
	}
	if _, err := k.db.ExecContext(ctx, `INSERT INTO units_fts(units_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		problems = append(problems, fmt.Sprintf("full-text index units_fts does not match the units table: %v (repair: proofglass doctor --fix rebuilds it)", err))
	}
	// The bigram index is contentless: FTS5 can check only its own structure, so its rows are counted too.
	var cjkUnits, bigramRows int64
	if _, err := k.db.ExecContext(ctx, `INSERT INTO units_fts_bigram(units_fts_bigram) VALUES ('integrity-check')`); err != nil {
		problems = append(problems, fmt.Sprintf("full-text index units_fts_bigram is damaged: %v (repair: proofglass doctor --fix rebuilds it)", err))
	} else if err := k.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM units WHERE cjk), (SELECT count(*) FROM units_fts_bigram)`).Scan(&cjkUnits, &bigramRows); err != nil {
		return nil, fmt.Errorf("count bigram index rows: %w", err)
	} else if cjkUnits != bigramRows {
		problems = append(problems, fmt.Sprintf("full-text index units_fts_bigram holds %d rows for %d units with CJK text (repair: proofglass doctor --fix rebuilds it)", bigramRows, cjkUnits))
	}
	return problems, fk.Err()
}

// RebuildFTS rebuilds the full-text indexes from the units table.
func (k *KB) RebuildFTS(ctx context.Context) error {
	if _, err := k.db.ExecContext(ctx, `INSERT INTO units_fts(units_fts) VALUES ('rebuild')`); err != nil {
		return fmt.Errorf("rebuild units_fts: %w", err)
	}
	// Contentless: no 'rebuild'; emptied and refilled from the units in one transaction.
	tx, err := k.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("rebuild units_fts_bigram: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO units_fts_bigram(units_fts_bigram) VALUES ('delete-all');
		INSERT INTO units_fts_bigram(rowid, text) SELECT id, `+bigramFunc+`(text) FROM units WHERE cjk`); err != nil {
		return fmt.Errorf("rebuild units_fts_bigram: %w", err)
	}
	return tx.Commit()
}

// SchemaVersionOf reports the database's schema version.
func (k *KB) SchemaVersionOf(ctx context.Context) (int, error) {
	var v int
	err := k.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v)
	return v, err
}
