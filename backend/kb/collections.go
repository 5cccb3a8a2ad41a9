package kb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Collection is a named set of documents. It pins its embedders: every vector in it comes from the same models, so
// dimensions never mix; changing an embedder means re-embedding the collection.
type Collection struct {
	ID            int64     `json:"id"`
	Name          string    `json:"name"`
	TextEmbedder  string    `json:"text_embedder"`
	TextDim       int       `json:"text_dim"`
	ImageEmbedder string    `json:"image_embedder,omitempty"`
	ImageDim      int       `json:"image_dim,omitempty"`
	CreatedAt     time.Time `json:"created_at"`
	Documents     int       `json:"documents"`
	Units         int       `json:"units"`
}

// Default embedder of new collections: the built-in GloVe model, which needs no server.
const (
	DefaultTextEmbedder = "builtin/glove-100d"
	DefaultTextDim      = 100
	DefaultCollection   = "default"
)

// ErrExists is returned when creating something whose name is taken.
var ErrExists = errors.New("already exists")

// CreateCollection adds a collection; empty embedder fields get the built-in default.
func (k *Docs) CreateCollection(ctx context.Context, c Collection) (Collection, error) {
	c.Name = strings.TrimSpace(c.Name)
	if c.Name == "" {
		return Collection{}, fmt.Errorf("collection name is empty")
	}
	if c.TextEmbedder == "" {
		c.TextEmbedder, c.TextDim = DefaultTextEmbedder, DefaultTextDim
	}
	if c.TextDim <= 0 {
		return Collection{}, fmt.Errorf("collection %q: text embedder %s needs a dimension", c.Name, c.TextEmbedder)
	}
	ts := now()
	res, err := k.db.ExecContext(ctx, `INSERT INTO collections(name, text_embedder, text_dim, image_embedder, image_dim, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, c.Name, c.TextEmbedder, c.TextDim, c.ImageEmbedder, c.ImageDim, ts)
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE") {
			return Collection{}, fmt.Errorf("collection %q: %w", c.Name, ErrExists)
		}
		return Collection{}, fmt.Errorf("create collection %q: %w", c.Name, err)
	}
	c.ID, _ = res.LastInsertId()
	c.CreatedAt = time.UnixMilli(ts)
	return c, nil
}

const collectionCols = `c.id, c.name, c.text_embedder, c.text_dim, c.image_embedder, c.image_dim, c.created_at,
	(SELECT count(*) FROM documents d WHERE d.collection_id = c.id),
	(SELECT count(*) FROM units u JOIN documents d ON d.id = u.document_id WHERE d.collection_id = c.id)`

func scanCollection(row rowScanner) (Collection, error) {
	var c Collection
	var ts int64
	err := row.Scan(&c.ID, &c.Name, &c.TextEmbedder, &c.TextDim, &c.ImageEmbedder, &c.ImageDim, &ts, &c.Documents, &c.Units)
	c.CreatedAt = time.UnixMilli(ts)
	return c, err
}

// Collections lists all collections by name.
func (k *Docs) Collections(ctx context.Context) ([]Collection, error) {
	return queryAll(ctx, k.db, "list collections", scanCollection, `SELECT `+collectionCols+` FROM collections c ORDER BY c.name`)
}

// CollectionByName finds a collection.
func (k *Docs) CollectionByName(ctx context.Context, name string) (Collection, error) {
	c, err := scanCollection(k.db.QueryRowContext(ctx, `SELECT `+collectionCols+` FROM collections c WHERE c.name = ?`, name))
	return found(c, err, "collection %q", name)
}

// Collection finds a collection by id.
func (k *Docs) Collection(ctx context.Context, id int64) (Collection, error) {
	c, err := scanCollection(k.db.QueryRowContext(ctx, `SELECT `+collectionCols+` FROM collections c WHERE c.id = ?`, id))
	return found(c, err, "collection %d", id)
}

// EnsureCollection returns the named collection, creating it with default embedders if missing.
func (k *Docs) EnsureCollection(ctx context.Context, name string) (Collection, error) {
	c, err := k.CollectionByName(ctx, name)
	if errors.Is(err, ErrNotFound) {
		c, err = k.CreateCollection(ctx, Collection{Name: name})
		if errors.Is(err, ErrExists) { // created concurrently
			return k.CollectionByName(ctx, name)
		}
	}
	return c, err
}

// DeleteCollection removes a collection with its documents, units and vectors, then the blobs nothing else uses.
func (k *Docs) DeleteCollection(ctx context.Context, name string) error {
	c, err := k.CollectionByName(ctx, name)
	if err != nil {
		return err
	}
	blobs, err := k.blobsOf(ctx, "d.collection_id = ?", c.ID)
	if err != nil {
		return err
	}
	gone, err := k.deletedDocs(ctx, "d.collection_id = ?", c.ID)
	if err != nil {
		return fmt.Errorf("delete collection %q: %w", name, err)
	}
	if _, err := k.db.ExecContext(ctx, `DELETE FROM collections WHERE id = ?`, c.ID); err != nil {
		return fmt.Errorf("delete collection %q: %w", name, err)
	}
	k.fireDeleted(ctx, gone)
	_, err = k.removeUnreferenced(ctx, blobs)
	return err
}
