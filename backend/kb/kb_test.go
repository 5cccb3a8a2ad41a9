package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func openTest(t testing.TB) *KB {
	t.Helper()
	dir := t.TempDir()
	k, err := Open(context.Background(), filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// openWithCollection opens a test knowledge base with one collection, "c".
func openWithCollection(t testing.TB) (*KB, Collection) {
	t.Helper()
	k := openTest(t)
	c, err := k.Docs.CreateCollection(context.Background(), Collection{Name: "c"})
	if err != nil {
		t.Fatal(err)
	}
	return k, c
}

// openWithPage opens a test knowledge base holding one PDF document, a.pdf in collection "c" (as EnsureCollection
// makes it), of one page with text.
func openWithPage(t testing.TB, text string) (*KB, Collection, Document, int64) {
	t.Helper()
	ctx := context.Background()
	k := openTest(t)
	c, err := k.Docs.EnsureCollection(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "s", Name: "a.pdf", Kind: "pdf"})
	if err != nil {
		t.Fatal(err)
	}
	return k, c, d, addUnit(t, k, Unit{DocumentID: d.ID, Ordinal: 1, Kind: UnitPage, Text: text})
}

// addPages stores pages from to last (ordinals) of a document, each holding text, and returns their ids.
func addPages(t testing.TB, k *KB, documentID int64, from, last int, text string) []int64 {
	t.Helper()
	var ids []int64
	for o := from; o <= last; o++ {
		ids = append(ids, addUnit(t, k, Unit{DocumentID: documentID, Ordinal: o, Kind: UnitPage, Text: text}))
	}
	return ids
}

// addDoc stores a document and returns its id.
func addDoc(t testing.TB, k *KB, d Document) int64 {
	t.Helper()
	got, _, err := k.Docs.AddDocument(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return got.ID
}

// addUnit stores a unit and returns its id.
func addUnit(t testing.TB, k *KB, u Unit) int64 {
	t.Helper()
	id, err := k.Content.PutUnit(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

var spaces = regexp.MustCompile(`\s+`)

// schemaOf returns the normalised schema of a database: every object's type, name and SQL, sorted.
func schemaOf(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT type, name, coalesce(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var typ, name, s string
		if err := rows.Scan(&typ, &name, &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, typ+" "+name+": "+strings.TrimSpace(spaces.ReplaceAllString(s, " ")))
	}
	sort.Strings(out)
	return out
}

func TestMigratedEqualsFresh(t *testing.T) {
	ctx := context.Background()
	fresh := openTest(t)

	// A database created by migration 1 alone, holding data, then opened by this build.
	dir := t.TempDir()
	path := filepath.Join(dir, "old.db")
	db, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(migrations[0] + `; PRAGMA user_version = 1;
		INSERT INTO collections(name, text_embedder, text_dim, created_at) VALUES ('old', 'builtin/glove-100d', 100, 1);
		INSERT INTO documents(collection_id, sha256, name, kind, created_at, updated_at) VALUES (1, 'abc', 'a.pdf', 'pdf', 1, 1);
		INSERT INTO units(document_id, ordinal, kind, text) VALUES (1, 1, 'page', 'kept across migrations');`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	migrated, err := Open(ctx, path, filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	defer migrated.Close()

	a, b := schemaOf(t, fresh.db), schemaOf(t, migrated.db)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("migrated schema differs from fresh:\nfresh:\n%s\nmigrated:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	for _, k := range []*KB{fresh, migrated} {
		if v, _ := k.SchemaVersionOf(ctx); v != SchemaVersion {
			t.Errorf("user_version = %d, want %d", v, SchemaVersion)
		}
	}
	var n int
	if err := migrated.db.QueryRow(`SELECT count(*) FROM units_fts WHERE units_fts MATCH 'migrations'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("FTS row across migration: n=%d err=%v", n, err)
	}
	// Migration 5 rebuilt the word index with the stemming tokenizer: the singular finds the stored plural.
	if err := migrated.db.QueryRow(`SELECT count(*) FROM units_fts WHERE units_fts MATCH 'migration'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("stemmed FTS row across migration: n=%d err=%v", n, err)
	}
}

func TestEachMigrationStep(t *testing.T) {
	// Stopping at every intermediate version and reopening must also reach the fresh schema.
	fresh := openTest(t)
	want := strings.Join(schemaOf(t, fresh.db), "\n")
	for stop := 1; stop < SchemaVersion; stop++ {
		t.Run(fmt.Sprintf("from-v%d", stop), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "db")
			db, _ := sql.Open("sqlite", DSN(path))
			// As migrate does: one connection, foreign keys off (a table rebuild must not rewrite its children).
			db.SetMaxOpenConns(1)
			db.Exec("PRAGMA foreign_keys = OFF")
			for i := 0; i < stop; i++ {
				if _, err := db.Exec(migrations[i]); err != nil {
					t.Fatal(err)
				}
			}
			db.Exec(fmt.Sprintf("PRAGMA user_version = %d", stop))
			db.Close()
			k, err := Open(context.Background(), path, filepath.Join(dir, "b"))
			if err != nil {
				t.Fatal(err)
			}
			defer k.Close()
			if got := strings.Join(schemaOf(t, k.db), "\n"); got != want {
				t.Errorf("schema after migrating from v%d differs from fresh", stop)
			}
		})
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	db, _ := sql.Open("sqlite", DSN(path))
	db.Exec(fmt.Sprintf("CREATE TABLE x(a); PRAGMA user_version = %d", SchemaVersion+1))
	db.Close()
	_, err := Open(context.Background(), path, filepath.Join(dir, "b"))
	if err == nil || !strings.Contains(err.Error(), "newer than this Proofglass") {
		t.Fatalf("want a newer-schema error, got %v", err)
	}
}

func TestPragmas(t *testing.T) {
	k := openTest(t)
	var mode string
	var fk, busy int
	k.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode)
	k.db.QueryRow(`PRAGMA foreign_keys`).Scan(&fk)
	k.db.QueryRow(`PRAGMA busy_timeout`).Scan(&busy)
	if mode != "wal" || fk != 1 || busy < 1000 {
		t.Fatalf("journal_mode=%s foreign_keys=%d busy_timeout=%d", mode, fk, busy)
	}
}

func TestConstraints(t *testing.T) {
	ctx := context.Background()
	k := openTest(t)
	c, err := k.Docs.CreateCollection(ctx, Collection{Name: "papers"})
	if err != nil {
		t.Fatal(err)
	}
	if c.TextEmbedder != DefaultTextEmbedder || c.TextDim != DefaultTextDim {
		t.Errorf("default embedder not pinned: %+v", c)
	}
	doc, existed, err := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "s1", Name: "a.pdf", Kind: "pdf"})
	if err != nil || existed {
		t.Fatal(err, existed)
	}
	u1, err := k.Content.PutUnit(ctx, Unit{DocumentID: doc.ID, Ordinal: 1, Kind: UnitPage, Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}

	cases := map[string]func() error{
		"duplicate collection": func() error {
			_, err := k.Docs.CreateCollection(ctx, Collection{Name: "papers"})
			if !errors.Is(err, ErrExists) {
				return fmt.Errorf("want ErrExists, got %v", err)
			}
			return nil
		},
		"same sha256 in collection is deduplicated": func() error {
			d, existed, err := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "s1", Name: "copy.pdf", Kind: "pdf"})
			if err != nil || !existed || d.ID != doc.ID {
				return fmt.Errorf("got %v existed=%v id=%d", err, existed, d.ID)
			}
			return nil
		},
		"same sha256 in another collection is allowed": func() error {
			c2, err := k.Docs.CreateCollection(ctx, Collection{Name: "other"})
			if err != nil {
				return err
			}
			_, existed, err := k.Docs.AddDocument(ctx, Document{CollectionID: c2.ID, SHA256: "s1", Name: "a.pdf", Kind: "pdf"})
			if err != nil || existed {
				return fmt.Errorf("got %v existed=%v", err, existed)
			}
			return nil
		},
		"bad kind": func() error {
			_, _, err := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "s2", Name: "x", Kind: "docx"})
			if err == nil {
				return errors.New("kind docx accepted")
			}
			return nil
		},
		"ordinal is 1-based": func() error {
			if _, err := k.Content.PutUnit(ctx, Unit{DocumentID: doc.ID, Ordinal: 0, Kind: UnitPage}); err == nil {
				return errors.New("ordinal 0 accepted")
			}
			return nil
		},
		"unit of missing document": func() error {
			if _, err := k.Content.PutUnit(ctx, Unit{DocumentID: 999, Ordinal: 1, Kind: UnitPage}); err == nil {
				return errors.New("foreign key not enforced")
			}
			return nil
		},
		"vector blob length must match dim": func() error {
			_, err := k.db.Exec(`INSERT INTO vectors(unit_id, embedder, modality, dim, vec) VALUES (?, 'e', 'text', 3, x'00')`, u1)
			if err == nil {
				return errors.New("short vector accepted")
			}
			return nil
		},
		"replacing a unit keeps its id": func() error {
			id, err := k.Content.PutUnit(ctx, Unit{DocumentID: doc.ID, Ordinal: 1, Kind: UnitPage, Text: "hello again"})
			if err != nil || id != u1 {
				return fmt.Errorf("id %d want %d (%v)", id, u1, err)
			}
			return nil
		},
	}
	for name, fn := range cases {
		t.Run(name, func(t *testing.T) {
			if err := fn(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestFTSWordsAndCJK(t *testing.T) {
	ctx := context.Background()
	k, c := openWithCollection(t)
	d, _, _ := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "x", Name: "x.pdf", Kind: "pdf"})
	k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 1, Kind: UnitPage, Text: "The Café served résumé reviews"})
	k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 2, Kind: UnitPage, Text: "视觉文档问答系统的检索增强"})
	count := func(q string) int {
		var n int
		if err := k.db.QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	if n := count(`SELECT count(*) FROM units_fts WHERE units_fts MATCH 'cafe'`); n != 1 {
		t.Errorf("diacritic-folded match: %d", n)
	}
	// The word index stems: an inflected query finds the other form, and an unrelated word sharing letters does not.
	if n := count(`SELECT count(*) FROM units_fts WHERE units_fts MATCH 'review'`); n != 1 {
		t.Errorf("stemmed match review~reviews: %d", n)
	}
	if n := count(`SELECT count(*) FROM units_fts WHERE units_fts MATCH 'serving'`); n != 1 {
		t.Errorf("stemmed match serving~served: %d", n)
	}
	if n := count(`SELECT count(*) FROM units_fts WHERE units_fts MATCH 'server'`); n != 0 {
		t.Errorf("server matched served: %d", n)
	}
	if n := count(`SELECT count(*) FROM units_fts_bigram WHERE units_fts_bigram MATCH '"文档" AND "问答"'`); n != 1 {
		t.Errorf("CJK bigram match: %d", n)
	}
	// English pages stay out of the bigram index (the word index serves them).
	if n := count(`SELECT count(*) FROM units_fts_bigram WHERE units_fts_bigram MATCH 'served'`); n != 0 {
		t.Errorf("English text in the bigram index: %d", n)
	}
	// Updating text updates both indexes.
	k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 1, Kind: UnitPage, Text: "nothing here"})
	if n := count(`SELECT count(*) FROM units_fts WHERE units_fts MATCH 'cafe'`); n != 0 {
		t.Errorf("stale FTS row after update: %d", n)
	}
	if p, err := k.Integrity(ctx); err != nil || len(p) > 0 {
		t.Errorf("integrity: %v %v", p, err)
	}
}

