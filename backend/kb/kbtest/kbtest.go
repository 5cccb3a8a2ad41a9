// Package kbtest opens knowledge bases for tests outside kb and writes, reads and counts the rows and states that kb's methods never produce or expose.
package kbtest

import (
	"cmp"
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"proofglass/backend/kb"
)

// This is the one place outside package kb's own files where tests' SQL on the knowledge base's tables lives, so a
// schema change stops at kb/.

// Open opens a fresh knowledge base in a temporary directory; it is closed when the test ends.
func Open(t testing.TB) *kb.KB {
	t.Helper()
	dir := t.TempDir()
	k, err := kb.Open(context.Background(), filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// openMaxIdle is kb.Open's idle time before a pooled connection is closed.
const openMaxIdle = 30 * time.Second

// CloseIdleConnectionsAfter makes k close a pooled connection once it has been idle for d (kb.Open's 30 s is too
// long for a test to wait) until the test ends.
func CloseIdleConnectionsAfter(t testing.TB, k *kb.KB, d time.Duration) {
	k.DB().SetConnMaxIdleTime(d)
	t.Cleanup(func() { k.DB().SetConnMaxIdleTime(openMaxIdle) })
}

// exec runs one statement of a helper below, failing the test on an error.
func exec(t testing.TB, k *kb.KB, q string, args ...any) sql.Result {
	t.Helper()
	res, err := k.DB().ExecContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("kbtest: %s: %v", q, err)
	}
	return res
}

// count runs a query for one count.
func count(t testing.TB, k *kb.KB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := k.DB().QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("kbtest: %s: %v", q, err)
	}
	return n
}

// tables are the knowledge base's tables CountRows counts.
var tables = []string{"collections", "documents", "units", "vectors", "passages", "frames", "ingest_steps",
	"document_facets", "document_deletions", "blob_deletions", "runs", "run_blobs", "unit_changes", "conversations",
	"messages", "run_events", "graph_nodes", "document_links"}

// CountRows counts the rows of one of the knowledge base's tables.
func CountRows(t testing.TB, k *kb.KB, table string) int {
	t.Helper()
	if !slices.Contains(tables, table) {
		t.Fatalf("kbtest: CountRows does not count table %q", table)
	}
	return count(t, k, `SELECT count(*) FROM `+table)
}

// Embeddings selects the unit vectors or passages a count covers; a zero field matches all.
type Embeddings struct {
	Embedder string
	Modality string // vectors only: passages are text
	Dim      int
	Document int64 // of the units of this document
}

func (f Embeddings) where() (string, []any) {
	cond, args := "1", []any{}
	if f.Embedder != "" {
		cond, args = cond+" AND x.embedder = ?", append(args, f.Embedder)
	}
	if f.Modality != "" {
		cond, args = cond+" AND x.modality = ?", append(args, f.Modality)
	}
	if f.Dim != 0 {
		cond, args = cond+" AND x.dim = ?", append(args, f.Dim)
	}
	if f.Document != 0 {
		cond, args = cond+" AND x.unit_id IN (SELECT id FROM units WHERE document_id = ?)", append(args, f.Document)
	}
	return cond, args
}

// CountVectors counts the unit vectors f selects.
func CountVectors(t testing.TB, k *kb.KB, f Embeddings) int {
	t.Helper()
	cond, args := f.where()
	return count(t, k, `SELECT count(*) FROM vectors x WHERE `+cond, args...)
}

// CountPassages counts the passages f selects.
func CountPassages(t testing.TB, k *kb.KB, f Embeddings) int {
	t.Helper()
	if f.Modality != "" {
		t.Fatal("kbtest: passages have no modality")
	}
	cond, args := f.where()
	return count(t, k, `SELECT count(*) FROM passages x WHERE `+cond, args...)
}

// UnitsWithPassages counts the units that have at least one passage.
func UnitsWithPassages(t testing.TB, k *kb.KB) int {
	t.Helper()
	return count(t, k, `SELECT count(DISTINCT unit_id) FROM passages`)
}

// DropPassages removes every passage, leaving the unit vectors: a knowledge base written before passages existed.
func DropPassages(t testing.TB, k *kb.KB) {
	t.Helper()
	exec(t, k, `DELETE FROM passages`)
}

