package lexical

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/libc"
	_ "modernc.org/sqlite" // the scratch tokenizer
)

// Index is the in-memory word index of one knowledge base. It serves a search only while it is current (it has
// applied every unit change SQLite logged); otherwise it brings itself up to date in the background and the caller
// uses FTS5 meanwhile, so results never depend on whether the index was ready. Safe for concurrent use.
type Index struct {
	db *sql.DB

	snap atomic.Pointer[snapshot]

	mu       sync.Mutex // guards the fields below
	running  bool
	ctx      context.Context
	cancel   context.CancelFunc
	done     chan struct{} // closed when the running refresh ends
	lastErr  error
	lastWarn time.Time
	// nextAuto is the earliest time a search may start another refresh: while documents stream in, each refresh
	// would find the index stale again at once, so a search waits refreshIdle × the last refresh's duration after
	// it (FTS5 serves meanwhile). Refresh and WaitCurrent do not wait.
	nextAuto time.Time
}

// refreshIdle bounds the CPU that searches spend refreshing during a long ingest to about 1/(1+refreshIdle) of a core.
const refreshIdle = 4

// snapshot is one immutable state: a main segment built at change seq mainSeq plus a delta segment holding the
// current text of every unit changed since (seq), whose main-segment versions are masked.
type snapshot struct {
	seq     int64
	mainSeq int64
	main    *segment
	delta   *segment
	masked  []bool // by main doc number
	// Live totals, as FTS5 keeps them: rows and tokens after every insert and delete.
	rows   int64
	tokens int64
}

// New returns an index over db (a Proofglass knowledge base at schema 10 or later). Nothing is read until the first
// Search or Refresh.
func New(db *sql.DB) *Index {
	ctx, cancel := context.WithCancel(context.Background())
	return &Index{db: db, ctx: ctx, cancel: cancel}
}

// Close stops a running refresh.
func (ix *Index) Close() {
	ix.cancel()
	ix.mu.Lock()
	done := ix.done
	ix.mu.Unlock()
	if done != nil {
		<-done
	}
}

// maxDelta is how many changed units a snapshot keeps beside its main segment before the main segment is rebuilt:
// a tenth of the library, at least 2,000 (a document or two).
var maxDelta = func(mainUnits int) int { return max(2000, mainUnits/10) }

