package ingest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"proofglass/backend/kb"
	"proofglass/backend/model"
)

// embedItem is a unit waiting for its vectors.
type embedItem struct {
	unitID  int64
	ordinal int
	text    string
	// image returns the unit's image for an image embedder (nil when the unit has none).
	image func(ctx context.Context) (*model.Image, error)
	fresh bool // extracted by this run (counts toward the rate)
}

// embedStage batches units through the collection's embedders and stores their vectors.
type embedStage struct {
	j     *job
	text  model.Embedder
	image model.Embedder // nil without an image embedder
}

var embedCache sync.Map // model id → model.Embedder, shared by all ingesters of the process

func (in *Ingester) embedder(ctx context.Context, id string) (model.Embedder, error) {
	if e, ok := embedCache.Load(id); ok {
		return e.(model.Embedder), nil
	}
	e, err := in.o.Embedders(ctx, id)
	if err != nil {
		return nil, err
	}
	embedCache.Store(id, e)
	return e, nil
}

func (j *job) newEmbedStage(ctx context.Context) (*embedStage, error) {
	s := &embedStage{j: j}
	var err error
	if s.text, err = j.in.embedder(ctx, j.coll.TextEmbedder); err != nil {
		return nil, fmt.Errorf("text embedder %s of collection %q: %w", j.coll.TextEmbedder, j.coll.Name, err)
	}
	if j.coll.ImageEmbedder != "" {
		if s.image, err = j.in.embedder(ctx, j.coll.ImageEmbedder); err != nil {
			return nil, fmt.Errorf("image embedder %s of collection %q: %w", j.coll.ImageEmbedder, j.coll.Name, err)
		}
	}
	return s, nil
}

// run consumes items until ch closes, embedding them in batches. After an error it keeps draining ch, so
// producers never block, and returns the first error.
func (s *embedStage) run(ctx context.Context, ch <-chan embedItem) error {
	batch := make([]embedItem, 0, s.j.in.o.EmbedBatch)
	var firstErr error
	flush := func() {
		if len(batch) == 0 || firstErr != nil {
			batch = batch[:0]
			return
		}
		firstErr = s.embed(ctx, batch)
		batch = batch[:0]
	}
	for it := range ch {
		if firstErr != nil {
			continue
		}
		batch = append(batch, it)
		if len(batch) == cap(batch) {
			flush()
		}
	}
	flush()
	return firstErr
}

// textInput is one text sent to the text embedder: a unit's passage (pass ≥ 0) or its whole text (pass = -1).
type textInput struct {
	item  int
	pass  int
	text  string
	start int
	end   int
}

