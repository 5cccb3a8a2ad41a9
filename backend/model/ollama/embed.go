package ollama

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"proofglass/backend/model"
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
		vecs, err := e.embedTexts(ctx, texts)
		if err != nil {
			return nil, err
		}
		for i, v := range vecs {
			if d := e.dim.Load(); d == 0 {
				e.dim.Store(int64(len(v)))
			} else if int64(len(v)) != d {
				return nil, fmt.Errorf("embed with %s: input %d has dimension %d, expected %d", e.ModelID(), start+i, len(v), d)
			}
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// minEmbedChars is where shortening an over-long input stops.
const minEmbedChars = 256

// embedTexts embeds one batch. Ollama truncates long inputs itself, but some models' tokenizers still overflow
// the context ("the input length exceeds the context length"); then each input is sent alone, and one that still
// overflows is cut in half until it fits: a page gets a vector of its start rather than failing its document.
func (e *Embedder) embedTexts(ctx context.Context, texts []string) ([][]float32, error) {
	truncate := true
	r, err := e.c.api.Embed(ctx, &api.EmbedRequest{Model: e.model, Input: texts, KeepAlive: e.c.keep, Truncate: &truncate})
	if err != nil && strings.Contains(err.Error(), "exceeds the context length") {
		if len(texts) > 1 {
			out := make([][]float32, 0, len(texts))
			for _, t := range texts {
				v, err := e.embedTexts(ctx, []string{t})
				if err != nil {
					return nil, err
				}
				out = append(out, v...)
			}
			return out, nil
		}
		if n := len(texts[0]); n > minEmbedChars {
			return e.embedTexts(ctx, []string{cutUTF8(texts[0], n/2)})
		}
	}
	if err != nil {
		return nil, e.c.mapError("embed", e.model, err, false)
	}
	if len(r.Embeddings) != len(texts) {
		return nil, fmt.Errorf("embed with %s: server returned %d vectors for %d inputs", e.ModelID(), len(r.Embeddings), len(texts))
	}
	return r.Embeddings, nil
}

// cutUTF8 returns the longest prefix of s of at most n bytes that ends on a rune boundary.
func cutUTF8(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
