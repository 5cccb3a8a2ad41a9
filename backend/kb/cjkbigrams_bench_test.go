package kb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"proofglass/backend/fixture"
)

// trigramSchema turns a knowledge base back into the CJK indexing of schema 11 (a trigram index over the CJK units,
// through a view), the baseline of BenchmarkCJKIndexes.
const trigramSchema = `DROP TRIGGER units_ai;
DROP TRIGGER units_ad;
DROP TRIGGER units_au;
CREATE VIEW units_cjk(id, text) AS SELECT id, CASE WHEN units.cjk THEN units.text ELSE '' END FROM units;
CREATE VIRTUAL TABLE units_fts_cjk USING fts5(text, content='units_cjk', content_rowid='id', tokenize='trigram');
CREATE TRIGGER units_ai AFTER INSERT ON units BEGIN
  INSERT INTO units_fts(rowid, text) VALUES (new.id, new.text);
  INSERT INTO units_fts_cjk(rowid, text) VALUES (new.id, CASE WHEN new.cjk THEN new.text ELSE '' END);
END;`

// BenchmarkCJKIndexes measures the bigram index against the trigram index it replaced (schema 11), on libraries of
// Chinese pages made from the sentences of the shared CJK PDFs: the time to write the pages, each index's size, and
// the time per question (the trigram index matched a question's character triples).
//
//	go test -run X -bench CJKIndexes -benchtime 1x ./backend/kb/
func BenchmarkCJKIndexes(b *testing.B) {
	fixture.Command(b, "pdftotext")
	var sentences []string
	for _, rel := range []string{"pdf/cjk/zhlipsum.pdf", "pdf/cjk/zhnumber.pdf"} {
		out, err := exec.Command("pdftotext", "-enc", "UTF-8", fixture.Path(b, rel), "-").Output()
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range strings.FieldsFunc(string(out), func(r rune) bool { return strings.ContainsRune("。，；！？\n", r) }) {
			if s = strings.TrimSpace(s); utf8.RuneCountInString(s) >= 6 && hasCJK(s) {
				sentences = append(sentences, s)
			}
		}
	}
	pages := 5000
	if testing.Short() {
		pages = 1000
	}
	r := rand.New(rand.NewPCG(7, 11))
	texts := make([]string, pages)
	for i := range texts {
		var sb strings.Builder
		for sb.Len() < 2400 { // about 800 characters, a dense page of Chinese
			sb.WriteString(sentences[r.IntN(len(sentences))])
			sb.WriteString("。")
		}
		texts[i] = sb.String()
	}
	write := func(trigram bool) (*KB, time.Duration) {
		ctx := context.Background()
		dir := b.TempDir()
		k, err := Open(ctx, filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { k.Close() })
		if trigram {
			if _, err := k.db.Exec(trigramSchema); err != nil {
				b.Fatal(err)
			}
		}
		c, _ := k.Docs.CreateCollection(ctx, Collection{Name: "zh"})
		start := time.Now()
		for d := 0; d*100 < pages; d++ {
			doc, _, err := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: fmt.Sprint(d), Name: fmt.Sprintf("d%d.pdf", d), Kind: "pdf", Pages: 100})
			if err != nil {
				b.Fatal(err)
			}
			units := make([]Unit, 0, 100)
			for p := 0; p < 100; p++ {
				units = append(units, Unit{DocumentID: doc.ID, Ordinal: p + 1, Kind: UnitPage, Text: texts[d*100+p]})
			}
			if err := k.Content.Batch(ctx, func(bt *Batch) error { _, err := bt.PutUnits(ctx, units); return err }); err != nil {
				b.Fatal(err)
			}
		}
		return k, time.Since(start)
	}
	var bi, tri *KB
	for range b.N {
		var biTime, triTime time.Duration
		tri, triTime = write(true)
		bi, biTime = write(false)
		b.Logf("%d pages written in %v with the bigram index, %v with the trigram index: ×%.2f", pages,
			biTime.Round(time.Millisecond), triTime.Round(time.Millisecond), float64(biTime)/float64(triTime))
	}
	ctx := context.Background()
	size := func(k *KB, name string) float64 {
		var n int64
		if err := k.db.QueryRow(`SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name LIKE ? || '%'`, name).Scan(&n); err != nil {
			b.Fatalf("dbstat: %v", err)
		}
		return float64(n) / 1e6
	}
	b.Logf("index size: bigram %.1f MB, trigram %.1f MB", size(bi, "units_fts_bigram"), size(tri, "units_fts_cjk"))
	// Questions: six characters from the middle of a sentence.
	qr := rand.New(rand.NewPCG(5, 3))
	var bigramTime, trigramTime time.Duration
	const questions = 200
	sc := Scope{Collections: map[int64]bool{1: true}}
	for range questions {
		rs := []rune(sentences[qr.IntN(len(sentences))])
		part := string(rs[len(rs)/4 : len(rs)/4+min(6, len(rs)-len(rs)/4)])
		var bq, tq []string
		CJKBigrams(part, func(g string) { bq = append(bq, `"`+g+`"`) })
		for i := 0; i+3 <= utf8.RuneCountInString(part); i++ {
			tq = append(tq, `"`+string([]rune(part)[i:i+3])+`"`)
		}
		if len(tq) == 0 || len(bq) == 0 {
			continue
		}
		start := time.Now()
		if _, err := bi.Search.RankFTSBigram(ctx, strings.Join(bq, " OR "), sc, 50); err != nil {
			b.Fatal(err)
		}
		bigramTime += time.Since(start)
		start = time.Now()
		where, args := sc.where()
		if _, err := tri.ranked(ctx, `SELECT units_fts_cjk.rowid, -bm25(units_fts_cjk) FROM units_fts_cjk
			JOIN units u ON u.id = units_fts_cjk.rowid JOIN documents d ON d.id = u.document_id
			WHERE units_fts_cjk MATCH ? AND `+where+` ORDER BY bm25(units_fts_cjk) LIMIT ?`,
			append(append([]any{strings.Join(tq, " OR ")}, args...), 50)...); err != nil {
			b.Fatal(err)
		}
		trigramTime += time.Since(start)
	}
	b.Logf("per question (depth 50): bigram %v, trigram %v: ×%.2f", (bigramTime / questions).Round(time.Microsecond),
		(trigramTime / questions).Round(time.Microsecond), float64(bigramTime)/float64(trigramTime))
}
