package search

import (
	"context"
	"testing"
	"time"

	"proofglass/backend/model"
)

// blockingEmbedder answers only when released: a model server taking its time.
type blockingEmbedder struct {
	called, release chan struct{}
}

func (blockingEmbedder) ModelID() string      { return "test/blocking" }
func (blockingEmbedder) Dim() int             { return 4 }
func (blockingEmbedder) SupportsImages() bool { return false }
func (e blockingEmbedder) Embed(ctx context.Context, in []model.EmbedInput) ([][]float32, error) {
	e.called <- struct{}{}
	select {
	case <-e.release:
		return [][]float32{{1, 0, 0, 0}}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestSearchesTakeTurns: searches beyond the running limit wait their turn, and a search waiting on a model server
// gives its turn away meanwhile.
func TestSearchesTakeTurns(t *testing.T) {
	k := openKB(t)
	ctx := context.Background()
	collection(t, k, "local")
	addPDF(t, k, collection(t, k, "local"), testdata(t, "pdf/real/blood_loss_report.pdf"))
	if _, err := k.Docs.EnsureCollection(ctx, "remote"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := k.Docs.SetEmbedders(ctx, "remote", "test/blocking", 4, "", 0); err != nil {
		t.Fatal(err)
	}
	emb := blockingEmbedder{called: make(chan struct{}, 1), release: make(chan struct{})}
	s := New(k, Options{Embedders: func(ctx context.Context, id string) (model.Embedder, error) {
		if id == "test/blocking" {
			return emb, nil
		}
		return BuiltinResolver(ctx, id)
	}})
	s.running = make(chan struct{}, 1) // one search at a time

	slow := make(chan error, 1)
	go func() {
		_, err := s.Search(ctx, Query{Text: "blood loss", Collections: []string{"remote"}, Mode: Dense})
		slow <- err
	}()
	<-emb.called                                              // the remote search is waiting on its model server
	lctx, lcancel := context.WithTimeout(ctx, 10*time.Second) // a turn never given back would block it forever
	defer lcancel()
	res, err := s.Search(lctx, Query{Text: "blood loss", Collections: []string{"local"}})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("a local search while the remote one waits on its server: %d hits, %v", len(res.Hits), err)
	}

	// With the one turn held, another search waits (and gives up when its context ends).
	s.running <- struct{}{}
	wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := s.Search(wctx, Query{Text: "blood loss", Collections: []string{"local"}}); err == nil {
		t.Fatal("a search ran while every turn was taken")
	}
	<-s.running
	close(emb.release)
	if err := <-slow; err != nil {
		t.Fatalf("the remote search, once its server answered: %v", err)
	}
}
