package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"
)

// WatchedFolder is a watched folder as stored.
type WatchedFolder struct {
	ID           int64     `json:"id"`
	CollectionID int64     `json:"collection_id"`
	Collection   string    `json:"collection"`
	Path         string    `json:"path"`
	CreatedAt    time.Time `json:"created_at"`
	ScannedAt    time.Time `json:"scanned_at"` // end of the last complete pass; zero before the first
	Error        string    `json:"error,omitempty"`
	Files        int       `json:"files"`     // files seen (PDFs, images, videos and others)
	Documents    int       `json:"documents"` // distinct documents those files are
}

// WatchedFile is a file seen in a watched folder: Rel is its slash-separated path under the folder.
type WatchedFile struct {
	Rel        string
	Size       int64
	MtimeNS    int64
	SHA256     string
	DocumentID int64 // 0: no document (not a PDF, image or video; or its document was deleted by hand)
	Owned      bool  // this file's ingest created the document
	// Mode is the file's permission bits when it was recorded, -1 when not recorded (rows written before they
	// were): an unreadable file is tried again only once its size, time or mode changes.
	Mode int64
}

// WatchClaim records, in the transaction that creates a document, that a watched folder's file brought it in: a
// crash after the document exists can no longer leave it unowned. Size, MtimeNS and Mode are the file's as it was
// opened for the ingest.
type WatchClaim struct {
	FolderID int64
	Rel      string
	Size     int64
	MtimeNS  int64
	Mode     int64
}

// ErrAlreadyWatched is returned when the folder is already watched for the collection.
var ErrAlreadyWatched = errors.New("already watched")

// WatchedFolders lists the watched folders with their collection's name and counts of files and documents.
func (k *Watch) WatchedFolders(ctx context.Context) ([]WatchedFolder, error) {
	return queryAll(ctx, k.db, "list watched folders", func(r rowScanner) (f WatchedFolder, err error) {
		var created, scanned int64
		if err = r.Scan(&f.ID, &f.CollectionID, &f.Collection, &f.Path, &created, &scanned, &f.Error, &f.Files, &f.Documents); err != nil {
			return
		}
		f.CreatedAt = time.UnixMilli(created)
		if scanned > 0 {
			f.ScannedAt = time.UnixMilli(scanned)
		}
		return
	}, `SELECT f.id, f.collection_id, c.name, f.path, f.created_at, f.scanned_at, f.error,
		(SELECT count(*) FROM watch_files w WHERE w.folder_id = f.id),
		(SELECT count(DISTINCT document_id) FROM watch_files w WHERE w.folder_id = f.id AND w.document_id IS NOT NULL)
		FROM watch_folders f JOIN collections c ON c.id = f.collection_id ORDER BY f.id`)
}

