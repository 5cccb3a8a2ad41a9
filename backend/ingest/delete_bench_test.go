package ingest

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"proofglass/backend/kb"
	"proofglass/backend/search"
)

// BenchmarkDeleteMany measures emptying a watched folder: N small image documents (each a unit with text vectors,
// word index rows, an original and two image blobs; N from PROOFGLASS_BENCH_DOCS, default 2000) are ingested once,
// then deleted from two copies of that library with the dense index kept on disk: one document per call, as the
// watcher deleted before, and DeleteDocuments' batches. It reports the documents per second of each and the ratio.
//
//	go test ./backend/ingest -run '^$' -bench DeleteMany -benchtime 1x
func BenchmarkDeleteMany(b *testing.B) {
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("PROOFGLASS_BENCH_DOCS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	template := b.TempDir()
	files := b.TempDir()
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 9))
		img := image.NewGray(image.Rect(0, 0, 16, 16))
		for p := range img.Pix {
			img.Pix[p] = uint8(r.IntN(256))
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(files, fmt.Sprintf("f%05d.png", i)), buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	func() {
		k, err := kb.Open(ctx, filepath.Join(template, "proofglass.db"), filepath.Join(template, "blobs"))
		if err != nil {
			b.Fatal(err)
		}
		defer k.Close()
		in := New(k, nil, Options{NoOCR: true, Index: search.New(k, search.Options{IndexDir: filepath.Join(template, "index")})})
		defer in.Close()
		if _, err := in.Add(ctx, "bench", []string{files}, nil); err != nil {
			b.Fatal(err)
		}
	}()
	ingest := time.Since(start)

	// deleteAll deletes every document of a fresh copy of the library with del, and returns how long it took.
	deleteAll := func(name string, del func(in *Ingester, ids []int64) error) time.Duration {
		dir := filepath.Join(b.TempDir(), name)
		if out, err := exec.Command("cp", "-a", template, dir).CombinedOutput(); err != nil {
			b.Fatalf("copy the library: %v %s", err, out)
		}
		k, err := kb.Open(ctx, filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
		if err != nil {
			b.Fatal(err)
		}
		defer k.Close()
		in := New(k, nil, Options{NoOCR: true, Index: search.New(k, search.Options{IndexDir: filepath.Join(dir, "index")})})
		defer in.Close()
		docs, err := k.Docs.Documents(ctx, 0)
		if err != nil || len(docs) != n {
			b.Fatalf("%d documents (%v), want %d", len(docs), err, n)
		}
		ids := make([]int64, len(docs))
		for i, d := range docs {
			ids[i] = d.ID
		}
		t0 := time.Now()
		if err := del(in, ids); err != nil {
			b.Fatal(err)
		}
		took := time.Since(t0)
		if left, _ := k.Docs.Documents(ctx, 0); len(left) != 0 {
			b.Fatalf("%s: %d documents left", name, len(left))
		}
		return took
	}
	var one, batched time.Duration
	for b.Loop() {
		one = deleteAll("one-by-one", func(in *Ingester, ids []int64) error {
			for _, id := range ids {
				if err := in.Delete(ctx, id); err != nil {
					return err
				}
			}
			return nil
		})
		batched = deleteAll("batched", func(in *Ingester, ids []int64) error {
			_, err := in.DeleteDocuments(ctx, ids)
			return err
		})
	}
	b.ReportMetric(float64(n)/ingest.Seconds(), "ingest-docs/s")
	b.ReportMetric(float64(n)/one.Seconds(), "one-by-one-docs/s")
	b.ReportMetric(float64(n)/batched.Seconds(), "batched-docs/s")
	b.ReportMetric(one.Seconds()/batched.Seconds(), "speedup")
	b.Logf("%d documents: ingested in %s; deleted one by one in %s, in batches in %s (%.1fx faster)", n,
		ingest.Round(time.Millisecond), one.Round(time.Millisecond), batched.Round(time.Millisecond), one.Seconds()/batched.Seconds())
}
