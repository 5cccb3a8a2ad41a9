package kb

import (
	"context"
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

func (k *KB) deletedDocs(ctx context.Context, where string, arg int64) ([]Deleted, error) {
	rows, err := k.db.QueryContext(ctx, `SELECT d.id, c.name, d.sha256, d.name FROM documents d
		JOIN collections c ON c.id = d.collection_id WHERE `+where, arg)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Deleted
	for rows.Next() {
		var d Deleted
		if err := rows.Scan(&d.ID, &d.Collection, &d.SHA256, &d.Name); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

func (k *KB) fireDeleted(ctx context.Context, ds []Deleted) {
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
func (k *KB) DocumentKeys(ctx context.Context, fn func(collection, sha256 string)) error {
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
