// Package builtin adapts the offline GloVe embedder to model.Embedder, so Proofglass embeds text with no server.
package builtin

import (
	"context"
	"fmt"

	"proofglass/backend/glove"
	"proofglass/backend/model"
)

var _ model.Embedder = (*Embedder)(nil)

// Embedder is the built-in text embedder ("builtin/glove-100d"). The zero value is ready to use; the word table
// is decoded once per process on the first Embed call.
type Embedder struct{}

// New returns the built-in embedder.
func New() *Embedder { return &Embedder{} }

// Embed embeds each input's text. Texts without any known English word get the all-zero vector (see glove.Table.Embed).
// Image inputs are refused with model.ErrNoVision.
func (e *Embedder) Embed(ctx context.Context, inputs []model.EmbedInput) ([][]float32, error) {
	t, err := glove.Default()
	if err != nil {
		return nil, fmt.Errorf("builtin embedder: %w", err)
	}
	out := make([][]float32, len(inputs))
	for i, in := range inputs {
		if in.Image != nil {
			return nil, fmt.Errorf("builtin embedder: input %d: %w", i, model.ErrNoVision)
		}
		// Long batches of page texts take milliseconds each; stop promptly when the caller gives up.
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("builtin embedder: %w", err)
			}
		}
		out[i] = t.Embed(in.Text)
	}
	return out, nil
}

// ModelID returns "builtin/glove-100d".
func (e *Embedder) ModelID() string { return glove.ModelID }

// Dim returns 100.
func (e *Embedder) Dim() int { return glove.Dim }

// SupportsImages reports false: GloVe embeds words only.
func (e *Embedder) SupportsImages() bool { return false }

// EmbedWindows embeds byte ranges of one text, each exactly as Embed embeds text[w[0]:w[1]], tokenizing and looking
// up the text's words once for all of them (ingest embeds a page whole and as overlapping passages).
func (e *Embedder) EmbedWindows(ctx context.Context, text string, windows [][2]int) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("builtin embedder: %w", err)
	}
	t, err := glove.Default()
	if err != nil {
		return nil, fmt.Errorf("builtin embedder: %w", err)
	}
	d := t.Tokenize(text)
	out := make([][]float32, len(windows))
	for i, w := range windows {
		if w[0] < 0 || w[0] > w[1] || w[1] > len(text) {
			return nil, fmt.Errorf("builtin embedder: window %d:%d of a %d-byte text", w[0], w[1], len(text))
		}
		out[i] = d.Embed(w[0], w[1])
	}
	return out, nil
}
