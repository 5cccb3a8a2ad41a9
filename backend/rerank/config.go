package rerank

import (
	"fmt"

	"proofglass/backend/config"
	"proofglass/backend/model/provider"
)

// FromConfig builds the reranker the settings configure and returns it with its settings; the Reranker is nil when
// reranking is off.
func FromConfig(c *config.Config) (Reranker, config.Rerank, error) {
	r, p, err := c.RerankProvider()
	if err != nil || !r.Enabled() {
		return nil, r, err
	}
	rr, err := New(r, p)
	return rr, r, err
}

// New builds the reranker of settings r served by profile p (with its key joined in).
func New(r config.Rerank, p config.Provider) (Reranker, error) {
	switch r.Kind {
	case config.RerankEndpoint:
		return NewEndpoint(p.BaseURL, r.Model, EndpointOptions{APIKey: p.APIKey, Images: r.Images})
	case config.RerankDashScope:
		return NewDashScope(p.BaseURL, r.Model, p.APIKey, nil)
	case config.RerankChat:
		set, err := provider.New(p, provider.Options{})
		if err != nil {
			return nil, fmt.Errorf("chat rerank: %w", err)
		}
		m := r.Model
		if m == "" {
			m = p.ChatModel
		}
		return NewChat(set.Chat, p.Name, m)
	}
	return nil, fmt.Errorf("reranker: unknown kind %q (want endpoint, dashscope or chat)", r.Kind)
}
