package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"proofglass/backend/config"
	"proofglass/backend/glove"
	"proofglass/backend/model"
	"proofglass/backend/model/builtin"
)

// Resolver returns the embedder for a model id as stored in a collection ("builtin/glove-100d",
// "ollama/nomic-embed-text"): search embeds queries with it, ingest embeds units.
type Resolver func(ctx context.Context, modelID string) (model.Embedder, error)

// ErrNoEmbedder is returned by a Resolver that does not know a model id.
var ErrNoEmbedder = errors.New("search: no embedder configured for this model")

// BuiltinResolver knows only the built-in GloVe embedder.
func BuiltinResolver(_ context.Context, modelID string) (model.Embedder, error) {
	if modelID == glove.ModelID {
		return builtin.New(), nil
	}
	return nil, fmt.Errorf("%s: %w", modelID, ErrNoEmbedder)
}

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
		set, err := New(p, Options{})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		if set.Embedder == nil {
			return nil, fmt.Errorf("%s: profile %s has no embedder: %w", id, name, ErrNoEmbedder)
		}
		return set.Embedder, nil
	}
}