// DropVectorsWithoutPassages removes the vectors of every unit that has no passage, leaving a knowledge base in
// which every text vector has passages.
func DropVectorsWithoutPassages(t testing.TB, k *kb.KB) {
	t.Helper()
	exec(t, k, `DELETE FROM vectors WHERE unit_id NOT IN (SELECT unit_id FROM passages)`)
}

// DeleteUnit removes one unit, and by cascade its vectors, passages and frames, which no kb method does short of
// deleting its document.
func DeleteUnit(t testing.TB, k *kb.KB, id int64) {
	t.Helper()
	if n, _ := exec(t, k, `DELETE FROM units WHERE id = ?`, id).RowsAffected(); n != 1 {
		t.Fatalf("kbtest: no unit %d to delete", id)
	}
}

// ForgetSteps removes a document's recorded ingest steps (every stage) at the given ordinals, as if they had never
// run.
func ForgetSteps(t testing.TB, k *kb.KB, documentID int64, ordinals ...int) {
	t.Helper()
	for _, o := range ordinals {
		exec(t, k, `DELETE FROM ingest_steps WHERE document_id = ? AND ordinal = ?`, documentID, o)
	}
}

// RawWords is a unit's word boxes exactly as stored (units.words): the binary form, or JSON from earlier versions.
func RawWords(t testing.TB, k *kb.KB, unitID int64) []byte {
	t.Helper()
	var b []byte
	if err := k.DB().QueryRowContext(context.Background(), `SELECT words FROM units WHERE id = ?`, unitID).Scan(&b); err != nil {
		t.Fatalf("kbtest: word boxes of unit %d: %v", unitID, err)
	}
	return b
}

// SetRawWords stores raw as a unit's word boxes verbatim: the JSON an earlier version wrote, or a corrupt value.
func SetRawWords(t testing.TB, k *kb.KB, unitID int64, raw string) {
	t.Helper()
	if n, _ := exec(t, k, `UPDATE units SET words = ? WHERE id = ?`, raw, unitID).RowsAffected(); n != 1 {
		t.Fatalf("kbtest: no unit %d", unitID)
	}
}

// MarkDeletionPending records a document's deletion as begun and not finished, as a process stopped mid-delete
// leaves it.
func MarkDeletionPending(t testing.TB, k *kb.KB, documentID int64) {
	t.Helper()
	exec(t, k, `INSERT INTO document_deletions(document_id) VALUES (?)`, documentID)
}

// RunHoldsBlob tells whether a stored run holds the blob hash (so the blob outlives the documents it came from).
func RunHoldsBlob(t testing.TB, k *kb.KB, runID int64, hash string) bool {
	t.Helper()
	return count(t, k, `SELECT count(*) FROM run_blobs WHERE run_id = ? AND hash = ?`, runID, hash) > 0
}

// Units lists every unit of the library (word boxes left out) in id order.
func Units(t testing.TB, k *kb.KB) []kb.Unit {
	t.Helper()
	ctx := context.Background()
	docs, err := k.Docs.Documents(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []kb.Unit
	for _, d := range docs {
		us, err := k.Content.Units(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range us {
			u.Words = nil
			out = append(out, u)
		}
	}
	slices.SortFunc(out, func(a, b kb.Unit) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// BM25 ranks units by SQLite's own bm25() over the word index (units_fts) for an FTS5 query: the reference that
// kb/lexical's in-memory ranking must equal to the last bit. Scores are negated (higher is better), ties by id.
func BM25(t testing.TB, k *kb.KB, match string, depth int) ([]int64, []float64) {
	t.Helper()
	rows, err := k.DB().Query(`SELECT rowid, -bm25(units_fts) FROM units_fts WHERE units_fts MATCH ?
		ORDER BY bm25(units_fts), rowid LIMIT ?`, match, depth)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	var scores []float64
	for rows.Next() {
		var id int64
		var s float64
		if err := rows.Scan(&id, &s); err != nil {
			t.Fatal(err)
		}
		ids, scores = append(ids, id), append(scores, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids, scores
}