// currentSeq is the newest logged unit change.
func currentSeq(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int64, error) {
	var seq sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT max(seq) FROM unit_changes`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("lexical: read unit change log: %w", err)
	}
	return seq.Int64, nil
}

// current returns the snapshot if it has applied every logged change; otherwise it starts a refresh in the
// background and returns nil.
func (ix *Index) current(ctx context.Context) (*snapshot, error) {
	seq, err := currentSeq(ctx, ix.db)
	if err != nil {
		return nil, err
	}
	if s := ix.snap.Load(); s != nil && s.seq == seq {
		return s, nil
	}
	ix.startRefresh(false)
	return nil, nil
}

// startRefresh begins bringing the index up to date unless a refresh is running (or, unless force, one ended too
// recently: see nextAuto).
func (ix *Index) startRefresh(force bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.running || ix.ctx.Err() != nil || (!force && time.Now().Before(ix.nextAuto)) {
		return
	}
	ix.running = true
	ix.done = make(chan struct{})
	go func(done chan struct{}) {
		defer close(done)
		t0 := time.Now()
		err := ix.refresh(ix.ctx)
		took := time.Since(t0)
		ix.mu.Lock()
		ix.running = false
		ix.nextAuto = time.Now().Add(refreshIdle * took)
		ix.lastErr = err
		warn := err != nil && ix.ctx.Err() == nil && time.Since(ix.lastWarn) > time.Minute
		if warn {
			ix.lastWarn = time.Now()
		}
		ix.mu.Unlock()
		if warn {
			slog.Warn("lexical: word index not refreshed; full-text search uses FTS5", "err", err)
		}
	}(ix.done)
}

// Refresh starts bringing the index up to date in the background (a no-op while a refresh runs).
func (ix *Index) Refresh() { ix.startRefresh(true) }

// WaitCurrent blocks until the index has applied every change logged when it is called (a benchmark's and a
// test's way to measure the warm index), or ctx ends.
func (ix *Index) WaitCurrent(ctx context.Context) error {
	for {
		seq, err := currentSeq(ctx, ix.db)
		if err != nil {
			return err
		}
		if s := ix.snap.Load(); s != nil && s.seq >= seq {
			return nil
		}
		ix.startRefresh(true)
		ix.mu.Lock()
		done, lastErr := ix.done, ix.lastErr
		ix.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-done:
		}
		ix.mu.Lock()
		lastErr = ix.lastErr
		ix.mu.Unlock()
		if lastErr != nil {
			return lastErr
		}
	}
}

// refresh builds a new snapshot: a delta over the old main segment when few units changed, else a new main segment.
func (ix *Index) refresh(ctx context.Context) error {
	old := ix.snap.Load()
	if old != nil {
		s, err := ix.withDelta(ctx, old)
		if err == nil && s != nil {
			ix.snap.Store(s)
			return nil
		}
		if err != nil {
			return err
		}
	}
	s, err := ix.build(ctx)
	if err != nil {
		return err
	}
	ix.snap.Store(s)
	return nil
}

// build reads every unit's tokens from FTS5 (fts5vocab's instance table) in one read transaction, with the change
// seq of that same state.
func (ix *Index) build(ctx context.Context) (*snapshot, error) {
	t0 := time.Now()
	conn, err := ix.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("lexical: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.lexical_instances
		USING fts5vocab(main, units_fts, instance)`); err != nil {
		return nil, fmt.Errorf("lexical: open the word index's token table: %w", err)
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("lexical: %w", err)
	}
	defer tx.Rollback()
	seq, err := currentSeq(ctx, tx)
	if err != nil {
		return nil, err
	}
	units, docs, err := unitList(ctx, tx, `SELECT id, document_id FROM units ORDER BY id`)
	if err != nil {
		return nil, err
	}
	b, err := newBuilder(units, docs)
	if err != nil {
		return nil, err
	}
	if err := scanInstances(ctx, tx, `SELECT term, doc FROM temp.lexical_instances`, b); err != nil {
		return nil, err
	}
	seg := b.finish()
	slog.Debug("lexical: word index built", "units", len(units), "terms", len(seg.terms), "postings", len(seg.post),
		"took", time.Since(t0))
	return &snapshot{seq: seq, mainSeq: seq, main: seg, delta: emptySegment(), masked: make([]bool, len(units)),
		rows: int64(len(units)), tokens: seg.total}, nil
}

func emptySegment() *segment {
	return &segment{terms: map[string]uint32{}, off: []uint32{0}}
}

func unitList(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) (units, docs []int64, err error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("lexical: list units: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var u, d int64
		if err := rows.Scan(&u, &d); err != nil {
			return nil, nil, fmt.Errorf("lexical: list units: %w", err)
		}
		units, docs = append(units, u), append(docs, d)
	}
	return units, docs, rows.Err()
}

func scanInstances(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, b *builder) error {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return fmt.Errorf("lexical: read tokens: %w", err)
	}
	defer rows.Close()
	var term sql.RawBytes
	var unit int64
	for rows.Next() {
		if err := rows.Scan(&term, &unit); err != nil {
			return fmt.Errorf("lexical: read tokens: %w", err)
		}
		if err := b.add(term, unit); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("lexical: read tokens: %w", err)
	}
	return nil
}

// withDelta returns old with a delta segment over every unit changed since old's main segment was built, or nil
// when too many changed (the caller rebuilds the main segment).
func (ix *Index) withDelta(ctx context.Context, old *snapshot) (*snapshot, error) {
	tx, err := ix.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("lexical: %w", err)
	}
	defer tx.Rollback()
	seq, err := currentSeq(ctx, tx)
	if err != nil {
		return nil, err
	}
	var minSeq sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT min(seq) FROM unit_changes`).Scan(&minSeq); err != nil {
		return nil, fmt.Errorf("lexical: read unit change log: %w", err)
	}
	if minSeq.Valid && minSeq.Int64 > old.mainSeq+1 {
		return nil, nil // the log was trimmed past this index: rebuild
	}
	var changed []int64
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT unit_id FROM unit_changes WHERE seq > ? ORDER BY unit_id`, old.mainSeq)
	if err != nil {
		return nil, fmt.Errorf("lexical: read unit change log: %w", err)
	}
	for rows.Next() {
		var u int64
		if err := rows.Scan(&u); err != nil {
			rows.Close()
			return nil, fmt.Errorf("lexical: read unit change log: %w", err)
		}
		changed = append(changed, u)
		if len(changed) > maxDelta(len(old.main.units)) {
			rows.Close()
			return nil, nil
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("lexical: read unit change log: %w", err)
	}
	delta, err := tokenizeUnits(ctx, tx, changed)
	if err != nil {
		return nil, err
	}
	s := &snapshot{seq: seq, mainSeq: old.mainSeq, main: old.main, delta: delta,
		masked: make([]bool, len(old.main.units))}
	s.rows, s.tokens = int64(len(old.main.units)), old.main.total
	for _, u := range changed {
		if d, ok := old.main.find(u); ok {
			s.masked[d] = true
			s.rows--
			s.tokens -= int64(old.main.lens[d])
		}
	}
	s.rows += int64(len(delta.units))
	s.tokens += delta.total
	return s, nil
}

