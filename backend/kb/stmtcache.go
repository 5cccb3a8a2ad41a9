package kb

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// stmtCache keeps the statements that batches run once per page prepared: parsing them anew for every page was
// an eighth of ingest's CPU in this process.
// maxCachedStmts bounds the cache; batches run a handful of fixed statements and multi-row inserts of a few
// lengths each (rowChunks).
const maxCachedStmts = 64

type stmtCache struct {
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

func (c *stmtCache) get(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.stmts[query]; ok {
		return s, nil
	}
	if len(c.stmts) >= maxCachedStmts {
		return nil, nil
	}
	s, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	if c.stmts == nil {
		c.stmts = map[string]*sql.Stmt{}
	}
	c.stmts[query] = s
	return s, nil
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.stmts {
		s.Close()
	}
	c.stmts = nil
}

// cachedTx runs a transaction's statements through the cache; database/sql reuses a statement already prepared on
// the transaction's connection.
type cachedTx struct {
	k  *store
	tx *sql.Tx
}

func (c cachedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, err := c.k.stmts.get(ctx, c.k.db, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return c.tx.ExecContext(ctx, query, args...)
	}
	return c.tx.StmtContext(ctx, s).ExecContext(ctx, args...)
}

func (c cachedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	s, err := c.k.stmts.get(ctx, c.k.db, query)
	if s == nil || err != nil {
		// Not cached, or sql.Row carries no error of its own making: run the query unprepared so that Scan reports it.
		return c.tx.QueryRowContext(ctx, query, args...)
	}
	return c.tx.StmtContext(ctx, s).QueryRowContext(ctx, args...)
}

func (c cachedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := c.k.stmts.get(ctx, c.k.db, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return c.tx.QueryContext(ctx, query, args...)
	}
	return c.tx.StmtContext(ctx, s).QueryContext(ctx, args...)
}
