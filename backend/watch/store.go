package watch

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"proofglass/backend/kb"
)

// Folder is a watched folder as stored.
type Folder struct {
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

// fileRow is a file seen in a watched folder: rel is its slash-separated path under the folder.
type fileRow struct {
	rel        string
	size       int64
	mtimeNS    int64
	sha256     string
	documentID int64 // 0: no document (not a PDF, image or video; or its document was deleted by hand)
	owned      bool  // this file's ingest created the document
}

// store reads and writes the watch tables of a knowledge base.
type store struct{ db *sql.DB }

func (s store) folders(ctx context.Context) ([]Folder, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT f.id, f.collection_id, c.name, f.path, f.created_at, f.scanned_at, f.error,
		(SELECT count(*) FROM watch_files w WHERE w.folder_id = f.id),
		(SELECT count(DISTINCT document_id) FROM watch_files w WHERE w.folder_id = f.id AND w.document_id IS NOT NULL)
		FROM watch_folders f JOIN collections c ON c.id = f.collection_id ORDER BY f.id`)
	if err != nil {
		return nil, fmt.Errorf("list watched folders: %w", err)
	}
	defer rows.Close()
	var out []Folder
	for rows.Next() {
		var f Folder
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

// errExists is returned when the folder is already watched for the collection.
var errExists = errors.New("already watched")

func (s store) addFolder(ctx context.Context, collectionID int64, path string) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM watch_folders WHERE collection_id = ? AND path = ?`, collectionID, path).Scan(&id)
	if err == nil {
		return id, errExists
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO watch_folders(collection_id, path, created_at) VALUES (?, ?, ?)`,
		collectionID, path, time.Now().UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("watch %s: %w", path, err)
	}
	return res.LastInsertId()
}

// exists reports whether folder id is still watched.
func (s store) exists(ctx context.Context, id int64) bool {
	var one int
	return s.db.QueryRowContext(ctx, `SELECT 1 FROM watch_folders WHERE id = ?`, id).Scan(&one) == nil
}

func (s store) setScanned(ctx context.Context, id int64, at time.Time, errText string) error {
	var ms int64
	if !at.IsZero() {
		ms = at.UnixMilli()
		_, err := s.db.ExecContext(ctx, `UPDATE watch_folders SET scanned_at = ?, error = ? WHERE id = ?`, ms, errText, id)
		return err
	}
	_, err := s.db.ExecContext(ctx, `UPDATE watch_folders SET error = ? WHERE id = ?`, errText, id)
	return err
}

// files returns the rows of a folder by rel.
func (s store) files(ctx context.Context, folderID int64) (map[string]fileRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT rel, size, mtime_ns, sha256, coalesce(document_id, 0), owned
		FROM watch_files WHERE folder_id = ?`, folderID)
	if err != nil {
		return nil, fmt.Errorf("list watched files: %w", err)
	}
	defer rows.Close()
	out := map[string]fileRow{}
	for rows.Next() {
		var r fileRow
		if err := rows.Scan(&r.rel, &r.size, &r.mtimeNS, &r.sha256, &r.documentID, &r.owned); err != nil {
			return nil, err
		}
		out[r.rel] = r
	}
	return out, rows.Err()
}

// apply removes the rows named by remove and writes put (replacing rows of the same rel) in one transaction. It
// returns the documents that no watched file refers to any more and that a watched file created: the caller deletes
// them. A document that other files still refer to passes its ownership on, so the last file to go takes it along;
// a document the user added by hand is never owned and so never deleted here.
func (s store) apply(ctx context.Context, folderID int64, remove []string, put []fileRow) ([]int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
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
		if err := release(r.rel); err != nil {
			return nil, fmt.Errorf("record %s: %w", r.rel, err)
		}
		var doc any
		if r.documentID != 0 {
			doc = r.documentID
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO watch_files(folder_id, rel, size, mtime_ns, sha256, document_id, owned)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, folderID, r.rel, r.size, r.mtimeNS, r.sha256, doc, r.owned); err != nil {
			return nil, fmt.Errorf("record %s: %w", r.rel, err)
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

// removeFolder forgets a folder and its files; it returns the documents to delete as apply does (none with keep).
func (s store) removeFolder(ctx context.Context, id int64, keep bool) ([]int64, error) {
	files, err := s.files(ctx, id)
	if err != nil {
		return nil, err
	}
	rels := make([]string, 0, len(files))
	for rel := range files {
		rels = append(rels, rel)
	}
	gone, err := s.apply(ctx, id, rels, nil)
	if err != nil {
		return nil, err
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM watch_folders WHERE id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("remove watched folder %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, fmt.Errorf("watched folder %d: %w", id, kb.ErrNotFound)
	}
	if keep {
		return nil, nil
	}
	return gone, nil
}