func TestDeleteDocumentRemovesUnsharedBlobs(t *testing.T) {
	ctx := context.Background()
	k, c := openWithCollection(t)
	shared, _ := k.Blobs.Put([]byte("shared original"))
	own, _ := k.Blobs.Put([]byte("thumb of doc 1"))
	d1, _, _ := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "1", Name: "1.pdf", Kind: "pdf", Blob: shared})
	d2, _, _ := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "2", Name: "2.pdf", Kind: "pdf", Blob: shared})
	u, _ := k.Content.PutUnit(ctx, Unit{DocumentID: d1.ID, Ordinal: 1, Kind: UnitPage, ThumbBlob: own, Text: "alpha"})
	if err := k.Content.PutVector(ctx, u, "builtin/glove-100d", ModalityText, []float32{1, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if err := k.Docs.DeleteDocument(ctx, d1.ID); err != nil {
		t.Fatal(err)
	}
	if k.Blobs.Has(own) {
		t.Error("blob only doc 1 used is still stored")
	}
	if !k.Blobs.Has(shared) {
		t.Error("blob doc 2 still uses was removed")
	}
	var n int
	k.db.QueryRow(`SELECT count(*) FROM vectors`).Scan(&n)
	if n != 0 {
		t.Errorf("%d vectors left after delete", n)
	}
	if _, err := k.Docs.Document(ctx, d2.ID); err != nil {
		t.Error(err)
	}
	if err := k.Docs.DeleteDocument(ctx, d1.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
}

func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	k, c := openWithCollection(t)
	const writers, perWriter = 16, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				d, _, err := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: fmt.Sprintf("%d-%d", w, i), Name: "f", Kind: "pdf"})
				if err != nil {
					errs <- err
					return
				}
				if _, err := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 1, Kind: UnitPage, Text: fmt.Sprintf("writer %d doc %d", w, i)}); err != nil {
					errs <- err
					return
				}
				// All writers also race on the same sha256: exactly one row may result.
				if _, _, err := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "contended", Name: "same", Kind: "pdf"}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var docs, units, contended int
	k.db.QueryRow(`SELECT count(*) FROM documents`).Scan(&docs)
	k.db.QueryRow(`SELECT count(*) FROM units`).Scan(&units)
	k.db.QueryRow(`SELECT count(*) FROM documents WHERE sha256 = 'contended'`).Scan(&contended)
	if docs != writers*perWriter+1 || units != writers*perWriter || contended != 1 {
		t.Fatalf("docs=%d units=%d contended=%d", docs, units, contended)
	}
}

