package kb

import (
	"context"
	"database/sql"
	"fmt"
)

// Units ingested before word boxes had a compact form hold them as JSON, about five times larger; they read as
// before, and these rewrite them on request (`proofglass doctor --fix`).

// legacyWordsWhere selects the units whose word boxes are JSON text: the compact form is a BLOB.
const legacyWordsWhere = `typeof(words) = 'text' AND words <> '[]'`

// LegacyWordBoxes counts the units whose word boxes are still JSON, and their bytes.
func (k *KB) LegacyWordBoxes(ctx context.Context) (units int, bytes int64, err error) {
	err = k.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(octet_length(words)), 0) FROM units WHERE `+legacyWordsWhere).
		Scan(&units, &bytes)
	if err != nil {
		return 0, 0, fmt.Errorf("count JSON word boxes: %w", err)
	}
	return units, bytes, nil
}

// compactBatch is how many units one transaction rewrites: short enough that an ingest or a search waiting for
// the database is not held up for long.
const compactBatch = 256

// CompactWordBoxes rewrites JSON word boxes in the compact form, a batch per transaction, and returns how many units
// it rewrote and their word bytes before and after. A unit whose JSON does not decode (reading it failed) loses
// its boxes instead, and is counted in dropped. The database file keeps its size: later writes reuse the space.
func (k *KB) CompactWordBoxes(ctx context.Context) (units, dropped int, before, after int64, err error) {
	last := int64(0)
	for {
		type row struct {
			id    int64
			words string
		}
		var rows []row
		err := k.tx(ctx, func(tx *sql.Tx) error {
			rs, err := tx.QueryContext(ctx, `SELECT id, words FROM units WHERE id > ? AND `+legacyWordsWhere+` ORDER BY id LIMIT ?`,
				last, compactBatch)
			if err != nil {
				return err
			}
			for rs.Next() {
				var r row
				if err := rs.Scan(&r.id, &r.words); err != nil {
					rs.Close()
					return err
				}
				rows = append(rows, r)
			}
			rs.Close()
			if err := rs.Err(); err != nil {
				return err
			}
			for _, r := range rows {
				last = r.id
				var b []byte
				ws, err := decodeWords(r.words)
				if err == nil {
					b, err = encodeWordsBinary(ws)
				}
				if err != nil {
					dropped++
					b = nil
				}
				var v any = "[]"
				if len(b) > 0 {
					v = b
				}
				if _, err := tx.ExecContext(ctx, `UPDATE units SET words = ? WHERE id = ?`, v, r.id); err != nil {
					return err
				}
				units++
				before += int64(len(r.words))
				after += int64(len(b))
			}
			return nil
		})
		if err != nil {
			return units, dropped, before, after, fmt.Errorf("compact word boxes after unit %d: %w", last, err)
		}
		if len(rows) < compactBatch {
			return units, dropped, before, after, nil
		}
	}
}

// FreeSpace returns the database file's size and the bytes of it that hold nothing (free pages).
func (k *KB) FreeSpace(ctx context.Context) (size, free int64, err error) {
	var pages, freePages, pageSize int64
	err = k.db.QueryRowContext(ctx, `SELECT (SELECT page_count FROM pragma_page_count), (SELECT freelist_count FROM pragma_freelist_count),
		(SELECT page_size FROM pragma_page_size)`).Scan(&pages, &freePages, &pageSize)
	if err != nil {
		return 0, 0, fmt.Errorf("database free space: %w", err)
	}
	return pages * pageSize, freePages * pageSize, nil
}

// Vacuum rewrites the database file without its free pages (it needs about the file's size again in temporary
// space, and no other process writing meanwhile) and returns its size before and after.
func (k *KB) Vacuum(ctx context.Context) (before, after int64, err error) {
	if before, _, err = k.FreeSpace(ctx); err != nil {
		return 0, 0, err
	}
	if _, err := k.db.ExecContext(ctx, `VACUUM`); err != nil {
		return before, before, fmt.Errorf("vacuum: %w", err)
	}
	after, _, err = k.FreeSpace(ctx)
	return before, after, err
}
