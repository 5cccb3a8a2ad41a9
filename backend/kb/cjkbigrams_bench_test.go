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

// BenchmarkCJKIndexes measures what the bigram index costs and what it saves on a library of Chinese pages made
// from the sentences of the shared CJK PDFs: the time to write pages with and without its triggers (baseline: the
// same pages without them), its size beside the trigram index's, and the time per question of each index.
//
//	go test -run X -bench CJKIndexes -benchtime 1x ./backend/kb/
func BenchmarkCJKIndexes(b *testing.B) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		b.Skip("pdftotext (poppler-utils) not installed")
	}
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
	write := func(withBigrams bool) (*KB, time.Duration) {
		ctx := context.Background()
		dir := b.TempDir()
		k, err := Open(ctx, filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { k.Close() })
		if !withBigrams {
			if _, err := k.db.Exec(`DROP TRIGGER units_bigram_ai`); err != nil {
				b.Fatal(err)
			}
		}
		c, _ := k.CreateCollection(ctx, Collection{Name: "zh"})
		start := time.Now()
		for d := 0; d*100 < pages; d++ {
			doc, _, err := k.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: fmt.Sprint(d), Name: fmt.Sprintf("d%d.pdf", d), Kind: "pdf", Pages: 100})
			if err != nil {
				b.Fatal(err)
			}
			units := make([]Unit, 0, 100)
			for p := 0; p < 100; p++ {
				units = append(units, Unit{DocumentID: doc.ID, Ordinal: p + 1, Kind: UnitPage, Text: texts[d*100+p]})
			}
			if err := k.Batch(ctx, func(bt *Batch) error { _, err := bt.PutUnits(ctx, units); return err }); err != nil {
				b.Fatal(err)
			}
		}
		return k, time.Since(start)
	}
	start := time.Now()
	for _, t := range texts {
		CJKBigramText(t)
	}
	b.Logf("CJKBigramText alone: %v per page", (time.Since(start) / time.Duration(pages)).Round(time.Microsecond))
	var k *KB
	for range b.N {
		base, without := write(false)
		base.Close()
		var with time.Duration
		k, with = write(true)
		b.Logf("%d pages written in %v with the bigram index, %v without: ×%.2f", pages, with.Round(time.Millisecond),
			without.Round(time.Millisecond), float64(with)/float64(without))
	}
	ctx := context.Background()
	size := func(name string) int64 {
		var n int64
		if err := k.db.QueryRow(`SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name LIKE ? || '%'`, name).Scan(&n); err != nil {
			b.Logf("dbstat: %v", err)
		}
		return n
	}
	b.Logf("index size: bigram %.1f MB, trigram %.1f MB", float64(size("units_fts_bigram"))/1e6, float64(size("units_fts_cjk"))/1e6)
	// Questions: a sentence's middle part with a question word around it, as people ask.
	qr := rand.New(rand.NewPCG(5, 3))
	var bigramTime, trigramTime time.Duration
	const questions = 200
	sc := Scope{Collections: map[int64]bool{1: true}}
	for range questions {
		rs := []rune(sentences[qr.IntN(len(sentences))])
		part := string(rs[len(rs)/4 : len(rs)/4+min(6, len(rs)-len(rs)/4)])
		var bi, tri []string
		CJKBigrams(part, func(g string) { bi = append(bi, `"`+g+`"`) })
		for i := 0; i+3 <= utf8.RuneCountInString(part); i++ {
			tri = append(tri, `"`+string([]rune(part)[i:i+3])+`"`)
		}
		if len(tri) == 0 || len(bi) == 0 {
			continue
		}
		start := time.Now()
		if _, err := k.RankFTSBigram(ctx, strings.Join(bi, " OR "), sc, 50); err != nil {
			b.Fatal(err)
		}
		bigramTime += time.Since(start)
		start = time.Now()
		if _, err := k.RankFTSCJK(ctx, strings.Join(tri, " OR "), sc, 50); err != nil {
			b.Fatal(err)
		}
		trigramTime += time.Since(start)
	}
	b.Logf("per question (depth 50): bigram %v, trigram %v: ×%.2f", (bigramTime / questions).Round(time.Microsecond),
		(trigramTime / questions).Round(time.Microsecond), float64(bigramTime)/float64(trigramTime))
}
