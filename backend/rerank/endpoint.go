package rerank

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"proofglass/backend/model/transport"
)

// Endpoint is a Jina/Cohere-style rerank endpoint, as vLLM serves text and multimodal rerankers at /rerank,
// /v1/rerank and /v2/rerank: {model, query, documents, top_n} → {results: [{index, relevance_score}]}.
type Endpoint struct {
	url, key, model string
	images          bool
	http            *http.Client
}

var _ Reranker = (*Endpoint)(nil)

// EndpointOptions configure an Endpoint.
type EndpointOptions struct {
	APIKey string
	// Images sends each page's image (a data URL in vLLM's multimodal document shape) instead of its text.
	Images     bool
	HTTPClient *http.Client // nil: the rerank transport
}

// NewEndpoint returns the reranker at baseURL (a profile's base URL such as http://127.0.0.1:8000/v1; /rerank is
// appended unless the URL already ends in it) for modelName.
func NewEndpoint(baseURL, modelName string, o EndpointOptions) (*Endpoint, error) {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("rerank endpoint %q is not an http(s) URL", baseURL)
	}
	if modelName == "" {
		return nil, fmt.Errorf("rerank endpoint %s: no model: set rerank.model to the reranker the server serves", baseURL)
	}
	full := strings.TrimRight(u.String(), "/")
	if !strings.HasSuffix(full, "/rerank") {
		full += "/rerank"
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = transport.NewClient(httpConfig())
	}
	return &Endpoint{url: full, key: o.APIKey, model: modelName, images: o.Images, http: hc}, nil
}

// Name is "rerank endpoint MODEL at URL".
func (e *Endpoint) Name() string { return fmt.Sprintf("rerank endpoint %s at %s", e.model, e.url) }

type endpointRequest struct {
	Model     string `json:"model"`
	Query     string `json:"query"`
	Documents []any  `json:"documents"` // strings, or {"content": [parts]} for multimodal rerankers
	TopN      int    `json:"top_n"`
}

// contentDoc is one multimodal document: its parts in the chat completions' shape.
type contentDoc struct {
	Content []contentPart `json:"content"`
}

type contentPart struct {
	Type     string    `json:"type"` // "text" | "image_url"
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type endpointResponse struct {
	Results *[]Score `json:"results"`
}

// Rerank sends every candidate in one request.
func (e *Endpoint) Rerank(ctx context.Context, query string, cands []Candidate) ([]Score, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	req := endpointRequest{Model: e.model, Query: query, TopN: len(cands), Documents: make([]any, len(cands))}
	for i, c := range cands {
		req.Documents[i] = c.Text
		if !e.images || c.Image == nil {
			continue
		}
		img, err := c.Image(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: page image of candidate %d: %w", e.Name(), i, err)
		}
		if img != nil {
			url := "data:" + img.MIME + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
			req.Documents[i] = contentDoc{Content: []contentPart{{Type: "image_url", ImageURL: &imageURL{URL: url}}}}
		}
	}
	var resp endpointResponse
	if err := postJSON(ctx, e.http, e.url, e.key, req, &resp); err != nil {
		return nil, fmt.Errorf("%s: %w", e.Name(), err)
	}
	if resp.Results == nil {
		return nil, fmt.Errorf("%s: %w: no results", e.Name(), ErrMalformed)
	}
	if err := checkScores(len(cands), *resp.Results); err != nil {
		return nil, fmt.Errorf("%s: %w", e.Name(), err)
	}
	return *resp.Results, nil
}
