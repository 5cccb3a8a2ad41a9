package search

import (
	"context"
	"fmt"
	"strings"

	"proofglass/backend/config"
	"proofglass/backend/glove"
	"proofglass/backend/model"
	"proofglass/backend/model/provider"
)

// ConfigResolver resolves "profile/model" ids through the configured provider profiles, so a collection pinned to
// "ollama/nomic-embed-text" embeds its queries with that profile's server; the built-in id needs no profile.
func ConfigResolver(cfg *config.Config) Resolver {
	return func(ctx context.Context, id string) (model.Embedder, error) {
		if id == glove.ModelID {
			return BuiltinResolver(ctx, id)
		}
		name, modelName, ok := strings.Cut(id, "/")
		if !ok || modelName == "" {
			return nil, fmt.Errorf("%s: not a profile/model id: %w", id, ErrNoEmbedder)
		}
		p, err := cfg.Provider(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %v: %w", id, err, ErrNoEmbedder)
		}
		p.EmbedModel = modelName
		set, err := provider.New(p, provider.Options{})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		if set.Embedder == nil {
			return nil, fmt.Errorf("%s: profile %s has no embedder: %w", id, name, ErrNoEmbedder)
		}
		return set.Embedder, nil
	}
}
