package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Document statuses.
const (
	StatusQueued    = "queued"
	StatusIngesting = "ingesting"
	StatusReady     = "ready"
	StatusFailed    = "failed"
)

// Document is one ingested file.
type Document struct {
	ID           int64     `json:"id"`
	CollectionID int64     `json:"collection_id"`
	SHA256       string    `json:"sha256"`
	Name         string    `json:"name"`
	SourcePath   string    `json:"source_path,omitempty"`
	Kind         string    `json:"kind"` // pdf | image | video
	MIME         string    `json:"mime,omitempty"`
	SizeBytes    int64     `json:"size_bytes"`
	Blob         string    `json:"blob,omitempty"` // the original, in the blob store
	Status       string    `json:"status"`
	Error        string    `json:"error,omitempty"`
	Pages        int       `json:"pages"` // pages, 1 for an image, clips for a video
	DurationMS   int64     `json:"duration_ms,omitempty"`
	Meta         string    `json:"meta,omitempty"` // JSON object
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

const documentCols = `id, collection_id, sha256, name, source_path, kind, mime, size_bytes, blob, status, error, pages,
	duration_ms, meta, created_at, updated_at`

func scanDocument(row rowScanner) (Document, error) {
	var d Document
	var c, u int64
	err := row.Scan(&d.ID, &d.CollectionID, &d.SHA256, &d.Name, &d.SourcePath, &d.Kind, &d.MIME, &d.SizeBytes, &d.Blob,
		&d.Status, &d.Error, &d.Pages, &d.DurationMS, &d.Meta, &c, &u)
	d.CreatedAt, d.UpdatedAt = time.UnixMilli(c), time.UnixMilli(u)
	return d, err
}

// AddDocument inserts a document, or returns the existing one with the same sha256 in the collection and
// existed = true, so the same file is never ingested twice.
func (k *Docs) AddDocument(ctx context.Context, d Document) (out Document, existed bool, err error) {
	return k.AddDocumentClaimed(ctx, d, nil)
}

// AddDocumentClaimed is AddDocument for a file of a watched folder: a document it creates is recorded as the file's
// (owned) in the same transaction, and an existing one that was journalled for deletion (its file vanished, and the
// same content is back) is taken out of the journal and claimed likewise. It fails, creating nothing, when the
// folder is no longer watched.
func (k *Docs) AddDocumentClaimed(ctx context.Context, d Document, c *WatchClaim) (out Document, existed bool, err error) {
	if d.Status == "" {
		d.Status = StatusQueued
	}
	if d.Meta == "" {
		d.Meta = "{}"
	}
	err = k.tx(ctx, func(tx *sql.Tx) error {
		prev, err := scanDocument(tx.QueryRowContext(ctx, `SELECT `+documentCols+` FROM documents WHERE collection_id = ? AND sha256 = ?`,
			d.CollectionID, d.SHA256))
		if err == nil {
			out, existed = prev, true
			if c == nil {
				return nil
			}
			res, err := tx.ExecContext(ctx, `DELETE FROM document_deletions WHERE document_id = ?`, prev.ID)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return nil
			}
			return k.claim(ctx, tx, *c, prev)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		ts := now()
		res, err := tx.ExecContext(ctx, `INSERT INTO documents(collection_id, sha256, name, source_path, kind, mime, size_bytes, blob,
			status, error, pages, duration_ms, meta, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			d.CollectionID, d.SHA256, d.Name, d.SourcePath, d.Kind, d.MIME, d.SizeBytes, d.Blob, d.Status, d.Error, d.Pages,
			d.DurationMS, d.Meta, ts, ts)
		if err != nil {
			return err
		}
		d.ID, _ = res.LastInsertId()
		d.CreatedAt, d.UpdatedAt = time.UnixMilli(ts), time.UnixMilli(ts)
		out = d
		if c != nil {
			return k.claim(ctx, tx, *c, d)
		}
		return nil
	})
	if err != nil {
		return Document{}, false, fmt.Errorf("add document %s: %w", d.Name, err)
	}
	return out, existed, nil
}

// Document finds a document by id.
func (k *Docs) Document(ctx context.Context, id int64) (Document, error) {
	d, err := scanDocument(k.db.QueryRowContext(ctx, `SELECT `+documentCols+` FROM documents WHERE id = ?`, id))
	return found(d, err, "document %d", id)
}

// Documents lists the documents of a collection (all collections when collectionID is 0), newest first.
func (k *Docs) Documents(ctx context.Context, collectionID int64) ([]Document, error) {
	q := `SELECT ` + documentCols + ` FROM documents`
	var args []any
	if collectionID != 0 {
		q += ` WHERE collection_id = ?`
		args = append(args, collectionID)
	}
	return queryAll(ctx, k.db, "list documents", scanDocument, q+` ORDER BY id DESC`, args...)
}

// UpdateDocument writes the mutable fields of d (status, error, pages, duration, meta, kind, mime, blob).
func (k *Docs) UpdateDocument(ctx context.Context, d Document) error {
	if d.Meta == "" {
		d.Meta = "{}"
	}
	res, err := k.db.ExecContext(ctx, `UPDATE documents SET status=?, error=?, pages=?, duration_ms=?, meta=?, kind=?, mime=?,
		blob=?, updated_at=? WHERE id=?`, d.Status, d.Error, d.Pages, d.DurationMS, d.Meta, d.Kind, d.MIME, d.Blob, now(), d.ID)
	if err != nil {
		return fmt.Errorf("update document %d: %w", d.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("document %d: %w", d.ID, ErrNotFound)
	}
	return nil
}

// SetStatus sets a document's status and error text.
func (k *Docs) SetStatus(ctx context.Context, id int64, status, errText string) error {
	_, err := k.db.ExecContext(ctx, `UPDATE documents SET status=?, error=?, updated_at=? WHERE id=?`, status, errText, now(), id)
	if err != nil {
		return fmt.Errorf("set status of document %d: %w", id, err)
	}
	return nil
}

// DeleteDocument removes a document with its units, vectors and steps, then the blobs no other row uses.
func (k *Docs) DeleteDocument(ctx context.Context, id int64) error {
	gone, err := k.DeleteDocuments(ctx, []int64{id})
	if err == nil && len(gone) == 0 {
		return fmt.Errorf("document %d: %w", id, ErrNotFound)
	}
	return err
}

// DocumentIDsByName maps the names of a collection's documents, exactly as stored (the file's base name), to their
// ids; when two documents share a name the older one wins. A dataset naming documents must spell them as stored:
// the names are not trimmed, since retrieval scoring compares them to hits' stored names as they are.
func (k *Docs) DocumentIDsByName(ctx context.Context, collection string) (map[string]int64, error) {
	c, err := k.CollectionByName(ctx, collection)
	if err != nil {
		return nil, err
	}
	return queryMap(ctx, k.db, fmt.Sprintf("document ids of %s", collection), func(r rowScanner) (string, int64, error) {
		var id int64
		var name string
		err := r.Scan(&id, &name)
		return name, id, err
	}, `SELECT id, name FROM documents WHERE collection_id = ? ORDER BY id DESC`, c.ID)
}

// DocumentIDsNamed lists, oldest first, the documents with exactly this name, in one collection (all when
// collectionID is 0).
func (k *Docs) DocumentIDsNamed(ctx context.Context, name string, collectionID int64) ([]int64, error) {
	q := `SELECT id FROM documents WHERE name = ?`
	args := []any{name}
	if collectionID != 0 {
		q += ` AND collection_id = ?`
		args = append(args, collectionID)
	}
	ids, err := k.ids(ctx, q+` ORDER BY id`, args...)
	if err != nil {
		return nil, fmt.Errorf("documents named %q: %w", name, err)
	}
	return ids, nil
}
