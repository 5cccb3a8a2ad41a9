package ollama

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/ollama/ollama/api"

	"loupe/backend/model"
)

// Embedder embeds texts with /api/embed. Ollama's embedding endpoint takes no images.
type Embedder struct {
	c     *Client
	model string
	dim   atomic.Int64
}

var _ model.Embedder = (*Embedder)(nil)

// Embedder returns an embedder for modelName.
func (c *Client) Embedder(modelName string) *Embedder { return &Embedder{c: c, model: modelName} }

func (e *Embedder) ModelID() string      { return e.c.provider + "/" + e.model }
func (e *Embedder) Dim() int             { return int(e.dim.Load()) }
func (e *Embedder) SupportsImages() bool { return false }

const embedBatch = 64

// Embed returns one vector per input, in order.
func (e *Embedder) Embed(ctx context.Context, inputs []model.EmbedInput) ([][]float32, error) {
	out := make([][]float32, 0, len(inputs))
	for start := 0; start < len(inputs); start += embedBatch {
		end := min(start+embedBatch, len(inputs))
		texts := make([]string, 0, end-start)
		for i, in := range inputs[start:end] {
			if in.Image != nil {
				return nil, fmt.Errorf("embed input %d with %s: %w (Ollama embeds text only)", start+i, e.ModelID(), model.ErrNoVision)
			}
			texts = append(texts, in.Text)
		}
		r, err := e.c.api.Embed(ctx, &api.EmbedRequest{Model: e.model, Input: texts, KeepAlive: e.c.keep})
		if err != nil {
			return nil, e.c.mapError("embed", e.model, err, false)
		}
		if len(r.Embeddings) != len(texts) {
			return nil, fmt.Errorf("embed with %s: server returned %d vectors for %d inputs", e.ModelID(), len(r.Embeddings), len(texts))
		}
		for i, v := range r.Embeddings {
			if d := e.dim.Load(); d == 0 {
				e.dim.Store(int64(len(v)))
			} else if int64(len(v)) != d {
				return nil, fmt.Errorf("embed with %s: input %d has dimension %d, expected %d", e.ModelID(), start+i, len(v), d)
			}
		}
		out = append(out, r.Embeddings...)
	}
	return out, nil
}
