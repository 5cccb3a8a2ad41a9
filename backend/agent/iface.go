package agent

import (
	"context"
	"image"
	"sync"

	"proofglass/backend/vision"
)

// SearchHit is one unit a Retriever returns: the event's Hit fields plus the unit's text.
type SearchHit struct {
	Hit
	Text string // the unit's text (text layer, OCR or transcript); shown to the model only for text-only units
}

// Retriever searches the knowledge base. Hits come best first; k is the most wanted.
type Retriever interface {
	Search(ctx context.Context, query string, k int) ([]SearchHit, error)
}

// RerankReport is what a Retriever's reranking stage did with one search.
type RerankReport struct {
	Reranker string // which reranker: kind, model and server
	Error    string // why it failed ("" when it reranked): the hits are then in the first stage's order
}

// RerankingRetriever is a Retriever with a reranking stage that can fail while the first stage still answers; the
// agent reports such a failure as a recoverable error event and goes on with the first stage's hits.
type RerankingRetriever interface {
	Retriever
	SearchReranked(ctx context.Context, query string, k int) ([]SearchHit, *RerankReport, error)
}

// PageInfo describes a unit's page image.
type PageInfo struct {
	// Size is the page's raw pixel size: the reference resolution bbox padding and crop sizes are measured in
	// (200 DPI for a PDF page, as VRAG's corpus was rendered; the stored pixels for an image or a video keyframe).
	Size vision.Size
	// Vector is true when Render can re-render any region sharper than the raw pixels (a PDF page).
	Vector bool
}

// PageRenderer draws units. For a PDF page it renders with MuPDF at whatever resolution out needs (a true zoom); for
// an image or a video keyframe it crops and scales the stored pixels.
type PageRenderer interface {
	PageInfo(ctx context.Context, unitID string) (PageInfo, error)
	// Render draws region (in raw page pixels, see PageInfo.Size; the zero Rect means the whole page) scaled to
	// exactly out.
	Render(ctx context.Context, unitID string, region vision.Rect, out vision.Size) (image.Image, error)
}

// Frame is one sampled video frame.
type Frame struct {
	TimestampS float64 // seconds from the start of the clip
	Image      image.Image
}

// FrameSource samples a video clip's frames (VimRAG shows clips as up to 32 frames at 1 fps, labelled by time).
// Optional: without one, a video unit is shown as its page image.
type FrameSource interface {
	Frames(ctx context.Context, unitID string, fps float64, maxFrames int) ([]Frame, error)
}

// Grounder checks an answer's claims against its evidence without a model call. trail holds the run's results, crop
// and answer events so far, in order: where the agent looked and what it cited.
type Grounder interface {
	Ground(ctx context.Context, answer AnswerInfo, trail []Event) (*GroundingInfo, error)
}

// BlobStore keeps the images the agent sends (pages as sent, crops, memory images) so events can name them.
// id is the lowercase hex SHA-256 of data; storing the same id twice must be harmless.
type BlobStore interface {
	PutBlob(ctx context.Context, id, mime string, data []byte) error
}

// MemBlobs is an in-memory BlobStore, for tests and for runs nobody stores.
type MemBlobs struct {
	mu sync.Mutex
	m  map[string][]byte
}

// PutBlob stores data under id.
func (b *MemBlobs) PutBlob(_ context.Context, id, _ string, data []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string][]byte{}
	}
	b.m[id] = data
	return nil
}

// Get returns a stored blob.
func (b *MemBlobs) Get(id string) ([]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, ok := b.m[id]
	return d, ok
}

// Len is the number of stored blobs.
func (b *MemBlobs) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.m)
}
