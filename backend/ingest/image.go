package ingest

import (
	"context"
	"strings"

	"proofglass/backend/imagefile"
	"proofglass/backend/kb"
)

// image ingests a picture as one unit: the upright, normalised JPEG (whose pixels the unit's size and word boxes
// are in), a thumbnail and the OCR text.
func (j *job) image(ctx context.Context) error {
	st, err := j.loadSteps(ctx)
	if err != nil {
		return err
	}
	j.mu.Lock()
	j.total = 1
	j.mu.Unlock()
	j.doc.Pages = 1
	if st.finished(StageExtract, 1) && st.finished(StageEmbed, 1) {
		j.mu.Lock()
		j.doneUnits = 1
		j.mu.Unlock()
		return nil
	}
	j.emit(Progress{Stage: StageStart})
	q, err := j.startEmbedding(ctx, st, nil)
	if err != nil {
		return err
	}
	if !st.finished(StageExtract, 1) {
		it, err := j.extractImage(ctx)
		if err != nil {
			return q.finish(err)
		}
		q.send(it)
	}
	return q.finish(nil)
}

func (j *job) extractImage(ctx context.Context) (embedItem, error) {
	res, err := imagefile.ProcessFile(j.path, j.in.o.Image)
	if err != nil {
		return embedItem{}, err
	}
	j.meta.Width, j.meta.Height, j.meta.Orientation, j.meta.Taken = res.Width, res.Height, res.Orientation, res.Taken
	u := kb.Unit{DocumentID: j.doc.ID, Ordinal: 1, Kind: kb.UnitImage, Width: float64(res.NormalW), Height: float64(res.NormalH),
		TextSource: kb.TextNone}
	committed := false
	defer func() {
		if !committed { // interrupted before the unit was written: its blobs would be orphans
			j.discardBlobs(ctx, u.ImageBlob, u.ThumbBlob)
		}
	}()
	if u.ImageBlob, err = j.in.kb.Blobs.Put(res.Normal); err != nil {
		return embedItem{}, err
	}
	if u.ThumbBlob, err = j.in.kb.Blobs.Put(res.Thumb); err != nil {
		return embedItem{}, err
	}
	if j.in.o.OCR != nil {
		j.emit(Progress{Stage: StageOCR, Ordinal: 1})
		r, err := j.recognize(ctx, j.doc.Name, res.Normal)
		switch {
		case err != nil && ctx.Err() != nil:
			return embedItem{}, ctx.Err()
		case err != nil:
			j.warn("%v", err)
			_ = j.in.kb.Content.MarkStep(ctx, j.doc.ID, kb.Step{Ordinal: 1, Stage: StageOCR, Status: kb.StepFailed, Error: j.clean(err.Error())})
		default:
			// Word boxes stay in the normalised image's pixels: that is the image the unit shows.
			if txt := strings.TrimSpace(r.Text); txt != "" {
				u.Text, u.Words, u.TextSource = txt, ocrWords(r, 1), kb.TextOCR
			}
			j.meta.OCRUnits = 1
			if err := j.in.kb.Content.MarkStep(ctx, j.doc.ID, kb.Step{Ordinal: 1, Stage: StageOCR, Status: kb.StepDone}); err != nil {
				return embedItem{}, err
			}
		}
	}
	id, err := j.in.kb.Content.PutUnit(context.WithoutCancel(ctx), u) // the work done is kept, as unitWriter.store keeps it
	if err != nil {
		return embedItem{}, err
	}
	committed = true
	if err := j.in.kb.Content.MarkStep(ctx, j.doc.ID, kb.Step{Ordinal: 1, Stage: StageExtract, Status: kb.StepDone}); err != nil {
		return embedItem{}, err
	}
	j.emit(Progress{Stage: StageExtract, Ordinal: 1})
	return embedItem{unitID: id, ordinal: 1, text: u.Text, image: j.blobImage(u.ImageBlob), fresh: true}, nil
}

// discardBlobs sweeps blobs this job stored for units it did not write, unless another row refers to them.
func (j *job) discardBlobs(ctx context.Context, hashes ...string) {
	var hs []string
	for _, h := range hashes {
		if h != "" {
			hs = append(hs, h)
		}
	}
	if len(hs) == 0 {
		return
	}
	if err := j.in.kb.Docs.DiscardBlobs(context.WithoutCancel(ctx), hs); err != nil {
		j.in.log.Warn("ingest: sweep unused blobs", "document", j.doc.Name, "err", err)
	}
}
