package ingest

import (
	"context"
	"time"

	"proofglass/backend/kb"
)

// Units are stored in batches: one transaction and one blob sync per unitBatch extracted pages, or per
// unitBatchAge when pages come slowly (OCR), instead of a commit and two fsyncs per page, which were most of the
// storing process's CPU on text PDFs.
const (
	unitBatch    = 32
	unitBatchAge = 250 * time.Millisecond
)

// pendingUnit is an extracted page waiting for its transaction.
type pendingUnit struct {
	u     kb.Unit
	thumb []byte    // the unit's thumbnail, stored as a blob with the batch
	item  embedItem // handed to the embed stage once the unit is committed (unitID filled in)
}

// unitWriter stores extracted units. A unit and its extract step commit in the same transaction, and a unit goes
// to the embed stage only after that commit, so an interrupted ingest (crash, kill, cancel) leaves whole units with
// their steps or nothing: the next run redoes exactly the pages whose step is missing. The document turns ready
// only after the writer has flushed (job.pdf waits for it).
type unitWriter struct {
	j    *job
	q    *embedQueue
	ch   chan pendingUnit
	done chan error
}

func (j *job) startUnitWriter(ctx context.Context, q *embedQueue) *unitWriter {
	w := &unitWriter{j: j, q: q, ch: make(chan pendingUnit, unitBatch), done: make(chan error, 1)}
	go func() { w.done <- w.run(ctx) }()
	return w
}

// send queues an extracted unit.
func (w *unitWriter) send(p pendingUnit) { w.ch <- p }

// finish closes the queue, waits for the last batch to be stored, and returns err, or else the writer's error.
func (w *unitWriter) finish(err error) error {
	close(w.ch)
	if werr := <-w.done; err == nil {
		err = werr
	}
	return err
}

// run stores batches until the queue closes. After an error it keeps draining, so producers never block, and
// returns the first error.
func (w *unitWriter) run(ctx context.Context) error {
	batch := make([]pendingUnit, 0, unitBatch)
	blobs := w.j.in.kb.Blobs.Batch()
	var firstErr error
	timer := time.NewTimer(unitBatchAge)
	timer.Stop()
	flush := func() {
		timer.Stop()
		if len(batch) > 0 && firstErr == nil {
			firstErr = w.store(ctx, blobs, batch)
		}
		batch = batch[:0]
	}
	for {
		select {
		case p, ok := <-w.ch:
			if !ok {
				flush()
				return firstErr
			}
			if firstErr != nil {
				continue
			}
			batch = append(batch, p)
			if len(batch) == 1 {
				timer.Reset(unitBatchAge)
			}
			if len(batch) == cap(batch) {
				flush()
			}
		case <-timer.C:
			flush()
		}
	}
}

// store writes a batch's thumbnails, makes them durable, then commits its units with their extract steps and
// passes them on to the embed stage. Extraction already done is kept even when ctx ends meanwhile: the commit
// runs without ctx's cancellation (it is short), so a cancelled ingest resumes after the pages it extracted.
func (w *unitWriter) store(ctx context.Context, blobs *kb.BlobBatch, batch []pendingUnit) error {
	j := w.j
	for i := range batch {
		if len(batch[i].thumb) == 0 {
			continue
		}
		h, err := blobs.Put(batch[i].thumb)
		if err != nil {
			return err
		}
		batch[i].u.ThumbBlob = h
	}
	if err := blobs.Sync(); err != nil {
		return err
	}
	wctx := context.WithoutCancel(ctx)
	committed := false
	defer func() {
		if !committed { // the units were not written: their thumbnails would be orphans
			var hs []string
			for _, p := range batch {
				hs = append(hs, p.u.ThumbBlob)
			}
			j.discardBlobs(wctx, hs...)
		}
	}()
	units := make([]kb.Unit, len(batch))
	steps := make([]kb.Step, len(batch))
	for i, p := range batch {
		units[i] = p.u
		steps[i] = kb.Step{Ordinal: p.u.Ordinal, Stage: StageExtract, Status: kb.StepDone}
	}
	// One statement for the units and one for the steps: FTS5 writes a segment per statement (see kb.PutUnits).
	err := j.in.kb.Content.Batch(wctx, func(b *kb.Batch) error {
		ids, err := b.PutUnits(wctx, units)
		if err != nil {
			return err
		}
		for i, id := range ids {
			batch[i].item.unitID = id
		}
		return b.MarkSteps(wctx, j.doc.ID, steps)
	})
	if err != nil {
		return err
	}
	committed = true
	for _, p := range batch {
		j.emit(Progress{Stage: StageExtract, Ordinal: p.u.Ordinal})
		w.q.send(p.item)
	}
	return nil
}
