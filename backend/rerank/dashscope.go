package rerank

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"proofglass/backend/model/transport"
)

// DefaultDashScopeModel is DashScope's multilingual text reranker.
const DefaultDashScopeModel = "gte-rerank-v2"

// dashScopePath is the native text-rerank service, on the same host as compatible mode.
const dashScopePath = "/api/v1/services/rerank/text-rerank/text-rerank"

// DashScope is DashScope's text-rerank service: {model, input: {query, documents}, parameters: {top_n,
// return_documents}} → {output: {results: [{index, relevance_score}]}, usage, request_id}.
type DashScope struct {
	url, key, model string
	http            *http.Client
}

var _ Reranker = (*DashScope)(nil)

// NewDashScope returns the reranker for modelName ("" = gte-rerank-v2). baseURL may be the compatible-mode URL of a
// DashScope profile: only its scheme and host are used.
func NewDashScope(baseURL, modelName, apiKey string, hc *http.Client) (*DashScope, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("dashscope rerank: base URL %q is not an http(s) URL", baseURL)
	}
	if modelName == "" {
		modelName = DefaultDashScopeModel
	}
	if hc == nil {
		hc = transport.NewClient(httpConfig())
	}
	return &DashScope{url: u.Scheme + "://" + u.Host + dashScopePath, key: apiKey, model: modelName, http: hc}, nil
}

// Name is "dashscope rerank MODEL at HOST".
func (d *DashScope) Name() string { return fmt.Sprintf("dashscope rerank %s at %s", d.model, d.url) }

type dashScopeRequest struct {
	Model string `json:"model"`
	Input struct {
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
	} `json:"input"`
	Parameters struct {
		TopN            int  `json:"top_n"`
		ReturnDocuments bool `json:"return_documents"`
	} `json:"parameters"`
}

type dashScopeResponse struct {
	Output *struct {
		Results []Score `json:"results"`
	} `json:"output"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"request_id"`
}

// Rerank sends every candidate's text in one request.
func (d *DashScope) Rerank(ctx context.Context, query string, cands []Candidate) ([]Score, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	if d.key == "" {
		return nil, fmt.Errorf("%s: no API key: store one for the DashScope profile (settings) or set DASHSCOPE_API_KEY", d.Name())
	}
	var req dashScopeRequest
	req.Model = d.model
	req.Input.Query = query
	req.Parameters.TopN = len(cands)
	for _, c := range cands {
		req.Input.Documents = append(req.Input.Documents, c.Text)
	}
	var resp dashScopeResponse
	if err := postJSON(ctx, d.http, d.url, d.key, req, &resp); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name(), err)
	}
	if resp.Code != "" {
		return nil, fmt.Errorf("%s: %s: %s (request %s)", d.Name(), resp.Code, transport.Redact(resp.Message, d.key), resp.RequestID)
	}
	if resp.Output == nil {
		return nil, fmt.Errorf("%s: %w: no output (request %s)", d.Name(), ErrMalformed, resp.RequestID)
	}
	if err := checkScores(len(cands), resp.Output.Results); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name(), err)
	}
	return resp.Output.Results, nil
}
