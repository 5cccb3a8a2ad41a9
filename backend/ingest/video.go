package ingest

import (
	"context"
	"math"

	"proofglass/backend/imagefile"
	"proofglass/backend/kb"
	"proofglass/backend/media"
)

// video ingests a video as clips (the retrieval unit, 60 s by default): each clip's kept keyframes are stored as
// frames with their OCR text, the first one is the clip's image and thumbnail, and the clip's text joins the
// frames' text with timestamps. Clips already recorded are not written again on resume (ffmpeg still decodes
// them: media.Extract always starts at the beginning).
func (j *job) video(ctx context.Context) error {
	st, err := j.loadSteps(ctx)
	if err != nil {
		return err
	}
	mo := j.in.o.Media
	probe, err := mo.ProbeFile(ctx, j.path)
	if err != nil {
		return err
	}
	if err := probe.Validate(j.path); err != nil {
		return err
	}
	clipLen := mo.ClipSeconds
	if clipLen <= 0 {
		clipLen = 60
	}
	if v := probe.Video(); v != nil {
		j.meta.Codec = v.Codec
	}
	j.meta.Format, j.meta.Taken = probe.Format, probe.Recorded
	j.doc.DurationMS = int64(probe.Duration * 1000)
	total := int(math.Ceil(probe.Duration / clipLen))
	if err := j.begin(ctx, st, total); err != nil {
		return err
	}

	q, err := j.startEmbedding(ctx, st, nil)
	if err != nil {
		return err
	}
	_, err = media.Extract(ctx, j.path, mo, func(c media.Clip) error {
		ord := c.Index + 1
		if st.finished(StageExtract, ord) {
			return nil
		}
		it, err := j.storeClip(ctx, c)
		if err != nil {
			return err
		}
		q.send(it)
		return nil
	})
	if err := q.finish(err); err != nil {
		return err
	}
	// The tail of a video shorter than one keyframe interval gives no clip: count what was stored.
	n, err := j.in.kb.Content.UnitCount(ctx, j.doc.ID)
	if err != nil {
		return err
	}
	j.doc.Pages = n
	return nil
}

func (j *job) storeClip(ctx context.Context, c media.Clip) (embedItem, error) {
	ord := c.Index + 1
	u := kb.Unit{DocumentID: j.doc.ID, Ordinal: ord, Kind: kb.UnitClip, TStartMS: int64(c.Start * 1000),
		TEndMS: int64(c.End * 1000), Text: c.Text, TextSource: kb.TextNone}
	switch {
	case c.Text != "" && c.Transcript != "":
		u.Text, u.TextSource = c.Transcript+"\n\n"+c.Text, kb.TextMixed
	case c.Transcript != "":
		u.Text, u.TextSource = c.Transcript, kb.TextTranscript
	case c.Text != "":
		u.TextSource = kb.TextOCR
	}
	frames := make([]kb.Frame, 0, len(c.Frames))
	for k, f := range c.Frames {
		h, err := j.in.kb.Blobs.Put(f.JPEG)
		if err != nil {
			return embedItem{}, err
		}
		fr := kb.Frame{TMS: int64(math.Round(f.Time * 1000)), Blob: h}
		if f.OCR != nil {
			fr.Text = f.OCR.Text
		}
		frames = append(frames, fr)
		if k == 0 {
			u.ImageBlob, u.Width, u.Height = h, float64(f.Width), float64(f.Height)
			if res, err := imagefile.Process(j.doc.Name, f.JPEG, j.in.o.Image); err == nil {
				if u.ThumbBlob, err = j.in.kb.Blobs.Put(res.Thumb); err != nil {
					return embedItem{}, err
				}
			}
		}
	}
	if ocrn := countOCR(c); ocrn > 0 {
		j.mu.Lock()
		j.meta.OCRUnits++
		j.mu.Unlock()
	}
	id, err := j.in.kb.Content.PutUnit(ctx, u)
	if err != nil {
		return embedItem{}, err
	}
	if err := j.in.kb.Content.PutFrames(ctx, id, frames); err != nil {
		return embedItem{}, err
	}
	if err := j.in.kb.Content.MarkStep(ctx, j.doc.ID, kb.Step{Ordinal: ord, Stage: StageExtract, Status: kb.StepDone}); err != nil {
		return embedItem{}, err
	}
	j.emit(Progress{Stage: StageExtract, Ordinal: ord})
	it := embedItem{unitID: id, ordinal: ord, text: u.Text, fresh: true}
	if u.ImageBlob != "" {
		it.image = j.blobImage(u.ImageBlob)
	}
	return it, nil
}

func countOCR(c media.Clip) int {
	n := 0
	for _, f := range c.Frames {
		if f.OCR != nil {
			n++
		}
	}
	return n
}
