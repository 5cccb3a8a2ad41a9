package ingest

import (
	"context"
	"time"
)

// Progress stages beyond the recorded ones (StageExtract, StageOCR, StageEmbed).
const (
	StageStart   = "start"   // a document begins (Total is known from here on)
	StageRender  = "render"  // a page is being rasterised for OCR
	StageDone    = "done"    // the document is ready
	StageFailed  = "failed"  // the document (or a file that got no document) failed; Error says why
	StageExists  = "exists"  // the file was already in the collection and was not ingested again
	StageSkipped = "skipped" // a file in a folder that is not a PDF, image or video
)

// Progress is one event of an ingest, for the CLI's progress line or JSON lines and for the app's library view.
// Events of one Ingester are delivered one at a time (never concurrently), in order per document.
type Progress struct {
	DocumentID int64  `json:"document_id,omitempty"`
	Name       string `json:"name"`
	Path       string `json:"path,omitempty"`
	Collection string `json:"collection,omitempty"`
	Kind       string `json:"kind,omitempty"` // pdf, image, video
	Stage      string `json:"stage"`
	Ordinal    int    `json:"ordinal,omitempty"` // the unit the event is about (1-based), 0 for the document
	// Done and Total count the document's units (pages, images, clips) that have finished every stage.
	Done  int `json:"done"`
	Total int `json:"total"`
	// PagesPerSec is this run's rate for the document; ETASeconds the time left at that rate (0 when unknown).
	PagesPerSec float64 `json:"pages_per_s,omitempty"`
	ETASeconds  float64 `json:"eta_s,omitempty"`
	Status      string  `json:"status,omitempty"` // the document's status after a done/failed/exists event
	Error       string  `json:"error,omitempty"`
	// Code names the failure in Error for a window that shows it in its own language (Code* constants; empty when
	// the failure has no code), and Params are the values its message names. Error stays the English text.
	Code    string            `json:"code,omitempty"`
	Params  map[string]string `json:"params,omitempty"`
	Warning string            `json:"warning,omitempty"`
	// Seq numbers the events of one Ingester in emission order, so a consumer whose transport reorders messages
	// (Wails' dev websocket sends each from its own goroutine) can keep the latest state per document.
	Seq uint64 `json:"seq"`
}

// emit delivers p, serialised across the Ingester so callbacks need no locking.
func (in *Ingester) emit(fn func(Progress), p Progress) {
	if fn == nil {
		return
	}
	in.progMu.Lock()
	defer in.progMu.Unlock()
	in.progSeq++
	p.Seq = in.progSeq
	fn(p)
}

// emit fills in the document fields and the rate.
func (j *job) emit(p Progress) {
	if j.progress == nil {
		return
	}
	p.DocumentID, p.Name, p.Path, p.Collection, p.Kind = j.doc.ID, j.doc.Name, j.doc.SourcePath, j.coll.Name, j.doc.Kind
	j.mu.Lock()
	if p.Total == 0 {
		p.Total = j.total
	}
	if p.Done == 0 {
		p.Done = j.doneUnits
	}
	if el := time.Since(j.start).Seconds(); j.newUnits > 0 && el > 0 {
		p.PagesPerSec = float64(j.newUnits) / el
		if left := p.Total - p.Done; left > 0 {
			p.ETASeconds = float64(left) / p.PagesPerSec
		}
	}
	j.mu.Unlock()
	j.in.emit(j.progress, p)
}

// begin records the document's unit count, counts the units a resumed ingest already finished (extracted and
// embedded) and reports the start.
func (j *job) begin(ctx context.Context, st stepState, total int) error {
	j.doc.Pages = total
	if err := j.in.kb.Docs.UpdateDocument(ctx, j.doc); err != nil {
		return err
	}
	j.mu.Lock()
	j.total = total
	for o := 1; o <= total; o++ {
		if st.finished(StageExtract, o) && st.finished(StageEmbed, o) {
			j.doneUnits++
		}
	}
	j.mu.Unlock()
	j.emit(Progress{Stage: StageStart})
	return nil
}

// unitDone counts a finished unit and reports it.
func (j *job) unitDone(ordinal int, fresh bool) {
	j.mu.Lock()
	j.doneUnits++
	if fresh {
		j.newUnits++
	}
	j.mu.Unlock()
	j.emit(Progress{Stage: StageEmbed, Ordinal: ordinal})
}
