package kb

import (
	"context"
	"fmt"
	"strings"
)

// PageItem is a unit with what a page file of it needs: its image, its document and its collection.
type PageItem struct {
	UnitID     int64
	Ordinal    int
	UnitKind   string
	ImageBlob  string
	ThumbBlob  string
	DocID      int64
	DocName    string
	DocKind    string
	MIME       string // the document's
	SHA256     string
	Blob       string
	SourcePath string
	Collection string
}

const pageItemCols = `u.id, u.ordinal, u.kind, u.image_blob, u.thumb_blob, d.id, d.name, d.kind, d.mime, d.sha256, d.blob,
	d.source_path, c.name FROM units u JOIN documents d ON d.id = u.document_id JOIN collections c ON c.id = d.collection_id`

func scanPageItems(rows interface {
	Next() bool
	Scan(...any) error
	Err() error
}) ([]PageItem, error) {
	var out []PageItem
	for rows.Next() {
		var it PageItem
		if err := rows.Scan(&it.UnitID, &it.Ordinal, &it.UnitKind, &it.ImageBlob, &it.ThumbBlob, &it.DocID, &it.DocName,
			&it.DocKind, &it.MIME, &it.SHA256, &it.Blob, &it.SourcePath, &it.Collection); err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// PageItems reads the units with the given ids (those deleted meanwhile are simply absent).
func (k *Search) PageItems(ctx context.Context, ids []int64) (map[int64]PageItem, error) {
	out := make(map[int64]PageItem, len(ids))
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(len(ids), start+500)]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := k.db.QueryContext(ctx, `SELECT `+pageItemCols+` WHERE u.id IN (?`+strings.Repeat(",?", len(chunk)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("load units: %w", err)
		}
		its, err := scanPageItems(rows)
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("load units: %w", err)
		}
		for _, it := range its {
			out[it.UnitID] = it
		}
	}
	return out, nil
}

// ReadyPageItems are the first n units of the ready documents of the named collections (all when none are named),
// oldest document first (by id), each in page order: a stable order to complete a short list of hits with.
func (k *Search) ReadyPageItems(ctx context.Context, collections []string, n int) ([]PageItem, error) {
	q := `SELECT ` + pageItemCols + ` WHERE d.status = 'ready'`
	var args []any
	if len(collections) > 0 {
		q += ` AND c.name IN (?` + strings.Repeat(",?", len(collections)-1) + `)`
		for _, c := range collections {
			args = append(args, c)
		}
	}
	rows, err := k.db.QueryContext(ctx, q+` ORDER BY d.id, u.ordinal LIMIT ?`, append(args, n)...)
	if err != nil {
		return nil, fmt.Errorf("fill order: %w", err)
	}
	defer rows.Close()
	return scanPageItems(rows)
}

// ReadyUnitCounts is the number of units (pages, images, clips) of the ready documents of each collection: what a
// served collection's page files number when all are rendered.
func (k *Search) ReadyUnitCounts(ctx context.Context) (map[string]int, error) {
	return queryMap(ctx, k.db, "count units", func(r rowScanner) (string, int, error) {
		var name string
		var n int
		err := r.Scan(&name, &n)
		return name, n, err
	}, `SELECT c.name, count(*) FROM units u JOIN documents d ON d.id = u.document_id
		JOIN collections c ON c.id = d.collection_id WHERE d.status = 'ready' GROUP BY c.id`)
}