// TestCrashMidTransaction kills a child process (SIGKILL) while it holds an open write transaction with many
// uncommitted rows, then checks the database opens, passes integrity_check and holds exactly the committed state.
func TestCrashMidTransaction(t *testing.T) {
	if os.Getenv("PROOFGLASS_KB_CRASH_CHILD") != "" {
		crashChild()
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashMidTransaction$")
	cmd.Env = append(os.Environ(), "PROOFGLASS_KB_CRASH_CHILD="+dir)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	got := ""
	for !strings.Contains(got, "IN-TX") {
		n, err := stdout.Read(buf)
		if err != nil {
			t.Fatalf("child ended before signalling: %v (output %q)", err, got)
		}
		got += string(buf[:n])
	}
	time.Sleep(100 * time.Millisecond) // let it write more uncommitted pages
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	ctx := context.Background()
	k, err := Open(ctx, filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatalf("database does not open after the crash: %v", err)
	}
	defer k.Close()
	if p, err := k.Integrity(ctx); err != nil || len(p) > 0 {
		t.Fatalf("integrity after crash: %v %v", p, err)
	}
	docs, err := k.Docs.Documents(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 100 {
		t.Fatalf("committed state: %d documents, want the 100 committed before the crash", len(docs))
	}
	var units int
	k.db.QueryRow(`SELECT count(*) FROM units`).Scan(&units)
	if units != 100 {
		t.Fatalf("units = %d, want 100", units)
	}
	var fts int
	k.db.QueryRow(`SELECT count(*) FROM units_fts WHERE units_fts MATCH 'committed'`).Scan(&fts)
	if fts != 100 {
		t.Fatalf("FTS rows = %d, want 100", fts)
	}
}

func crashChild() {
	dir := os.Getenv("PROOFGLASS_KB_CRASH_CHILD")
	ctx := context.Background()
	k, err := Open(ctx, filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
	if err != nil {
		panic(err)
	}
	c, _ := k.Docs.CreateCollection(ctx, Collection{Name: "c"})
	for i := range 100 {
		d, _, err := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: fmt.Sprintf("c%d", i), Name: "f", Kind: "pdf"})
		if err != nil {
			panic(err)
		}
		k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 1, Kind: UnitPage, Text: "committed text"})
	}
	tx, err := k.db.Begin()
	if err != nil {
		panic(err)
	}
	big := strings.Repeat("uncommitted ", 2000)
	for i := 0; ; i++ {
		res, err := tx.Exec(`INSERT INTO documents(collection_id, sha256, name, kind, created_at, updated_at) VALUES (?, ?, 'g', 'pdf', 0, 0)`,
			c.ID, fmt.Sprintf("u%d", i))
		if err != nil {
			panic(err)
		}
		id, _ := res.LastInsertId()
		tx.Exec(`INSERT INTO units(document_id, ordinal, kind, text) VALUES (?, 1, 'page', ?)`, id, big)
		if i == 200 {
			fmt.Println("IN-TX")
		}
	}
}