func (s *embedStage) embed(ctx context.Context, batch []embedItem) error {
	j := s.j
	t0 := time.Now()
	defer func() {
		j.in.clock.embed.Add(since(t0))
		j.in.clock.embedN.Add(int64(len(batch)))
	}()
	limit := j.in.o.MaxEmbedChars
	var inputs []textInput
	spans := make([][]span, len(batch))
	for i, it := range batch {
		if it.text == "" {
			continue
		}
		spans[i] = passageSpans(it.text)
		for p, sp := range spans[i] {
			inputs = append(inputs, textInput{item: i, pass: p, text: truncateUTF8(it.text[sp.start:sp.end], limit),
				start: sp.start, end: sp.end})
		}
		if len(spans[i]) > 1 {
			// The whole text too: the unit's own vector, kept in vectors for other uses and older readers.
			inputs = append(inputs, textInput{item: i, pass: -1, text: truncateUTF8(it.text, limit)})
		}
	}
	vecs := make([][]float32, len(batch))
	passages := make([][]kb.Passage, len(batch))
	for lo := 0; lo < len(inputs); lo += j.in.o.EmbedBatch {
		chunk := inputs[lo:min(lo+j.in.o.EmbedBatch, len(inputs))]
		out, err := s.embedTexts(ctx, batch, chunk)
		if err != nil {
			return fmt.Errorf("embedding with %s: %w", j.coll.TextEmbedder, err)
		}
		if len(out) != len(chunk) {
			return fmt.Errorf("embedding with %s: %d vectors for %d texts", j.coll.TextEmbedder, len(out), len(chunk))
		}
		for k, v := range out {
			t := chunk[k]
			if len(v) != j.coll.TextDim {
				return fmt.Errorf("embedder %s returned %d dimensions; collection %q is pinned to %d", j.coll.TextEmbedder,
					len(v), j.coll.Name, j.coll.TextDim)
			}
			if zero(v) {
				continue // no known word: a zero vector would only add noise to the index
			}
			if t.pass < 0 || len(spans[t.item]) == 1 {
				vecs[t.item] = v
			}
			if t.pass >= 0 {
				passages[t.item] = append(passages[t.item], kb.Passage{Ordinal: t.pass, Start: t.start, End: t.end, Vec: v})
			}
		}
	}
	var imgVecs [][]float32
	if s.image != nil {
		var err error
		if imgVecs, err = s.embedImages(ctx, batch); err != nil {
			return err
		}
	}
	// The whole batch's passages, vectors and steps in one commit and a few statements.
	steps := make([]kb.Step, len(batch))
	es := make([]kb.Embedding, len(batch))
	for i, it := range batch {
		// Passages are replaced even when there are none now, so a re-embedded unit keeps no stale ones.
		es[i] = kb.Embedding{UnitID: it.unitID, Passages: passages[i], Text: vecs[i]}
		if imgVecs != nil {
			es[i].Image = imgVecs[i]
		}
		status := kb.StepSkipped // no text, or no known word
		if len(passages[i]) > 0 || es[i].Text != nil || es[i].Image != nil {
			status = kb.StepDone
		}
		steps[i] = kb.Step{Ordinal: it.ordinal, Stage: StageEmbed, Status: status}
	}
	err := j.in.kb.Content.Batch(ctx, func(b *kb.Batch) error {
		if err := b.PutEmbeddings(ctx, j.coll.TextEmbedder, j.coll.ImageEmbedder, es); err != nil {
			return err
		}
		return b.MarkSteps(ctx, j.doc.ID, steps)
	})
	if err != nil {
		return err
	}
	for _, it := range batch {
		j.unitDone(it.ordinal, it.fresh)
	}
	return nil
}

// windowEmbedder embeds byte ranges of one text as Embed embeds each range's text, tokenizing the text once: the
// built-in embedder, for which a page's passages and whole text otherwise made three lookups of every word.
type windowEmbedder interface {
	EmbedWindows(ctx context.Context, text string, windows [][2]int) ([][]float32, error)
}

// embedTexts returns the text embedder's vectors of the inputs, in order.
func (s *embedStage) embedTexts(ctx context.Context, batch []embedItem, inputs []textInput) ([][]float32, error) {
	we, ok := s.text.(windowEmbedder)
	if !ok {
		in := make([]model.EmbedInput, len(inputs))
		for k, t := range inputs {
			in[k] = model.EmbedInput{Text: t.text}
		}
		return s.text.Embed(ctx, in)
	}
	// An item's inputs are consecutive: its passages (text[start:end], truncated) and its whole text (start 0).
	out := make([][]float32, 0, len(inputs))
	for lo := 0; lo < len(inputs); {
		hi := lo + 1
		for hi < len(inputs) && inputs[hi].item == inputs[lo].item {
			hi++
		}
		windows := make([][2]int, hi-lo)
		for k, t := range inputs[lo:hi] {
			windows[k] = [2]int{t.start, t.start + len(t.text)}
		}
		vs, err := we.EmbedWindows(ctx, batch[inputs[lo].item].text, windows)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
		lo = hi
	}
	return out, nil
}

func (s *embedStage) embedImages(ctx context.Context, batch []embedItem) ([][]float32, error) {
	j := s.j
	var inputs []model.EmbedInput
	var idx []int
	for i, it := range batch {
		if it.image == nil {
			continue
		}
		img, err := it.image(ctx)
		if err != nil {
			j.warn("unit %d: image for %s: %v", it.ordinal, j.coll.ImageEmbedder, err)
			continue
		}
		inputs = append(inputs, model.EmbedInput{Image: img})
		idx = append(idx, i)
	}
	out := make([][]float32, len(batch))
	if len(inputs) == 0 {
		return out, nil
	}
	vecs, err := s.image.Embed(ctx, inputs)
	if err != nil {
		return nil, fmt.Errorf("image embedding with %s: %w", j.coll.ImageEmbedder, err)
	}
	if len(vecs) != len(inputs) {
		return nil, fmt.Errorf("image embedding with %s: %d vectors for %d images", j.coll.ImageEmbedder, len(vecs), len(inputs))
	}
	for k, v := range vecs {
		if j.coll.ImageDim > 0 && len(v) != j.coll.ImageDim {
			return nil, fmt.Errorf("embedder %s returned %d dimensions; collection %q is pinned to %d", j.coll.ImageEmbedder,
				len(v), j.coll.Name, j.coll.ImageDim)
		}
		out[idx[k]] = v
	}
	return out, nil
}

