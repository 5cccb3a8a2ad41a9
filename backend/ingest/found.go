package ingest

import (
	"context"

	"golang.org/x/sync/errgroup"

	"proofglass/backend/kb"
)

// AddFound ingests files that a caller found by walking a folder itself (a watched folder): like AddRequest with
// files only, but a file that is not a PDF, image or video and does not claim to be one is skipped quietly, as in a
// folder given to Add. Results are in the order of r.Paths.
func (in *Ingester) AddFound(ctx context.Context, r Request, progress func(Progress)) ([]Result, error) {
	if r.Collection == "" {
		r.Collection = kb.DefaultCollection
	}
	coll, err := in.kb.Docs.EnsureCollection(ctx, r.Collection)
	if err != nil {
		return nil, err
	}
	results := make([]Result, len(r.Paths))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(in.o.Workers)
	ts := turns(len(r.Paths))
	for i, p := range r.Paths {
		g.Go(func() error {
			f := file{path: p, fromFolder: true}
			if r.Watched != nil {
				f.root = r.Watched.Root
			}
			results[i] = in.addFile(gctx, coll, f, r.Password, r.Watched, progress, ts[i])
			return nil
		})
	}
	_ = g.Wait()
	return results, ctx.Err()
}
