// Package rerank reorders the first stage's top pages with a reranker: a Jina/Cohere-style /rerank endpoint (vLLM),
// DashScope's text-rerank service, or the chat model ranking page images listwise.
package rerank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"proofglass/backend/model"
	"proofglass/backend/model/transport"
)

// Candidate is one first-stage page to rerank.
type Candidate struct {
	Text string // the page's text (text layer, OCR or transcript)
	// Image draws the page for rerankers that look at pages; nil when there is nothing to draw. It is called only
	// by those rerankers, so text rerankers never render.
	Image func(ctx context.Context) (*model.Image, error)
}

// Score is a reranker's relevance of the candidate at Index (higher is more relevant). A reranker may leave
// candidates out; they keep their first-stage order after the scored ones.
type Score struct {
	Index     int     `json:"index"`
	Relevance float64 `json:"relevance_score"`
}

// Reranker scores candidates against a query.
type Reranker interface {
	Rerank(ctx context.Context, query string, cands []Candidate) ([]Score, error)
	// Name says which reranker this is in errors and results: kind, model and server.
	Name() string
}

// ErrMalformed is a reranker answer that cannot be read as scores of the candidates sent.
var ErrMalformed = errors.New("malformed rerank response")

// Order returns the candidates' indexes best first: scored candidates by descending relevance (ties keep the first
// stage's order), then the unscored ones in their first-stage order. scores must name indexes below n.
func Order(n int, scores []Score) []int {
	best := make([]float64, n)
	has := make([]bool, n)
	for _, s := range scores {
		if s.Index < 0 || s.Index >= n {
			continue
		}
		if !has[s.Index] || s.Relevance > best[s.Index] {
			best[s.Index], has[s.Index] = s.Relevance, true
		}
	}
	out := make([]int, 0, n)
	for i := range n {
		if has[i] {
			out = append(out, i)
		}
	}
	// insertion sort keeps ties stable; n is a few dozen
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && best[out[j]] > best[out[j-1]]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	for i := range n {
		if !has[i] {
			out = append(out, i)
		}
	}
	return out
}

// checkScores rejects scores naming candidates that were not sent.
func checkScores(n int, scores []Score) error {
	for _, s := range scores {
		if s.Index < 0 || s.Index >= n {
			return fmt.Errorf("%w: index %d of %d candidates", ErrMalformed, s.Index, n)
		}
	}
	return nil
}

// httpConfig is the transport of the HTTP rerankers: a search waits on them, so a down server fails fast and a 5xx
// is retried once.
func httpConfig() transport.Config {
	return transport.Config{ConnectTimeout: 5 * time.Second, HeaderTimeout: 2 * time.Minute, IdleTimeout: time.Minute,
		MaxRetries: 1, BaseBackoff: 200 * time.Millisecond, MaxBackoff: time.Second, MaxRetryAfter: 5 * time.Second}
}

// maxResponse bounds a rerank answer read into memory.
const maxResponse = 8 << 20

// postJSON sends body to url with the key as a bearer token and decodes a 2xx answer into out; a non-2xx answer is a
// *transport.StatusError with the key redacted.
func postJSON(ctx context.Context, hc *http.Client, url, key string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		se := transport.ReadStatusError(resp)
		se.Message = transport.Redact(se.Message, key)
		return se
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return fmt.Errorf("read response: %w", err)
	}
	if len(data) > maxResponse {
		return fmt.Errorf("%w: larger than %d bytes", ErrMalformed, maxResponse)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return nil
}

// Check runs r once over two sample texts, as the settings screen's and `proofglass rerank test`'s check: it
// reports whether r put the text that answers the sample question first.
func Check(ctx context.Context, r Reranker) (sensible bool, err error) {
	scores, err := r.Rerank(ctx, "What is the capital of France?", []Candidate{
		{Text: "Berlin is the capital and largest city of Germany."},
		{Text: "Paris is the capital of France and its largest city."},
	})
	if err != nil {
		return false, err
	}
	return Order(2, scores)[0] == 1, nil
}
