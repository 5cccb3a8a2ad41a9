// Package dashscope adapts Alibaba DashScope: its native multimodal embedding API, and chat through compatible mode.
package dashscope

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"proofglass/backend/model"
	"proofglass/backend/model/openai"
	"proofglass/backend/model/transport"
)

// DefaultBaseURL is DashScope's compatible-mode endpoint (Beijing region); the international one is
// https://dashscope-intl.aliyuncs.com/compatible-mode/v1.
const DefaultBaseURL = "https://dashscope.aliyuncs.com/compatible-mode/v1"

// embedPath is the native multimodal embedding service, on the same host as compatible mode.
const embedPath = "/api/v1/services/embeddings/multimodal-embedding/multimodal-embedding"

// Options configure the adapter.
type Options struct {
	APIKey    string
	Provider  string // profile name; "" = "dashscope"
	Transport transport.Config
	// HTTPClient overrides the client built from Transport (tests).
	HTTPClient *http.Client
	// Dimension asks models that support several (tongyi-embedding-vision-*) for this size; 0 = model default.
	Dimension int
}

// NewChat returns the chat client: DashScope's OpenAI-compatible mode, with its own enable_thinking switch.
func NewChat(baseURL string, o Options) (*openai.Client, error) {
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	return openai.New(baseURL, openai.Options{APIKey: o.APIKey, Dialect: openai.DialectDashScope, Provider: cmp.Or(o.Provider, "dashscope"),
		Transport: o.Transport, HTTPClient: o.HTTPClient})
}

// Embedder calls the multimodal embedding API: text and images (as data URLs) land in one vector space.
type Embedder struct {
	url      string
	key      string
	model    string
	provider string
	dimParam int
	http     *http.Client
	dim      atomic.Int64
}

var _ model.Embedder = (*Embedder)(nil)

// NewEmbedder returns an embedder for modelName (e.g. "multimodal-embedding-v1", "tongyi-embedding-vision-plus").
// baseURL may be the compatible-mode URL of the profile: only its scheme and host are used.
func NewEmbedder(baseURL, modelName string, o Options) (*Embedder, error) {
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	u, err := transport.BaseURL("dashscope", baseURL)
	if err != nil {
		return nil, err
	}
	return &Embedder{url: u.Scheme + "://" + u.Host + embedPath, key: o.APIKey, model: modelName,
		provider: cmp.Or(o.Provider, "dashscope"), dimParam: o.Dimension, http: transport.ClientOr(o.HTTPClient, o.Transport)}, nil
}

func (e *Embedder) ModelID() string      { return e.provider + "/" + e.model }
func (e *Embedder) Dim() int             { return int(e.dim.Load()) }
func (e *Embedder) SupportsImages() bool { return true }

// request is the documented body: {"model", "input": {"contents": [{"text"}|{"image"}…]}, "parameters"}.
type request struct {
	Model      string         `json:"model"`
	Input      input          `json:"input"`
	Parameters map[string]any `json:"parameters,omitempty"`
}

type input struct {
	Contents []content `json:"contents"`
}

type content struct {
	Text  string `json:"text,omitempty"`
	Image string `json:"image,omitempty"` // URL or data:image/…;base64,…
}

// response is the documented answer: {"output": {"embeddings": [{"index", "embedding", "type"}]}, "usage", "request_id"}.
type response struct {
	Output struct {
		Embeddings []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
			Type      string    `json:"type"`
		} `json:"embeddings"`
	} `json:"output"`
	RequestID string `json:"request_id"`
	Code      string `json:"code"`
	Message   string `json:"message"`
}

// Embed sends one input per request — multimodal-embedding-v1 accepts one text, one image or one video per call
// (several contents fuse or are refused, depending on the model) — 4 at a time.
func (e *Embedder) Embed(ctx context.Context, inputs []model.EmbedInput) ([][]float32, error) {
	out := make([][]float32, len(inputs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for i, in := range inputs {
		g.Go(func() error {
			v, err := e.embedOne(gctx, in)
			if err != nil {
				return fmt.Errorf("input %d: %w", i, err)
			}
			out[i] = v
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i, v := range out {
		if d := e.dim.Load(); d == 0 {
			e.dim.Store(int64(len(v)))
		} else if int64(len(v)) != d {
			return nil, fmt.Errorf("dashscope embed with %s: input %d has dimension %d, expected %d", e.ModelID(), i, len(v), d)
		}
	}
	return out, nil
}

func (e *Embedder) embedOne(ctx context.Context, in model.EmbedInput) ([]float32, error) {
	var c content
	switch {
	case in.Image != nil:
		mime := in.Image.MIME
		if mime == "" {
			mime = http.DetectContentType(in.Image.Data)
		}
		c.Image = "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(in.Image.Data)
	default:
		c.Text = in.Text
	}
	body := request{Model: e.model, Input: input{Contents: []content{c}}}
	if e.dimParam > 0 {
		body.Parameters = map[string]any{"dimension": e.dimParam}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode dashscope embedding request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("build dashscope embedding request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if e.key != "" {
		req.Header.Set("Authorization", "Bearer "+e.key)
	}
	resp, err := e.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("dashscope embed with %s: %w", e.ModelID(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		se := transport.ReadStatusError(resp)
		se.Message = transport.Redact(se.Message, e.key)
		if transport.LooksLikeModelNotFound(se.Code, se.Kind, se.Message) || strings.EqualFold(se.Kind, "ModelNotFound") {
			return nil, fmt.Errorf("dashscope embed with %s: %w: %w", e.ModelID(), model.ErrModelNotFound, se)
		}
		return nil, fmt.Errorf("dashscope embed with %s: %w", e.ModelID(), se)
	}
	var r response
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, fmt.Errorf("decode dashscope embedding response: %w", err)
	}
	if r.Code != "" {
		return nil, fmt.Errorf("dashscope embed with %s: %s: %s (request %s)", e.ModelID(), r.Code,
			transport.Redact(r.Message, e.key), r.RequestID)
	}
	for _, em := range r.Output.Embeddings {
		if em.Index == 0 && len(em.Embedding) > 0 {
			return em.Embedding, nil
		}
	}
	return nil, fmt.Errorf("dashscope embed with %s: response has no embedding (request %s)", e.ModelID(), r.RequestID)
}
