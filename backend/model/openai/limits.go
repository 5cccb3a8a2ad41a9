package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"proofglass/backend/model"
	"proofglass/backend/model/transport"
)

var _ model.LimitsReporter = (*Client)(nil)

// Limits reads the served context length from GET /models, where vLLM gives max_model_len per model (its
// --max-model-len). Other servers list no length: the limits are then empty, not an error.
func (c *Client) Limits(ctx context.Context, name string) (model.Limits, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/models", nil)
	if err != nil {
		return model.Limits{}, fmt.Errorf("build models request: %w", err)
	}
	c.setHeaders(req.Header)
	resp, err := c.http.Do(req)
	if err != nil {
		return model.Limits{}, fmt.Errorf("list models at %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return model.Limits{}, nil // a gateway without GET /models: nothing to say
	}
	if resp.StatusCode/100 != 2 {
		return model.Limits{}, c.mapError("list models", name, transport.ReadStatusError(resp), false)
	}
	var body struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return model.Limits{}, fmt.Errorf("list models at %s: %w", c.base, err)
	}
	for _, m := range body.Data {
		if m.ID == name {
			l := model.Limits{ContextLength: m.MaxModelLen, DefaultContext: m.MaxModelLen}
			if n := strings.ToLower(name); strings.Contains(n, "qwen2.5-vl") || strings.Contains(n, "qwen2-vl") || strings.Contains(n, "vrag") {
				l.PatchFactor = 28
			} else if strings.Contains(n, "qwen3-vl") {
				l.PatchFactor = 32
			}
			return l, nil
		}
	}
	return model.Limits{}, nil
}
