package library

import (
	"context"

	"proofglass/backend/ingest"
)

// IngestOptions are the choices a face makes for an ingest; the rest (embedders, the index kept current, secrets)
// is the library's.
type IngestOptions struct {
	Workers  int  // 0 = the ingester's default (the CPUs)
	NoOCR    bool // leave scanned pages without text
	ImageOCR bool // also OCR the raster images on pages that have a text layer
}

// Ingester is the library's ingester for o: one per library and choice, so the window, watched folders, the
// server and the CLI ingest through the same path, with the library's embedders and its searcher's dense index
// kept current after each document. Close closes them all.
func (l *Library) Ingester(o IngestOptions) *ingest.Ingester {
	l.ingestMu.Lock()
	defer l.ingestMu.Unlock()
	if in, ok := l.ingesters[o]; ok {
		return in
	}
	if l.ingesters == nil {
		l.ingesters = map[IngestOptions]*ingest.Ingester{}
	}
	in := ingest.New(l.KB, l.Config, ingest.Options{Workers: o.Workers, NoOCR: o.NoOCR, ImageOCR: o.ImageOCR,
		Index: l.Searcher, AfterBatch: l.afterBatch})
	l.ingesters[o] = in
	return in
}

// afterBatch runs after each ingest batch: the learned ranker is refreshed when the library changed enough, and new
// documents are summarised in the background when the settings ask for it.
func (l *Library) afterBatch(ctx context.Context) {
	l.refreshRankerAfterBatch(ctx)
	l.summarizeNewDocuments()
}

// closeIngesters stops the ingesters' PDF workers.
func (l *Library) closeIngesters() {
	l.ingestMu.Lock()
	defer l.ingestMu.Unlock()
	for _, in := range l.ingesters {
		in.Close()
	}
	l.ingesters = nil
}
