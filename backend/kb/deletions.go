package kb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sync"
)

// Deleted describes a document that was just removed: enough for a derived cache (page renders) to purge its files.
type Deleted struct {
	ID         int64
	Collection string // the collection's name
	SHA256     string
	Name       string
}

// deleteHooks are called after documents are deleted by this process.
type deleteHooks struct {
	mu  sync.Mutex
	fns []func(context.Context, []Deleted)
}

// OnDelete registers fn to be called after DeleteDocument or DeleteCollection removed documents. Other processes'
// deletions are not seen here: caches must also check the database (see doctor and the page cache's sweep).
func (k *KB) OnDelete(fn func(context.Context, []Deleted)) {
	k.hooks.mu.Lock()
	k.hooks.fns = append(k.hooks.fns, fn)
	k.hooks.mu.Unlock()
}

func (k *store) deletedDocs(ctx context.Context, where string, arg int64) ([]Deleted, error) {
	return deletedDocs(ctx, k.db, where, arg)
}

func deletedDocs(ctx context.Context, q querier, where string, args ...any) ([]Deleted, error) {
	return queryAll(ctx, q, "list deleted documents", func(r rowScanner) (d Deleted, err error) {
		err = r.Scan(&d.ID, &d.Collection, &d.SHA256, &d.Name)
		return
	}, `SELECT d.id, c.name, d.sha256, d.name FROM documents d
		JOIN collections c ON c.id = d.collection_id WHERE `+where, args...)
}

func (k *store) fireDeleted(ctx context.Context, ds []Deleted) {
	if len(ds) == 0 {
		return
	}
	k.hooks.mu.Lock()
	fns := append([]func(context.Context, []Deleted){}, k.hooks.fns...)
	k.hooks.mu.Unlock()
	for _, fn := range fns {
		fn(ctx, ds)
	}
}

// DocumentKeys calls fn with the collection name and content hash of every document: what derived caches keyed by
// content may keep.
func (k *Docs) DocumentKeys(ctx context.Context, fn func(collection, sha256 string)) error {
	rows, err := k.db.QueryContext(ctx, `SELECT c.name, d.sha256 FROM documents d JOIN collections c ON c.id = d.collection_id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var c, h string
		if err := rows.Scan(&c, &h); err != nil {
			return err
		}
		fn(c, h)
	}
	return rows.Err()
}

// DeleteDocuments removes documents with their units, vectors and steps in one transaction (ids that do not exist
// are skipped), then the blobs no other row uses. The blobs are journalled in that transaction and swept after it,
// so a crash in between leaves them to PurgeBlobs instead of orphaned. It returns the documents removed.
func (k *Docs) DeleteDocuments(ctx context.Context, ids []int64) ([]Deleted, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	const where = "d.id IN (SELECT value FROM json_each(?))"
	var gone []Deleted
	err = k.tx(ctx, func(tx *sql.Tx) error {
		blobs, err := blobsOf(ctx, tx, where, string(list))
		if err != nil {
			return err
		}
		if gone, err = deletedDocs(ctx, tx, where, string(list)); err != nil {
			return err
		}
		if len(blobs) > 0 {
			b, err := json.Marshal(blobs)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO blob_deletions(hash) SELECT value FROM json_each(?)`, string(b)); err != nil {
				return fmt.Errorf("journal blobs: %w", err)
			}
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM documents WHERE id IN (SELECT value FROM json_each(?))`, string(list))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("delete %d document(s): %w", len(ids), err)
	}
	k.fireDeleted(ctx, gone)
	if _, err := k.PurgeBlobs(ctx); err != nil {
		return gone, err
	}
	return gone, nil
}

// PurgeBlobs removes the journalled blobs that no row refers to any more and empties the journal: what a deletion
// interrupted between its commit and its sweep left. It returns how many blobs it removed.
func (k *Docs) PurgeBlobs(ctx context.Context) (int, error) {
	hashes, err := k.strings(ctx, `SELECT hash FROM blob_deletions`)
	if err != nil || len(hashes) == 0 {
		return 0, err
	}
	n, err := k.removeUnreferenced(ctx, hashes)
	if err != nil {
		return n, err
	}
	b, err := json.Marshal(hashes)
	if err != nil {
		return n, err
	}
	if _, err := k.db.ExecContext(ctx, `DELETE FROM blob_deletions WHERE hash IN (SELECT value FROM json_each(?))`, string(b)); err != nil {
		return n, fmt.Errorf("clear the blob journal: %w", err)
	}
	return n, nil
}

// DiscardBlobs removes the given blobs unless a row refers to them: blobs stored for rows that were then not
// written. They are journalled first, so a crash before the sweep leaves them to PurgeBlobs.
func (k *Docs) DiscardBlobs(ctx context.Context, hashes []string) error {
	b, err := json.Marshal(hashes)
	if err != nil {
		return err
	}
	if _, err := k.db.ExecContext(ctx, `INSERT OR IGNORE INTO blob_deletions(hash) SELECT value FROM json_each(?)`, string(b)); err != nil {
		return fmt.Errorf("journal blobs: %w", err)
	}
	_, err = k.PurgeBlobs(ctx)
	return err
}

// PendingDeletions lists the documents journalled for deletion and not yet deleted (a watcher stopped, or crashed,
// between releasing them and deleting them), oldest first.
func (k *Docs) PendingDeletions(ctx context.Context) ([]int64, error) {
	return k.ids(ctx, `SELECT document_id FROM document_deletions ORDER BY document_id`)
}

// PendingBlobDeletions counts the blobs journalled for removal and not yet swept.
func (k *Docs) PendingBlobDeletions(ctx context.Context) (int, error) {
	var n int
	err := k.db.QueryRowContext(ctx, `SELECT count(*) FROM blob_deletions`).Scan(&n)
	return n, err
}

func (k *store) strings(ctx context.Context, q string, args ...any) ([]string, error) {
	return queryAll(ctx, k.db, "read strings", func(r rowScanner) (s string, err error) {
		err = r.Scan(&s)
		return
	}, q, args...)
}
