package kb

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"testing"
	"unicode/utf8"
)

// cjkGLOB is the pattern migration 11 uses for rows written before it (and migration 6 before that).
func cjkGLOB(t *testing.T) string {
	m := regexp.MustCompile(`GLOB ('[^']*')`).FindStringSubmatch(migrations[10])
	if m == nil {
		t.Fatal("no GLOB in migration 11")
	}
	return m[1]
}

// TestHasCJKMatchesGLOB checks hasCJK against SQLite's GLOB itself, on every range's edges, on real text, and on
// random and invalid UTF-8 (which SQLite decodes its own lenient way).
func TestHasCJKMatchesGLOB(t *testing.T) {
	k := openTest(t)
	stmt, err := k.db.Prepare(`SELECT ? GLOB ` + cjkGLOB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	texts := []string{"", "plain English", "Café résumé – “quotes” • ﬁ", "视觉文档问答", "mixed 中 text", "カタカナ", "한국어",
		"々", "〇", "nul\x00中文", "\xe4\xb8", "\xe4\xb8\xad", "\xc1\x84\x80\x80", "\xed\xa0\x80", "\xef\xbf\xbe", "\xf8\x88\x80\x80\x80",
		"\xe4\xb8\xad\x80", "\x80\x80\x80", "\xc0\x80", "\xff\xfe"}
	for _, r := range cjkRanges {
		for _, c := range []rune{rune(r[0]) - 1, rune(r[0]), rune(r[1]), rune(r[1]) + 1} {
			texts = append(texts, "x"+string(c)+"y", string(c))
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			switch rng.IntN(4) {
			case 0:
				b[i] = byte('a' + rng.IntN(26))
			case 1:
				b[i] = byte(0x80 + rng.IntN(0x40)) // continuation
			default:
				b[i] = byte(0xC0 + rng.IntN(0x40)) // lead bytes, valid or not
			}
		}
		texts = append(texts, string(b))
		texts = append(texts, string(utf8.AppendRune(nil, rune(rng.IntN(0x30000)))))
	}
	for _, s := range texts {
		var want bool
		if err := stmt.QueryRow(s).Scan(&want); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got := hasCJK(s); got != want {
			t.Errorf("hasCJK(%q) = %v, GLOB says %v", s, got, want)
		}
	}
}

// TestCJKColumnFollowsText checks that the bigram index follows a unit's text as it turns CJK, English, CJK
// again, and is deleted, and that the database stays consistent.
func TestCJKColumnFollowsText(t *testing.T) {
	ctx := context.Background()
	k, c := openWithCollection(t)
	d, _, _ := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "x", Name: "x.pdf", Kind: "pdf"})
	count := func(q string) int {
		var n int
		if err := k.db.QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	for i, c := range []struct {
		text      string
		cjk, hits int
	}{
		{"检索增强的视觉文档问答", 1, 1},
		{"retrieval for visual documents", 0, 0},
		{"又一次检索增强 with English", 1, 1},
	} {
		if _, err := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: 1, Kind: UnitPage, Text: c.text}); err != nil {
			t.Fatal(err)
		}
		if n := count(`SELECT cjk FROM units WHERE ordinal = 1`); n != c.cjk {
			t.Errorf("step %d: cjk = %d, want %d", i, n, c.cjk)
		}
		if n := count(`SELECT count(*) FROM units_fts_bigram WHERE units_fts_bigram MATCH '"检索" AND "增强"'`); n != c.hits {
			t.Errorf("step %d: bigram hits %d, want %d", i, n, c.hits)
		}
		if p, err := k.Integrity(ctx); err != nil || len(p) > 0 {
			t.Fatalf("step %d: integrity: %v %v", i, p, err)
		}
	}
	if err := k.Docs.DeleteDocument(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT count(*) FROM units_fts_bigram WHERE units_fts_bigram MATCH '"检索" AND "增强"'`); n != 0 {
		t.Errorf("bigram hits after delete: %d", n)
	}
	if p, err := k.Integrity(ctx); err != nil || len(p) > 0 {
		t.Fatalf("integrity after delete: %v %v", p, err)
	}
}

// TestMigrationsKeepCJKPagesFindable migrates a version-10 database holding CJK and English pages: the column is
// set from the text (11), the bigram index that replaces the trigram index finds the CJK page (12), and the database
// is consistent.
func TestMigrationsKeepCJKPagesFindable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "v10.db")
	db, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	db.Exec("PRAGMA foreign_keys = OFF")
	for i := range 10 {
		if _, err := db.Exec(migrations[i]); err != nil {
			t.Fatalf("migration %d: %v", i+1, err)
		}
	}
	if _, err := db.Exec(`PRAGMA user_version = 10;
		INSERT INTO collections(name, text_embedder, text_dim, created_at) VALUES ('old', 'builtin/glove-100d', 100, 1);
		INSERT INTO documents(collection_id, sha256, name, kind, created_at, updated_at) VALUES (1, 'abc', 'a.pdf', 'pdf', 1, 1);
		INSERT INTO units(document_id, ordinal, kind, text) VALUES (1, 1, 'page', '视觉文档问答系统');
		INSERT INTO units(document_id, ordinal, kind, text) VALUES (1, 2, 'page', 'English only, with “quotes”');`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	k, err := Open(ctx, path, filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	rows, err := k.db.Query(`SELECT ordinal, cjk FROM units ORDER BY ordinal`)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for rows.Next() {
		var o, c int
		rows.Scan(&o, &c)
		got = append(got, c)
	}
	rows.Close()
	if len(got) != 2 || got[0] != 1 || got[1] != 0 {
		t.Errorf("cjk after migration = %v, want [1 0]", got)
	}
	var n int
	if err := k.db.QueryRow(`SELECT count(*) FROM units_fts_bigram WHERE units_fts_bigram MATCH '"文档" AND "问答"'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("bigram match after migration: n=%d err=%v", n, err)
	}
	if p, err := k.Integrity(ctx); err != nil || len(p) > 0 {
		t.Errorf("integrity after migration: %v %v", p, err)
	}
}
