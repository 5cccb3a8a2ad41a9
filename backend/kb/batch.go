package kb

import (
	"context"
	"database/sql"
	"iter"
	"math/bits"
)

// execer is what the write helpers need: the pool for one-off writes, or a transaction for a Batch.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Batch writes many rows in one transaction. Ingest stores pages and their embeddings through it: one commit
// (one FTS5 sync, one WAL frame flush) per batch instead of four or five per page.
type Batch struct {
	tx cachedTx
}

// Batch runs fn in one write transaction; nothing fn wrote is kept if it returns an error.
func (k *Content) Batch(ctx context.Context, fn func(b *Batch) error) error {
	return k.tx(ctx, func(tx *sql.Tx) error { return fn(&Batch{tx: cachedTx{k: k.store, tx: tx}}) })
}

// PutUnit is KB.PutUnit inside the batch.
func (b *Batch) PutUnit(ctx context.Context, u Unit) (int64, error) {
	ids, err := putUnits(ctx, b.tx, []Unit{u})
	if err != nil {
		return 0, err
	}
	return ids[0], nil
}

// PutUnits is PutUnit for each unit, in order, in a few statements; it returns their ids in the same order.
func (b *Batch) PutUnits(ctx context.Context, units []Unit) ([]int64, error) {
	return putUnits(ctx, b.tx, units)
}

// PutVector is KB.PutVector inside the batch.
func (b *Batch) PutVector(ctx context.Context, unitID int64, embedder, modality string, v []float32) error {
	return putVector(ctx, b.tx, unitID, embedder, modality, v)
}

// PutPassages is KB.PutPassages inside the batch.
func (b *Batch) PutPassages(ctx context.Context, unitID int64, embedder string, ps []Passage) error {
	return putPassages(ctx, b.tx, unitID, embedder, ps)
}

// MarkStep is KB.MarkStep inside the batch.
func (b *Batch) MarkStep(ctx context.Context, documentID int64, s Step) error {
	return markSteps(ctx, b.tx, documentID, []Step{s})
}

// MarkSteps is MarkStep for each step, in order, in a few statements.
func (b *Batch) MarkSteps(ctx context.Context, documentID int64, steps []Step) error {
	return markSteps(ctx, b.tx, documentID, steps)
}

// rowChunks splits n rows into consecutive runs, each as long as possible but a power of two no longer than most:
// a multi-row statement is prepared once per length and cached (stmtCache), so lengths come from a small set
// whatever the batches' sizes. It yields each run's start and length.
func rowChunks(n, most int) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for start := 0; start < n; {
			size := 1 << (bits.Len(uint(min(n-start, most))) - 1)
			if !yield(start, size) {
				return
			}
			start += size
		}
	}
}
