package ingest

import (
	"context"
	"fmt"
	"time"

	"proofglass/backend/kb"
	"proofglass/backend/pdf"
)

// ReembedResult sums up one Reembed.
type ReembedResult struct {
	Collection string `json:"collection"`
	Documents  int    `json:"documents"` // documents that had units to embed
	Units      int    `json:"units"`     // units embedded
	Dropped    int64  `json:"dropped"`   // vectors and passages of earlier embedders deleted at the end
}

// SetEmbedders re-pins a collection's embedders (kb.SetEmbedders) and, when they changed, re-embeds its units with
// Reembed. Callers that want it in the background run it in a goroutine: search keeps working meanwhile, with
// dense retrieval limited to the units already embedded by the new embedder (it never mixes embedders).
func (in *Ingester) SetEmbedders(ctx context.Context, collection, textEmbedder string, textDim int, imageEmbedder string,
	imageDim int, progress func(Progress)) (ReembedResult, error) {
	// Resolve the embedders before re-pinning, so a typo does not leave a collection pinned to nothing usable.
	if _, err := in.embedder(ctx, textEmbedder); err != nil {
		return ReembedResult{Collection: collection}, fmt.Errorf("text embedder %s: %w", textEmbedder, err)
	}
	if imageEmbedder != "" {
		if _, err := in.embedder(ctx, imageEmbedder); err != nil {
			return ReembedResult{Collection: collection}, fmt.Errorf("image embedder %s: %w", imageEmbedder, err)
		}
	}
	if _, _, err := in.kb.Docs.SetEmbedders(ctx, collection, textEmbedder, textDim, imageEmbedder, imageDim); err != nil {
		return ReembedResult{Collection: collection}, err
	}
	return in.Reembed(ctx, collection, progress)
}

// Reembed embeds every unit of a collection that lacks vectors of the collection's pinned embedders: units whose
// embed step is not recorded (after kb.SetEmbedders cleared them, or an interrupted run) and units embedded before
// passages existed (a text vector but no passages). It is resumable: each unit's step is recorded as it finishes,
// so calling it again continues where it stopped. Progress reports StageEmbed per unit and StageDone per document.
// When every document is done, vectors and passages of embedders the collection no longer pins are deleted.
func (in *Ingester) Reembed(ctx context.Context, collection string, progress func(Progress)) (ReembedResult, error) {
	res := ReembedResult{Collection: collection}
	coll, err := in.kb.Docs.CollectionByName(ctx, collection)
	if err != nil {
		return res, err
	}
	docs, err := in.kb.Docs.Documents(ctx, coll.ID)
	if err != nil {
		return res, err
	}
	complete := true
	for _, d := range docs {
		if d.Status != kb.StatusReady && d.Status != kb.StatusFailed {
			complete = false // queued or ingesting: its own ingest embeds it with the pinned embedders
			continue
		}
		n, err := in.reembedDocument(ctx, coll, d, progress)
		if err != nil {
			return res, fmt.Errorf("re-embed %s: %w", d.Name, err)
		}
		if n < 0 {
			complete = false // busy in another ingest
			continue
		}
		if n > 0 {
			res.Documents++
			res.Units += n
		}
	}
	if complete {
		if res.Dropped, err = in.kb.Docs.DropStaleEmbeddings(ctx, coll.ID); err != nil {
			return res, err
		}
	}
	in.batchDone(ctx)
	return res, nil
}

// reembedDocument embeds the units of d that need it and returns how many, or -1 when d is being ingested.
func (in *Ingester) reembedDocument(ctx context.Context, coll kb.Collection, d kb.Document, progress func(Progress)) (int, error) {
	in.memMu.Lock()
	busy := in.active[d.ID]
	in.active[d.ID] = true
	in.memMu.Unlock()
	if busy {
		return -1, nil
	}
	defer func() {
		in.memMu.Lock()
		delete(in.active, d.ID)
		in.memMu.Unlock()
	}()
	j := &job{in: in, doc: d, coll: coll, meta: ParseMeta(d.Meta), password: in.getSecret(PasswordKey(d.SHA256)),
		progress: progress, path: in.kb.Blobs.Path(d.Blob), start: time.Now()}
	st, err := j.loadSteps(ctx)
	if err != nil {
		return 0, err
	}
	items, err := j.staleEmbeds(ctx, st)
	if err != nil || len(items) == 0 {
		return 0, err
	}
	emb, err := j.newEmbedStage(ctx)
	if err != nil {
		return 0, err
	}
	if emb.image != nil && d.Kind == "pdf" {
		docs := &docSet{j: j, m: map[*pdf.Client]*pdf.Doc{}}
		defer docs.close()
		for i := range items {
			if items[i].image == nil {
				items[i].image = j.pageImage(docs, items[i].ordinal-1)
			}
		}
	}
	j.total = len(items)
	j.emit(Progress{Stage: StageStart})
	ch := make(chan embedItem, len(items))
	for _, it := range items {
		it.fresh = true
		ch <- it
	}
	close(ch)
	if err := emb.run(ctx, ch); err != nil {
		return 0, err
	}
	j.emit(Progress{Stage: StageDone, Status: d.Status})
	return len(items), nil
}

// staleEmbeds returns the extracted units of the job's document that have no recorded embedding, or that were
// embedded before passages existed (a text vector of the pinned embedder but no passages).
func (j *job) staleEmbeds(ctx context.Context, st stepState) ([]embedItem, error) {
	srcs, err := j.in.kb.Content.StaleEmbedSources(ctx, j.doc.ID, j.coll.TextEmbedder, j.coll.TextDim)
	if err != nil {
		return nil, err
	}
	var out []embedItem
	for _, s := range srcs {
		if !st.finished(StageExtract, s.Ordinal) {
			continue
		}
		if st.finished(StageEmbed, s.Ordinal) && (s.HasPassages || !s.HasTextVector) {
			continue
		}
		out = append(out, j.embedItem(s))
	}
	return out, nil
}
