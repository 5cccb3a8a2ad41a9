package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	goopenai "github.com/sashabaranov/go-openai"
	"golang.org/x/sync/errgroup"

	"proofglass/backend/model"
	"proofglass/backend/model/transport"
)

// Embedder embeds with POST /embeddings. A multimodal embedder (vLLM serving GVE, Qwen3-VL-Embedding, VLM2Vec, …)
// sends every input, text included, in vLLM's chat-style body {"messages": […]}, so queries and pages go through
// the same chat template; a text embedder sends batches of strings through go-openai.
type Embedder struct {
	c      *Client
	model  string
	images bool
	dim    atomic.Int64
}

var _ model.Embedder = (*Embedder)(nil)

// Embedder returns an embedder for modelName; images selects the multimodal (chat-style) request form.
func (c *Client) Embedder(modelName string, images bool) *Embedder {
	return &Embedder{c: c, model: modelName, images: images}
}

func (e *Embedder) ModelID() string      { return e.c.provider + "/" + e.model }
func (e *Embedder) Dim() int             { return int(e.dim.Load()) }
func (e *Embedder) SupportsImages() bool { return e.images }

// textBatch bounds one request: servers cap the number of inputs (OpenAI 2048, DashScope 10, vLLM by memory).
const textBatch = 64

// Embed returns one vector per input, in order.
func (e *Embedder) Embed(ctx context.Context, inputs []model.EmbedInput) ([][]float32, error) {
	out := make([][]float32, len(inputs))
	if e.images {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(4)
		for i, in := range inputs {
			g.Go(func() error {
				v, err := e.embedOne(gctx, in)
				out[i] = v
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		return out, e.check(out)
	}
	for start := 0; start < len(inputs); start += textBatch {
		end := min(start+textBatch, len(inputs))
		texts := make([]string, 0, end-start)
		for i, in := range inputs[start:end] {
			if in.Image != nil {
				return nil, fmt.Errorf("embed input %d with %s: %w (configure a multimodal embedding model)", start+i, e.ModelID(), model.ErrNoVision)
			}
			texts = append(texts, in.Text)
		}
		resp, err := e.c.oa.CreateEmbeddings(ctx, goopenai.EmbeddingRequestStrings{Input: texts,
			Model: goopenai.EmbeddingModel(e.model), EncodingFormat: goopenai.EmbeddingEncodingFormatFloat})
		if err != nil {
			return nil, e.c.mapGoOpenAIError("embed", e.model, err)
		}
		if len(resp.Data) != len(texts) {
			return nil, fmt.Errorf("embed with %s: server returned %d vectors for %d inputs", e.ModelID(), len(resp.Data), len(texts))
		}
		for _, d := range resp.Data {
			if d.Index < 0 || d.Index >= len(texts) {
				return nil, fmt.Errorf("embed with %s: server returned index %d for %d inputs", e.ModelID(), d.Index, len(texts))
			}
			out[start+d.Index] = d.Embedding
		}
	}
	return out, e.check(out)
}

// check verifies that every vector has the same dimension and records it.
func (e *Embedder) check(vs [][]float32) error {
	for i, v := range vs {
		if len(v) == 0 {
			return fmt.Errorf("embed with %s: input %d got an empty vector", e.ModelID(), i)
		}
		if d := e.dim.Load(); d == 0 {
			e.dim.Store(int64(len(v)))
		} else if int64(len(v)) != d {
			return fmt.Errorf("embed with %s: input %d has dimension %d, expected %d", e.ModelID(), i, len(v), d)
		}
	}
	return nil
}

// embedOne sends one input in vLLM's chat-style embedding request.
func (e *Embedder) embedOne(ctx context.Context, in model.EmbedInput) ([]float32, error) {
	var parts []goopenai.ChatMessagePart
	if in.Image != nil {
		parts = append(parts, goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeImageURL,
			ImageURL: &goopenai.ChatMessageImageURL{URL: dataURL(in.Image)}})
	}
	if in.Text != "" || in.Image == nil {
		parts = append(parts, goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeText, Text: in.Text})
	}
	body := map[string]any{
		"model":           e.model,
		"messages":        []goopenai.ChatCompletionMessage{{Role: "user", MultiContent: parts}},
		"encoding_format": "float",
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode embedding request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.c.base+"/embeddings", bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("build embedding request: %w", err)
	}
	e.c.setHeaders(req.Header)
	resp, err := e.c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("embed with %s at %s: %w", e.ModelID(), e.c.base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, e.c.mapError("embed", e.model, transport.ReadStatusError(resp), in.Image != nil)
	}
	var r goopenai.EmbeddingResponse
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, fmt.Errorf("decode embedding response from %s: %w", e.c.base, err)
	}
	if len(r.Data) == 0 {
		return nil, fmt.Errorf("embed with %s: response has no data", e.ModelID())
	}
	return r.Data[0].Embedding, nil
}

// Models lists GET /models. OpenAI-compatible servers do not report capabilities, so they are guessed from the
// name: "embed" means an embedding model, "vl"/"vision"/"omni" a vision model.
func (c *Client) Models(ctx context.Context) ([]model.Info, error) {
	l, err := c.oa.ListModels(ctx)
	if err != nil {
		return nil, c.mapGoOpenAIError("list models", "", err)
	}
	out := make([]model.Info, 0, len(l.Models))
	for _, m := range l.Models {
		out = append(out, GuessInfo(c.provider, m.ID))
	}
	return out, nil
}

// GuessInfo describes a model from its name alone.
func GuessInfo(provider, name string) model.Info {
	n := strings.ToLower(name)
	embed := strings.Contains(n, "embed") || strings.Contains(n, "gve") || strings.Contains(n, "colqwen") || strings.Contains(n, "bge")
	vision := strings.Contains(n, "-vl") || strings.Contains(n, "vl-") || strings.Contains(n, "vision") ||
		strings.Contains(n, "omni") || strings.Contains(n, "gpt-4o") || strings.Contains(n, "llava") || strings.Contains(n, "gemma3") ||
		strings.Contains(n, "qwen3.5") || strings.Contains(n, "qvq")
	return model.Info{Name: name, Provider: provider, Chat: !embed, Embedding: embed, Vision: vision,
		Thinking: strings.Contains(n, "qwen3") || strings.Contains(n, "thinking") || strings.Contains(n, "r1")}
}