func zero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// stepState is a document's recorded steps: stage → ordinal → status.
type stepState map[string]map[int]string

func (j *job) loadSteps(ctx context.Context) (stepState, error) {
	steps, err := j.in.kb.Content.Steps(ctx, j.doc.ID)
	if err != nil {
		return nil, fmt.Errorf("read ingest steps: %w", err)
	}
	st := stepState{}
	for _, s := range steps {
		if st[s.Stage] == nil {
			st[s.Stage] = map[int]string{}
		}
		st[s.Stage][s.Ordinal] = s.Status
	}
	return st, nil
}

// finished reports whether a stage of a unit has a recorded outcome that needs no redoing.
func (s stepState) finished(stage string, ordinal int) bool {
	st := s[stage][ordinal]
	return st == kb.StepDone || st == kb.StepSkipped || (stage == StageExtract && st == kb.StepFailed)
}

// embedQueue feeds the embed stage, which runs in the background while units are extracted.
type embedQueue struct {
	stage *embedStage
	ch    chan embedItem
	done  chan error
}

// startEmbedding starts the embed stage and queues first the units an earlier run extracted but did not embed;
// prepare, when set, completes each of those (a PDF page's image is rendered on demand, not stored).
func (j *job) startEmbedding(ctx context.Context, st stepState, prepare func(*embedItem)) (*embedQueue, error) {
	stage, err := j.newEmbedStage(ctx)
	if err != nil {
		return nil, err
	}
	q := &embedQueue{stage: stage, ch: make(chan embedItem, 2*j.in.o.EmbedBatch), done: make(chan error, 1)}
	go func() { q.done <- stage.run(ctx, q.ch) }()
	pending, err := j.pendingEmbeds(ctx, st)
	if err != nil {
		return nil, q.finish(err)
	}
	for _, it := range pending {
		if prepare != nil {
			prepare(&it)
		}
		q.send(it)
	}
	return q, nil
}

// images reports whether the collection embeds images, so extraction knows whether to prepare them.
func (q *embedQueue) images() bool { return q.stage.image != nil }

// send queues one unit; its image is dropped when the collection has no image embedder.
func (q *embedQueue) send(it embedItem) {
	if q.stage.image == nil {
		it.image = nil
	}
	q.ch <- it
}

// finish closes the queue, waits for the stage, and returns err, or else the stage's error.
func (q *embedQueue) finish(err error) error {
	close(q.ch)
	if serr := <-q.done; err == nil {
		err = serr
	}
	return err
}

// pendingEmbeds returns the units extracted by an earlier run whose embedding was not recorded.
func (j *job) pendingEmbeds(ctx context.Context, st stepState) ([]embedItem, error) {
	srcs, err := j.in.kb.Content.EmbedSources(ctx, j.doc.ID)
	if err != nil {
		return nil, err
	}
	var out []embedItem
	for _, s := range srcs {
		if !st.finished(StageExtract, s.Ordinal) || st.finished(StageEmbed, s.Ordinal) {
			continue
		}
		out = append(out, j.embedItem(s))
	}
	return out, nil
}

// embedItem is the embedding work of a stored unit.
func (j *job) embedItem(s kb.EmbedSource) embedItem {
	it := embedItem{unitID: s.UnitID, ordinal: s.Ordinal, text: s.Text}
	if s.ImageBlob != "" {
		it.image = j.blobImage(s.ImageBlob)
	}
	return it
}

// blobImage loads a stored JPEG for an image embedder.
func (j *job) blobImage(h string) func(context.Context) (*model.Image, error) {
	return func(context.Context) (*model.Image, error) {
		b, err := j.in.kb.Blobs.Get(h)
		if err != nil {
			return nil, err
		}
		return &model.Image{Data: b, MIME: "image/jpeg"}, nil
	}
}
