// Package kb is Proofglass's knowledge base: the SQLite store of collections, documents, units, vectors and runs, and the
// content-addressed blob store beside it.
package kb

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed schema.sql
var schemaSQL string

// SchemaVersion is the user_version of a database with every migration applied.
var SchemaVersion = len(migrations)

// ErrNotFound is returned when a looked-up row does not exist.
var ErrNotFound = errors.New("not found")

// KB is an open knowledge base: its lifecycle, checks and maintenance, and one handle per aggregate it stores. A
// consumer takes the handles it uses, so its dependency on the store shows in its signature.
type KB struct {
	*store
	Blobs   *BlobStore // the originals and thumbnails, by content hash
	Docs    *Docs      // collections and documents
	Content *Content   // what ingest stores for a document: units, frames, vectors, passages, steps
	History *History   // runs, conversations and evaluations
	Watch   *Watch     // watched folders and the files seen in them
	Facets  *Facets    // document facets and the filters over them
	Search  *Search    // the reads that search and page rendering run
}

// store is what every handle shares: the pool, the statement cache and the delete hooks.
type store struct {
	db    *sql.DB
	blobs *BlobStore
	path  string
	hooks deleteHooks
	stmts stmtCache
}

// Docs holds the collections and their documents: adding, naming, moving and deleting them (deletions also purge
// the blobs no document references any more), and each collection's embedders.
type Docs struct{ *store }

// Content holds what ingest derives from a document: its units (pages, images, frames of audio), their frames,
// vectors and passages, the ingest steps done, and what is still to embed. Batch writes it in one transaction.
type Content struct{ *store }

// History holds the record of what was asked: conversations and their messages, runs with their events and
// graph nodes, and evaluations with their items.
type History struct{ *store }

// Watch holds the watched folders and, per folder, the files last seen in it and the documents they became.
type Watch struct{ *store }

// Facets holds the facets of documents (extracted and set by the user), their values and the filters over them.
type Facets struct{ *store }

// Search holds the reads that search runs: scopes, full-text and substring ranking, dense index items, unit texts,
// and the page items that results and page renders show.
type Search struct{ *store }

func newKB(s *store) *KB {
	return &KB{store: s, Blobs: s.blobs, Docs: &Docs{s}, Content: &Content{s}, History: &History{s}, Watch: &Watch{s},
		Facets: &Facets{s}, Search: &Search{s}}
}

// DSN returns the connection string that every connection to a Proofglass database uses: WAL so readers never wait for
// the writer, a busy timeout so concurrent writers queue instead of failing, foreign keys for cascades, and
// BEGIN IMMEDIATE so a read-then-write transaction cannot deadlock on lock upgrade.
func DSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(15000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// Bounds the ANALYZE that PRAGMA optimize runs, so keeping statistics fresh costs milliseconds, not a table scan.
	q.Add("_pragma", "analysis_limit(1000)")
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// connMaxIdle is how long a pooled connection may stay idle before it is closed.
var connMaxIdle = 30 * time.Second

// Open opens (creating if needed) the knowledge base at dbPath with its blob store at blobDir, and brings the schema
// up to date.
func Open(ctx context.Context, dbPath, blobDir string) (*KB, error) {
	if err := os.MkdirAll(filepath.Dir(dbPath), 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(dbPath), err)
	}
	if err := private(dbPath); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", DSN(dbPath))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dbPath, err)
	}
	// database/sql keeps 2 idle connections by default: with more concurrent searches (a server's clients), every
	// extra one was opened, its schema parsed and its page cache filled, then closed again on return. Keep enough
	// for a busy server; each costs at most its page cache (2 MB).
	db.SetMaxIdleConns(16)
	// A connection closed while others are open keeps its database descriptor: SQLite defers closing it until no
	// connection of the process holds a lock on the file, and in WAL mode every open connection holds one. After a
	// burst of 300 clients a server kept 123 descriptors on the database for good. Closing every connection that
	// has been idle a while lets the last one release them all, so an idle process returns to none.
	db.SetConnMaxIdleTime(connMaxIdle)
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("database %s: %w", dbPath, err)
	}
	blobs, err := NewBlobStore(blobDir)
	if err != nil {
		db.Close()
		return nil, err
	}
	// SQLite's advice for long-lived connections: optimize once at open (0x10002 also analyzes tables that have
	// never been), then again periodically and before closing. Statistics steer the planner; their absence must
	// never make a query quadratic (plan_test.go checks that), but they keep the chosen indexes the best ones.
	// Bounded: it may want the write lock while another process ingests, and opening must not wait for that.
	octx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	_, err = db.ExecContext(octx, "PRAGMA optimize=0x10002")
	cancel()
	if err != nil {
		slog.Debug("kb: optimize at open", "db", dbPath, "err", err)
	}
	return newKB(&store{db: db, blobs: blobs, path: dbPath}), nil
}