func TestBlobStore(t *testing.T) {
	b, err := NewBlobStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h1, err := b.Put([]byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	h2, n, err := b.PutReader(strings.NewReader("hello"))
	if err != nil || h1 != h2 || n != 5 {
		t.Fatalf("same content, different hash or size: %s %s %d %v", h1, h2, n, err)
	}
	if h1 != "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" {
		t.Errorf("hash is not sha256: %s", h1)
	}
	got, err := b.Get(h1)
	if err != nil || string(got) != "hello" {
		t.Fatalf("get: %q %v", got, err)
	}
	if _, err := b.Open("../../etc/passwd"); err == nil {
		t.Error("path traversal accepted")
	}
	if _, err := b.Get(strings.Repeat("0", 64)); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing blob: %v", err)
	}
	var stored int
	b.Walk(func(string, int64, time.Time) error { stored++; return nil })
	if stored != 1 {
		t.Errorf("walk saw %d blobs", stored)
	}
	entries, _ := os.ReadDir(filepath.Join(b.Dir(), "tmp"))
	if len(entries) != 0 {
		t.Errorf("temp files left behind: %d", len(entries))
	}
}

func TestCheckBlobs(t *testing.T) {
	ctx := context.Background()
	k, c := openWithCollection(t)
	kept, _ := k.Blobs.Put([]byte("kept"))
	orphan, _ := k.Blobs.Put([]byte("orphan"))
	missing := strings.Repeat("ab", 32)
	d, _, _ := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "1", Name: "1.pdf", Kind: "pdf", Blob: kept})
	k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 1, Kind: UnitPage, ThumbBlob: missing})
	r, err := k.CheckBlobs(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Orphans) != 1 || r.Orphans[0] != orphan || len(r.Missing) != 1 || r.Missing[0] != missing {
		t.Fatalf("report %+v", r)
	}
	if r2, _ := k.CheckBlobs(ctx, time.Hour); len(r2.Orphans) != 0 {
		t.Errorf("young blob reported as orphan within the grace period")
	}
	if n, err := k.RemoveOrphans(ctx, r.Orphans); err != nil || n != 1 || k.Blobs.Has(orphan) || !k.Blobs.Has(kept) {
		t.Fatalf("remove orphans: n=%d err=%v", n, err)
	}
}

