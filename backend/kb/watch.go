package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
}

// ErrAlreadyWatched is returned when the folder is already watched for the collection.
var ErrAlreadyWatched = errors.New("already watched")

// WatchedFolders lists the watched folders with their collection's name and counts of files and documents.
func (k *KB) WatchedFolders(ctx context.Context) ([]WatchedFolder, error) {
	rows, err := k.db.QueryContext(ctx, `SELECT f.id, f.collection_id, c.name, f.path, f.created_at, f.scanned_at, f.error,
		(SELECT count(*) FROM watch_files w WHERE w.folder_id = f.id),
		(SELECT count(DISTINCT document_id) FROM watch_files w WHERE w.folder_id = f.id AND w.document_id IS NOT NULL)
		FROM watch_folders f JOIN collections c ON c.id = f.collection_id ORDER BY f.id`)
	if err != nil {
		return nil, fmt.Errorf("list watched folders: %w", err)
	}
	defer rows.Close()
	var out []WatchedFolder
	for rows.Next() {
		var f WatchedFolder
		var created, scanned int64
		if err := rows.Scan(&f.ID, &f.CollectionID, &f.Collection, &f.Path, &created, &scanned, &f.Error, &f.Files, &f.Documents); err != nil {
			return nil, err
		}
		f.CreatedAt = time.UnixMilli(created)
		if scanned > 0 {
			f.ScannedAt = time.UnixMilli(scanned)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// AddWatchedFolder records path as watched for a collection and returns its id; when it already is, it returns that
// id and ErrAlreadyWatched.
func (k *KB) AddWatchedFolder(ctx context.Context, collectionID int64, path string) (int64, error) {
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
func (k *KB) WatchedFolderExists(ctx context.Context, id int64) bool {
	var one int
	return k.db.QueryRowContext(ctx, `SELECT 1 FROM watch_folders WHERE id = ?`, id).Scan(&one) == nil
}

// SetWatchScanned records a pass over folder id: its end at (zero: an incomplete pass, which leaves the last
// complete one's time) and its error, "" for none.
func (k *KB) SetWatchScanned(ctx context.Context, id int64, at time.Time, errText string) error {
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
func (k *KB) WatchedFiles(ctx context.Context, folderID int64) (map[string]WatchedFile, error) {
	rows, err := k.db.QueryContext(ctx, `SELECT rel, size, mtime_ns, sha256, coalesce(document_id, 0), owned
		FROM watch_files WHERE folder_id = ?`, folderID)
	if err != nil {
		return nil, fmt.Errorf("list watched files: %w", err)
	}
	defer rows.Close()
	out := map[string]WatchedFile{}
	for rows.Next() {
		var r WatchedFile
		if err := rows.Scan(&r.Rel, &r.Size, &r.MtimeNS, &r.SHA256, &r.DocumentID, &r.Owned); err != nil {
			return nil, err
		}
		out[r.Rel] = r
	}
	return out, rows.Err()
}

// ApplyWatchedFiles removes the rows of a folder named by remove and writes put (replacing rows of the same rel) in one transaction. It
// returns the documents that no watched file refers to any more and that a watched file created: the caller deletes
// them. A document that other files still refer to passes its ownership on, so the last file to go takes it along;
// a document the user added by hand is never owned and so never deleted here.
func (k *KB) ApplyWatchedFiles(ctx context.Context, folderID int64, remove []string, put []WatchedFile) ([]int64, error) {
	tx, err := k.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	released := map[int64]bool{} // document → a released row owned it
	release := func(rel string) error {
		var doc int64
		var owned bool
		err := tx.QueryRowContext(ctx, `SELECT coalesce(document_id, 0), owned FROM watch_files WHERE folder_id = ? AND rel = ?`,
			folderID, rel).Scan(&doc, &owned)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if doc != 0 {
			released[doc] = released[doc] || owned
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM watch_files WHERE folder_id = ? AND rel = ?`, folderID, rel)
		return err
	}
	for _, rel := range remove {
		if err := release(rel); err != nil {
			return nil, fmt.Errorf("forget %s: %w", rel, err)
		}
	}
	for _, r := range put {
		if err := release(r.Rel); err != nil {
			return nil, fmt.Errorf("record %s: %w", r.Rel, err)
		}
		var doc any
		if r.DocumentID != 0 {
			doc = r.DocumentID
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO watch_files(folder_id, rel, size, mtime_ns, sha256, document_id, owned)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, folderID, r.Rel, r.Size, r.MtimeNS, r.SHA256, doc, r.Owned); err != nil {
			return nil, fmt.Errorf("record %s: %w", r.Rel, err)
		}
	}
	var gone []int64
	for doc, owned := range released {
		var refs, owners int
		if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(owned), 0) FROM watch_files WHERE document_id = ?`, doc).
			Scan(&refs, &owners); err != nil {
			return nil, err
		}
		switch {
		case refs == 0 && owned:
			gone = append(gone, doc)
		case refs > 0 && owned && owners == 0:
			if _, err := tx.ExecContext(ctx, `UPDATE watch_files SET owned = 1 WHERE (folder_id, rel) =
				(SELECT folder_id, rel FROM watch_files WHERE document_id = ? LIMIT 1)`, doc); err != nil {
				return nil, err
			}
		}
	}
	return gone, tx.Commit()
}

// RemoveWatchedFolder forgets a folder and its files; it returns the documents to delete as ApplyWatchedFiles does
// (none with keep).
func (k *KB) RemoveWatchedFolder(ctx context.Context, id int64, keep bool) ([]int64, error) {
	files, err := k.WatchedFiles(ctx, id)
	if err != nil {
		return nil, err
	}
	rels := make([]string, 0, len(files))
	for rel := range files {
		rels = append(rels, rel)
	}
	gone, err := k.ApplyWatchedFiles(ctx, id, rels, nil)
	if err != nil {
		return nil, err
	}
	res, err := k.db.ExecContext(ctx, `DELETE FROM watch_folders WHERE id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("remove watched folder %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, fmt.Errorf("watched folder %d: %w", id, ErrNotFound)
	}
	if keep {
		return nil, nil
	}
	return gone, nil
}