// private makes the database file readable and writable by its owner only, whatever the umask: it is created so
// before SQLite opens it (SQLite gives its -wal and -shm files the database file's mode), and an existing one, with
// its -wal and -shm, is narrowed to that.
func private(dbPath string) error {
	f, err := os.OpenFile(dbPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open %s: %w", dbPath, err)
	}
	f.Close()
	for _, p := range []string{dbPath, dbPath + "-wal", dbPath + "-shm"} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm()&0o077 == 0 {
			continue
		}
		if err := os.Chmod(p, st.Mode().Perm()&0o600); err != nil {
			return fmt.Errorf("restrict %s: %w", p, err)
		}
	}
	return nil
}

// Optimize refreshes the planner's statistics where SQLite finds them stale (PRAGMA optimize, bounded by
// analysis_limit). Call it after large writes, such as an ingest batch.
func (k *KB) Optimize(ctx context.Context) error {
	if _, err := k.db.ExecContext(ctx, "PRAGMA optimize"); err != nil {
		return fmt.Errorf("optimize %s: %w", k.path, err)
	}
	return nil
}

// DB is the shared connection pool, for kb/kbtest's fixtures: everything else reads and writes through kb's
// methods (SnapshotDB for kb/lexical).
func (k *KB) DB() *sql.DB { return k.db }

// SnapshotDB is the connection pool for kb/lexical's word index, which reads FTS5's tokens and the unit change log
// as one state in read-only transactions on a connection of its own (and opens an fts5vocab table in that
// connection's temp schema); it must not write the knowledge base.
func (k *KB) SnapshotDB() *sql.DB { return k.db }

// Path is the database file.
func (k *KB) Path() string { return k.path }

// Close optimizes (as SQLite recommends before closing) and closes the database.
func (k *KB) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := k.Optimize(ctx); err != nil {
		slog.Debug("kb: optimize at close", "err", err)
	}
	k.stmts.close()
	return k.db.Close()
}

// migrate applies schema.sql to an empty database, or the missing migrations to an older one, in one transaction.
func migrate(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var version int
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if version == SchemaVersion {
		return nil
	}
	if version > SchemaVersion {
		return fmt.Errorf("schema version %d is newer than this Proofglass (%d): upgrade Proofglass", version, SchemaVersion)
	}
	// A migration may rebuild a parent table (7 does); with foreign keys on, dropping the old copy would cascade to
	// every child row. They are off for the migration only (the pragma cannot change inside a transaction) and the
	// result is checked before commit.
	if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA foreign_keys = ON")
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Re-read inside the write lock: another process may have migrated meanwhile.
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	var tables int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type='table'").Scan(&tables); err != nil {
		return err
	}
	if version == 0 && tables == 0 {
		if _, err := tx.ExecContext(ctx, schemaSQL); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	} else {
		for i := version; i < SchemaVersion; i++ {
			if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
				return fmt.Errorf("migration %d: %w", i+1, err)
			}
		}
	}
	fk, err := tx.QueryContext(ctx, "PRAGMA foreign_key_check")
	if err != nil {
		return fmt.Errorf("foreign key check: %w", err)
	}
	broken := fk.Next()
	fk.Close()
	if broken {
		return errors.New("migration left rows referring to missing rows; nothing was changed")
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

// now is the store's clock, in Unix milliseconds.
func now() int64 { return time.Now().UnixMilli() }

// tx runs fn in a write transaction.
func (k *store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := k.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}