// tokenizeUnits builds a segment over the given units' current text with FTS5's own tokenizer, through a scratch
// in-memory FTS5 table configured like units_fts (ids of deleted units are skipped).
func tokenizeUnits(ctx context.Context, tx *sql.Tx, ids []int64) (*segment, error) {
	if len(ids) == 0 {
		return emptySegment(), nil
	}
	scratch, err := sql.Open("sqlite", "file:lexical-scratch?mode=memory")
	if err != nil {
		return nil, fmt.Errorf("lexical: scratch tokenizer: %w", err)
	}
	defer scratch.Close()
	scratch.SetMaxOpenConns(1)
	if _, err := scratch.ExecContext(ctx, `CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61 remove_diacritics 2');
		CREATE VIRTUAL TABLE ti USING fts5vocab(t, instance);`); err != nil {
		return nil, fmt.Errorf("lexical: scratch tokenizer: %w", err)
	}
	stx, err := scratch.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("lexical: scratch tokenizer: %w", err)
	}
	defer stx.Rollback()
	ins, err := stx.PrepareContext(ctx, `INSERT INTO t(rowid, text) VALUES (?, ?)`)
	if err != nil {
		return nil, fmt.Errorf("lexical: scratch tokenizer: %w", err)
	}
	var units, docs []int64
	for chunk := range slices.Chunk(ids, 500) {
		q := `SELECT id, document_id, text FROM units WHERE id IN (` + strings.TrimSuffix(strings.Repeat("?,", len(chunk)), ",") + `) ORDER BY id`
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("lexical: read changed units: %w", err)
		}
		for rows.Next() {
			var u, d int64
			var text string
			if err := rows.Scan(&u, &d, &text); err != nil {
				rows.Close()
				return nil, fmt.Errorf("lexical: read changed units: %w", err)
			}
			if _, err := ins.ExecContext(ctx, u, text); err != nil {
				rows.Close()
				return nil, fmt.Errorf("lexical: tokenize unit %d: %w", u, err)
			}
			units, docs = append(units, u), append(docs, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("lexical: read changed units: %w", err)
		}
	}
	b, err := newBuilder(units, docs)
	if err != nil {
		return nil, err
	}
	if err := scanInstances(ctx, stx, `SELECT term, doc FROM ti`, b); err != nil {
		return nil, err
	}
	return b.finish(), nil
}

// BM25 parameters of FTS5's bm25().
const (
	k1 = 1.2
	b  = 0.75
)

// ErrUnsupported means a query phrase is not a single plain token this index can look up exactly (the caller
// uses FTS5).
var ErrUnsupported = errors.New("lexical: phrase needs FTS5")

// Token returns the FTS5 token a query word becomes, if the word is one token this index can reproduce exactly:
// lower-case ASCII letters and digits, porter-stemmed (stem must be FTS5's porter step).
func Token(word string, stem func(string) string) (string, bool) {
	if word == "" {
		return "", false
	}
	for i := 0; i < len(word); i++ {
		c := word[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return "", false
		}
	}
	return stem(word), true
}

