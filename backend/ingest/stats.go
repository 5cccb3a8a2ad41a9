package ingest

import (
	"sync/atomic"
	"time"
)

// StageStats is where an Ingester's time went, summed over its goroutines (busy time, not wall time: with N
// workers busy seconds can reach N per second). Units counts the units that went through each stage.
type StageStats struct {
	ExtractSeconds float64 `json:"extract_s"` // text layer, boxes, thumbnail (MuPDF worker round trip) and storing the unit
	OCRSeconds     float64 `json:"ocr_s"`     // render for OCR and tesseract
	EmbedSeconds   float64 `json:"embed_s"`   // embedding calls and storing vectors
	IndexSeconds   float64 `json:"index_s"`   // keeping the saved dense index current
	ExtractUnits   int64   `json:"extract_units"`
	OCRUnits       int64   `json:"ocr_units"`
	EmbedUnits     int64   `json:"embed_units"`
}

type stageClock struct {
	extract, ocr, embed, index atomic.Int64 // nanoseconds
	extractN, ocrN, embedN     atomic.Int64
}

func since(t time.Time) int64 { return int64(time.Since(t)) }

// Stats returns the time spent per stage since the Ingester was made.
func (in *Ingester) Stats() StageStats {
	c := &in.clock
	return StageStats{
		ExtractSeconds: time.Duration(c.extract.Load()).Seconds(),
		OCRSeconds:     time.Duration(c.ocr.Load()).Seconds(),
		EmbedSeconds:   time.Duration(c.embed.Load()).Seconds(),
		IndexSeconds:   time.Duration(c.index.Load()).Seconds(),
		ExtractUnits:   c.extractN.Load(),
		OCRUnits:       c.ocrN.Load(),
		EmbedUnits:     c.embedN.Load(),
	}
}
