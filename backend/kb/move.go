package kb

import (
	"context"
	"fmt"
)

// MoveDocument records that a document's file now has another name and path (a file renamed in a watched folder
// keeps its document).
func (k *Docs) MoveDocument(ctx context.Context, id int64, name, sourcePath string) error {
	res, err := k.db.ExecContext(ctx, `UPDATE documents SET name=?, source_path=?, updated_at=? WHERE id=?`, name, sourcePath, now(), id)
	if err != nil {
		return fmt.Errorf("move document %d to %s: %w", id, sourcePath, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("document %d: %w", id, ErrNotFound)
	}
	return nil
}