// Search ranks the units whose text holds any of the tokens (each one FTS5 phrase of a single token, in query
// order; repeats count again, as in FTS5) and returns the best depth, best first, with the score FTS5's bm25()
// gives them negated. allow, when not nil, keeps only units of the documents it accepts. ok is false when the index
// is not current: the caller must use FTS5 for this search.
func (ix *Index) Search(ctx context.Context, tokens []string, depth int, allow func(documentID int64) bool) (ids []int64, scores []float64, ok bool, err error) {
	s, err := ix.current(ctx)
	if err != nil || s == nil {
		return nil, nil, false, err
	}
	ids, scores = s.search(tokens, depth, allow)
	return ids, scores, true, nil
}

// DocumentOf returns the document of a unit the index holds (a unit never changes document, and ids are never
// reused, so an older snapshot still answers rightly for the units it has); ok is false for units it does not know.
func (ix *Index) DocumentOf(unit int64) (doc int64, ok bool) {
	s := ix.snap.Load()
	if s == nil {
		return 0, false
	}
	if d, ok := s.delta.find(unit); ok {
		return s.delta.docs[d], true
	}
	if d, ok := s.main.find(unit); ok {
		return s.main.docs[d], true
	}
	return 0, false
}

// accumulator pools the per-doc score arrays.
var accumulators sync.Pool

type accumulator struct {
	main, delta []float64
	touched     []uint32 // main docs with a score
	dtouched    []uint32
}

func (s *snapshot) search(tokens []string, depth int, allow func(int64) bool) ([]int64, []float64) {
	if len(tokens) == 0 || depth <= 0 || s.rows == 0 {
		return nil, nil
	}
	acc, _ := accumulators.Get().(*accumulator)
	if acc == nil || len(acc.main) < len(s.main.units) || len(acc.delta) < len(s.delta.units) {
		acc = &accumulator{main: make([]float64, len(s.main.units)), delta: make([]float64, len(s.delta.units)+64)}
	}
	defer func() {
		for _, d := range acc.touched {
			acc.main[d] = 0
		}
		for _, d := range acc.dtouched {
			acc.delta[d] = 0
		}
		acc.touched, acc.dtouched = acc.touched[:0], acc.dtouched[:0]
		accumulators.Put(acc)
	}()
	avgdl := float64(s.tokens) / float64(s.rows)
	nRow := float64(s.rows)
	for _, tok := range tokens {
		mp, mtf := s.main.postings(tok)
		dp, dtf := s.delta.postings(tok)
		hits := len(dp)
		for _, d := range mp {
			if !s.masked[d] {
				hits++
			}
		}
		if hits == 0 {
			continue
		}
		idf := sqliteLog((nRow - float64(hits) + 0.5) / (float64(hits) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		for i, d := range mp {
			if s.masked[d] {
				continue
			}
			if acc.main[d] == 0 {
				acc.touched = append(acc.touched, d)
			}
			acc.main[d] += bm25(idf, float64(mtf[i]), float64(s.main.lens[d]), avgdl)
		}
		for i, d := range dp {
			if acc.delta[d] == 0 {
				acc.dtouched = append(acc.dtouched, d)
			}
			acc.delta[d] += bm25(idf, float64(dtf[i]), float64(s.delta.lens[d]), avgdl)
		}
	}
	top := newTopK(depth)
	for _, d := range acc.touched {
		if allow == nil || allow(s.main.docs[d]) {
			top.push(hit{s.main.units[d], acc.main[d]})
		}
	}
	for _, d := range acc.dtouched {
		if allow == nil || allow(s.delta.docs[d]) {
			top.push(hit{s.delta.units[d], acc.delta[d]})
		}
	}
	hs := top.sorted()
	ids, scores := make([]int64, len(hs)), make([]float64, len(hs))
	for i, h := range hs {
		ids[i], scores[i] = h.unit, h.score
	}
	return ids, scores
}

// sqliteLog is the natural logarithm SQLite's own code calls: modernc's SQLite is transpiled C, whose log (musl's
// on Linux) can differ from math.Log in the last bit, and scores must agree with FTS5's exactly. Its argument here
// is always a positive normal number, so the C library never needs its thread state.
func sqliteLog(x float64) float64 { return libc.Xlog(nil, x) }

// bm25 is one phrase's term of FTS5's sum, computed in the same order of operations so the doubles agree.
func bm25(idf, f, d, avgdl float64) float64 {
	return idf * ((f * (k1 + 1.0)) / (f + k1*(1-b+b*d/avgdl)))
}
