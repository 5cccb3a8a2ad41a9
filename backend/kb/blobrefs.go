package kb

import (
	"context"
	"fmt"
	"time"
)

// blobRefsSQL lists every blob hash a row refers to. Derived, not stored: there is no refcount to drift.
const blobRefsSQL = `SELECT blob AS h FROM documents WHERE blob != ''
	UNION SELECT thumb_blob FROM units WHERE thumb_blob != ''
	UNION SELECT image_blob FROM units WHERE image_blob != ''
	UNION SELECT blob FROM frames
	UNION SELECT hash FROM run_blobs`

// documentBlobsSQL lists the blobs of the documents selected by the WHERE clause that follows it.
const documentBlobsSQL = `SELECT d.blob FROM documents d WHERE d.blob != '' AND %[1]s
	UNION SELECT u.thumb_blob FROM units u JOIN documents d ON d.id = u.document_id WHERE u.thumb_blob != '' AND %[1]s
	UNION SELECT u.image_blob FROM units u JOIN documents d ON d.id = u.document_id WHERE u.image_blob != '' AND %[1]s
	UNION SELECT f.blob FROM frames f JOIN units u ON u.id = f.unit_id JOIN documents d ON d.id = u.document_id WHERE %[1]s`

// ReferencedBlobs returns the set of blob hashes rows refer to.
func (k *KB) ReferencedBlobs(ctx context.Context) (map[string]bool, error) {
	return k.referencedBlobs(ctx)
}

func (k *store) referencedBlobs(ctx context.Context) (map[string]bool, error) {
	return queryMap(ctx, k.db, "list blob references", func(r rowScanner) (string, bool, error) {
		var h string
		err := r.Scan(&h)
		return h, true, err
	}, blobRefsSQL)
}

// blobsOf returns the blobs the selected documents refer to.
func (k *store) blobsOf(ctx context.Context, where string, args ...any) ([]string, error) {
	return blobsOf(ctx, k.db, where, args...)
}

func blobsOf(ctx context.Context, q querier, where string, args ...any) ([]string, error) {
	all := make([]any, 0, 4*len(args))
	for range 4 {
		all = append(all, args...)
	}
	return queryAll(ctx, q, "list document blobs", func(r rowScanner) (h string, err error) {
		err = r.Scan(&h)
		return
	}, fmt.Sprintf(documentBlobsSQL, where), all...)
}

// removeUnreferenced deletes those of the candidate blobs that no row refers to any more. Only candidates are
// considered, so a blob that an ingest has written but not yet recorded is never swept from under it.
func (k *store) removeUnreferenced(ctx context.Context, candidates []string) (int, error) {
	if len(candidates) == 0 {
		return 0, nil
	}
	refs, err := k.referencedBlobs(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, h := range candidates {
		if refs[h] {
			continue
		}
		if err := k.blobs.Remove(h); err != nil {
			return n, fmt.Errorf("remove blob %s: %w", h, err)
		}
		n++
	}
	return n, nil
}

// BlobReport is the result of checking the blob store against the database.
type BlobReport struct {
	Stored  int      `json:"stored"`
	Missing []string `json:"missing"` // referenced by a row, absent on disk
	Orphans []string `json:"orphans"` // on disk, referenced by nothing (older than the grace period)
}

// CheckBlobs compares the blob store with the references in the database. Blobs younger than grace are not called
// orphans: an ingest may have written them and not yet recorded them.
func (k *KB) CheckBlobs(ctx context.Context, grace time.Duration) (BlobReport, error) {
	refs, err := k.ReferencedBlobs(ctx)
	if err != nil {
		return BlobReport{}, err
	}
	var r BlobReport
	onDisk := map[string]bool{}
	cutoff := time.Now().Add(-grace)
	err = k.blobs.Walk(func(h string, _ int64, mod time.Time) error {
		r.Stored++
		onDisk[h] = true
		if !refs[h] && mod.Before(cutoff) {
			r.Orphans = append(r.Orphans, h)
		}
		return nil
	})
	if err != nil {
		return r, fmt.Errorf("walk blob store: %w", err)
	}
	for h := range refs {
		if !onDisk[h] {
			r.Missing = append(r.Missing, h)
		}
	}
	return r, nil
}

// RemoveOrphans deletes the given orphan blobs after re-checking that nothing refers to them.
func (k *KB) RemoveOrphans(ctx context.Context, orphans []string) (int, error) {
	return k.removeUnreferenced(ctx, orphans)
}