func TestRunsAndEvents(t *testing.T) {
	ctx := context.Background()
	k := openTest(t)
	conv, _ := k.History.CreateConversation(ctx, "q", 0)
	r, err := k.History.CreateRun(ctx, Run{ConversationID: conv.ID, Question: "what?", Mode: "vrag"})
	if err != nil {
		t.Fatal(err)
	}
	for i, typ := range []string{"run_started", "search", "answer", "done"} {
		if err := k.History.AppendEvent(ctx, r.ID, i, typ, []byte(fmt.Sprintf(`{"i":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.History.AppendEvent(ctx, r.ID, 1, "dup", []byte(`{}`)); err == nil {
		t.Error("duplicate seq accepted")
	}
	if err := k.History.AppendEvent(ctx, r.ID, 9, "bad", []byte(`{`)); err == nil {
		t.Error("invalid JSON accepted")
	}
	ev, _ := k.History.Events(ctx, r.ID)
	if len(ev) != 4 || ev[2].Type != "answer" || string(ev[3].Data) != `{"i":3}` {
		t.Fatalf("events %+v", ev)
	}
	k.History.PutGraphNode(ctx, r.ID, GraphNode{NodeID: "n1", Query: "a"})
	k.History.PutGraphNode(ctx, r.ID, GraphNode{NodeID: "n2", Parents: []string{"n1"}})
	nodes, _ := k.History.GraphNodes(ctx, r.ID)
	if len(nodes) != 2 || nodes[1].Parents[0] != "n1" {
		t.Fatalf("nodes %+v", nodes)
	}
	k.History.FinishRun(ctx, r.ID, "done", "42", []byte(`{"steps":3}`))
	got, _ := k.History.Run(ctx, r.ID)
	if got.Status != "done" || got.Answer != "42" || got.FinishedAt.IsZero() {
		t.Fatalf("run %+v", got)
	}
	k.History.AddMessage(ctx, Message{ConversationID: conv.ID, Role: "user", Content: "what?"})
	k.History.AddMessage(ctx, Message{ConversationID: conv.ID, Role: "assistant", Content: "42", RunID: r.ID})
	msgs, _ := k.History.Messages(ctx, conv.ID)
	if len(msgs) != 2 || msgs[1].RunID != r.ID {
		t.Fatalf("messages %+v", msgs)
	}
	// Deleting the conversation removes its runs and their events.
	k.History.DeleteConversation(ctx, conv.ID)
	if ev, _ := k.History.Events(ctx, r.ID); len(ev) != 0 {
		t.Errorf("%d events left", len(ev))
	}
}

func TestVectorsRoundTripAndDims(t *testing.T) {
	ctx := context.Background()
	k, c := openWithCollection(t)
	d, _, _ := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "1", Name: "1.pdf", Kind: "pdf"})
	u1, _ := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 1, Kind: UnitPage})
	u2, _ := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 2, Kind: UnitPage})
	k.Content.PutVector(ctx, u1, "e", ModalityText, []float32{0.5, -1, 3})
	k.Content.PutVector(ctx, u2, "e", ModalityText, []float32{1, 2}) // a stale dimension
	var got [][]float32
	err := k.Content.ScanVectors(ctx, "e", ModalityText, 3, func(id int64, v []float32) error { got = append(got, v); return nil })
	if err != nil || len(got) != 1 || got[0][2] != 3 || got[0][1] != -1 {
		t.Fatalf("scan: %v %v", got, err)
	}
}

func TestBatchIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	k, c := openWithCollection(t)
	d, _, _ := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "1", Name: "1.pdf", Kind: "pdf"})
	boom := errors.New("boom")
	err := k.Content.Batch(ctx, func(b *Batch) error {
		id, err := b.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 1, Kind: UnitPage, Text: "rolled back"})
		if err != nil {
			return err
		}
		if err := b.PutVector(ctx, id, "e", ModalityText, []float32{1}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if us, _ := k.Content.Units(ctx, d.ID); len(us) != 0 {
		t.Fatalf("a failed batch left %d units", len(us))
	}
	err = k.Content.Batch(ctx, func(b *Batch) error {
		for o := 1; o <= 3; o++ {
			id, err := b.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: o, Kind: UnitPage, Text: fmt.Sprintf("page %d kept", o)})
			if err != nil {
				return err
			}
			if err := b.PutPassages(ctx, id, "e", []Passage{{Ordinal: 0, Start: 0, End: 2, Vec: []float32{1, 0}}}); err != nil {
				return err
			}
			if err := b.MarkStep(ctx, d.ID, Step{Ordinal: o, Stage: "extract", Status: StepDone}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	us, _ := k.Content.Units(ctx, d.ID)
	steps, _ := k.Content.Steps(ctx, d.ID)
	var fts int
	k.db.QueryRow(`SELECT count(*) FROM units_fts WHERE units_fts MATCH 'kept'`).Scan(&fts)
	if len(us) != 3 || len(steps) != 3 || fts != 3 {
		t.Fatalf("units %d steps %d fts %d", len(us), len(steps), fts)
	}
}

// Batches reuse their prepared statements: the cache holds one statement per distinct query however many batches
// run, and a statement that fails (a unit of a missing document) still reports its error.
func TestBatchStatementsStayPrepared(t *testing.T) {
	ctx := context.Background()
	k, c := openWithCollection(t)
	d, _, _ := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "1", Name: "1.pdf", Kind: "pdf"})
	page := func(o int) error {
		return k.Content.Batch(ctx, func(b *Batch) error {
			id, err := b.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: o, Kind: UnitPage, Text: fmt.Sprintf("page %d", o)})
			if err != nil {
				return err
			}
			if err := b.PutPassages(ctx, id, "e", []Passage{{Ordinal: 0, Start: 0, End: 2, Vec: []float32{1, 0}}}); err != nil {
				return err
			}
			return b.MarkStep(ctx, d.ID, Step{Ordinal: o, Stage: "extract", Status: StepDone})
		})
	}
	count := func() int {
		k.stmts.mu.Lock()
		defer k.stmts.mu.Unlock()
		return len(k.stmts.stmts)
	}
	if err := page(1); err != nil {
		t.Fatal(err)
	}
	after1 := count()
	for o := 2; o <= 40; o++ {
		if err := page(o); err != nil {
			t.Fatal(err)
		}
	}
	if after1 == 0 || count() != after1 {
		t.Fatalf("cached statements: %d after one batch, %d after 40", after1, count())
	}
	if us, _ := k.Content.Units(ctx, d.ID); len(us) != 40 || us[39].Text != "page 40" {
		t.Fatalf("units %d", len(us))
	}
	err := k.Content.Batch(ctx, func(b *Batch) error {
		_, err := b.PutUnit(ctx, Unit{DocumentID: d.ID + 99, Ordinal: 1, Kind: UnitPage})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "store unit 1") {
		t.Fatalf("unit of a missing document: err = %v", err)
	}
}