// AddWatchedFolder records path as watched for a collection and returns its id; when it already is, it returns that
// id and ErrAlreadyWatched.
func (k *Watch) AddWatchedFolder(ctx context.Context, collectionID int64, path string) (int64, error) {
	var id int64
	err := k.db.QueryRowContext(ctx, `SELECT id FROM watch_folders WHERE collection_id = ? AND path = ?`, collectionID, path).Scan(&id)
	if err == nil {
		return id, ErrAlreadyWatched
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	res, err := k.db.ExecContext(ctx, `INSERT INTO watch_folders(collection_id, path, created_at) VALUES (?, ?, ?)`,
		collectionID, path, time.Now().UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("watch %s: %w", path, err)
	}
	return res.LastInsertId()
}

// WatchedFolderExists reports whether folder id is still watched.
func (k *Watch) WatchedFolderExists(ctx context.Context, id int64) bool {
	var one int
	return k.db.QueryRowContext(ctx, `SELECT 1 FROM watch_folders WHERE id = ?`, id).Scan(&one) == nil
}

// SetWatchScanned records a pass over folder id: its end at (zero: an incomplete pass, which leaves the last
// complete one's time) and its error, "" for none.
func (k *Watch) SetWatchScanned(ctx context.Context, id int64, at time.Time, errText string) error {
	var ms int64
	if !at.IsZero() {
		ms = at.UnixMilli()
		_, err := k.db.ExecContext(ctx, `UPDATE watch_folders SET scanned_at = ?, error = ? WHERE id = ?`, ms, errText, id)
		return err
	}
	_, err := k.db.ExecContext(ctx, `UPDATE watch_folders SET error = ? WHERE id = ?`, errText, id)
	return err
}

// WatchedFiles returns the files recorded for a folder, by Rel.
func (k *Watch) WatchedFiles(ctx context.Context, folderID int64) (map[string]WatchedFile, error) {
	return queryMap(ctx, k.db, "list watched files", func(row rowScanner) (string, WatchedFile, error) {
		var r WatchedFile
		err := row.Scan(&r.Rel, &r.Size, &r.MtimeNS, &r.SHA256, &r.DocumentID, &r.Owned, &r.Mode)
		return r.Rel, r, err
	}, `SELECT rel, size, mtime_ns, sha256, coalesce(document_id, 0), owned, mode
		FROM watch_files WHERE folder_id = ?`, folderID)
}

// ApplyWatchedFiles removes the rows of a folder named by remove and writes put (replacing rows of the same rel) in
// one transaction. The documents that no watched file refers to any more and that a watched file created are
// journalled for deletion in the same transaction and returned: the caller deletes them (DeleteDocuments), and a
// crash before it does leaves them in the journal for the next start (PendingDeletions). A document that other
// files still refer to passes its ownership on, so the last file to go takes it along; a document the user added by
// hand is never owned and so never deleted here. A row put again with the document it already owns keeps owning it.
func (k *Watch) ApplyWatchedFiles(ctx context.Context, folderID int64, remove []string, put []WatchedFile) ([]int64, error) {
	var gone []int64
	err := k.tx(ctx, func(tx *sql.Tx) error {
		w, err := newWatchWriter(ctx, tx, folderID)
		if err != nil {
			return err
		}
		defer w.close()
		for _, rel := range remove {
			if _, _, err := w.release(rel); err != nil {
				return fmt.Errorf("forget %s: %w", rel, err)
			}
		}
		for _, r := range put {
			if err := w.put(r); err != nil {
				return fmt.Errorf("record %s: %w", r.Rel, err)
			}
		}
		gone, err = w.settle()
		return err
	})
	return gone, err
}

// watchWriter changes the rows of one folder inside a transaction, remembering the documents whose rows it released.
type watchWriter struct {
	ctx      context.Context
	tx       *sql.Tx
	folderID int64
	sel, del *sql.Stmt
	released map[int64]bool // document → a released row owned it
	keep     bool           // released documents nothing refers to stay (watch remove --keep-documents)
}

func newWatchWriter(ctx context.Context, tx *sql.Tx, folderID int64) (*watchWriter, error) {
	sel, err := tx.PrepareContext(ctx, `SELECT coalesce(document_id, 0), owned FROM watch_files WHERE folder_id = ? AND rel = ?`)
	if err != nil {
		return nil, err
	}
	del, err := tx.PrepareContext(ctx, `DELETE FROM watch_files WHERE folder_id = ? AND rel = ?`)
	if err != nil {
		sel.Close()
		return nil, err
	}
	return &watchWriter{ctx: ctx, tx: tx, folderID: folderID, sel: sel, del: del, released: map[int64]bool{}}, nil
}

func (w *watchWriter) close() { w.sel.Close(); w.del.Close() }

// release deletes the row of rel, returning the document it referred to and whether it owned it.
func (w *watchWriter) release(rel string) (int64, bool, error) {
	var doc int64
	var owned bool
	err := w.sel.QueryRowContext(w.ctx, w.folderID, rel).Scan(&doc, &owned)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if doc != 0 {
		w.released[doc] = w.released[doc] || owned
	}
	_, err = w.del.ExecContext(w.ctx, w.folderID, rel)
	return doc, owned, err
}

// put writes r in place of the row of its rel.
func (w *watchWriter) put(r WatchedFile) error {
	doc, owned, err := w.release(r.Rel)
	if err != nil {
		return err
	}
	if doc != 0 && doc == r.DocumentID && owned {
		r.Owned = true
	}
	var d any
	if r.DocumentID != 0 {
		d = r.DocumentID
	}
	_, err = w.tx.ExecContext(w.ctx, `INSERT INTO watch_files(folder_id, rel, size, mtime_ns, sha256, document_id, owned, mode)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, w.folderID, r.Rel, r.Size, r.MtimeNS, r.SHA256, d, r.Owned, r.Mode)
	return err
}

// settle passes on the ownership of released documents still referred to, and journals for deletion the owned ones
// nothing refers to any more, which it returns.
func (w *watchWriter) settle() ([]int64, error) {
	var gone []int64
	for doc, owned := range w.released {
		if !owned {
			continue
		}
		var refs, owners int
		if err := w.tx.QueryRowContext(w.ctx, `SELECT count(*), coalesce(sum(owned), 0) FROM watch_files WHERE document_id = ?`, doc).
			Scan(&refs, &owners); err != nil {
			return nil, err
		}
		switch {
		case refs == 0 && w.keep:
		case refs == 0:
			if _, err := w.tx.ExecContext(w.ctx, `INSERT OR IGNORE INTO document_deletions(document_id)
				SELECT id FROM documents WHERE id = ?`, doc); err != nil {
				return nil, fmt.Errorf("journal the deletion of document %d: %w", doc, err)
			}
			gone = append(gone, doc)
		case owners == 0:
			if _, err := w.tx.ExecContext(w.ctx, `UPDATE watch_files SET owned = 1 WHERE (folder_id, rel) =
				(SELECT folder_id, rel FROM watch_files WHERE document_id = ? LIMIT 1)`, doc); err != nil {
				return nil, err
			}
		}
	}
	slices.Sort(gone)
	return gone, nil
}

// claim writes a new document's row for the file that brought it in (inside AddDocumentClaimed's transaction).
func (k *store) claim(ctx context.Context, tx *sql.Tx, c WatchClaim, d Document) error {
	var one int
	if err := tx.QueryRowContext(ctx, `SELECT 1 FROM watch_folders WHERE id = ?`, c.FolderID).Scan(&one); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%s: the folder is no longer watched", c.Rel)
		}
		return err
	}
	// A new version of a file the folder already had: the facets the user set on the old version's document go to
	// the new one (the old is released below), as an edit survives re-ingest.
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO document_facets(document_id, name, source, value, norm)
		SELECT ?, f.name, f.source, f.value, f.norm FROM watch_files w JOIN document_facets f ON f.document_id = w.document_id
		WHERE w.folder_id = ? AND w.rel = ? AND w.document_id <> ? AND f.source = 'user'`, d.ID, c.FolderID, c.Rel, d.ID); err != nil {
		return fmt.Errorf("%s: carry the facets you set to the new version: %w", c.Rel, err)
	}
	w, err := newWatchWriter(ctx, tx, c.FolderID)
	if err != nil {
		return err
	}
	defer w.close()
	if err := w.put(WatchedFile{Rel: c.Rel, Size: c.Size, MtimeNS: c.MtimeNS, SHA256: d.SHA256, DocumentID: d.ID, Owned: true,
		Mode: c.Mode}); err != nil {
		return err
	}
	_, err = w.settle()
	return err
}

// RemoveWatchedFolder forgets a folder and its files in one transaction; the documents they owned are journalled
// and returned as ApplyWatchedFiles does (none with keep).
func (k *Watch) RemoveWatchedFolder(ctx context.Context, id int64, keep bool) ([]int64, error) {
	var gone []int64
	err := k.tx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT rel FROM watch_files WHERE folder_id = ?`, id)
		if err != nil {
			return err
		}
		var rels []string
		for rows.Next() {
			var rel string
			if err := rows.Scan(&rel); err != nil {
				rows.Close()
				return err
			}
			rels = append(rels, rel)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		w, err := newWatchWriter(ctx, tx, id)
		if err != nil {
			return err
		}
		defer w.close()
		w.keep = keep
		for _, rel := range rels {
			if _, _, err := w.release(rel); err != nil {
				return fmt.Errorf("forget %s: %w", rel, err)
			}
		}
		if gone, err = w.settle(); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM watch_folders WHERE id = ?`, id)
		if err != nil {
			return fmt.Errorf("remove watched folder %d: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("watched folder %d: %w", id, ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return gone, nil
}
