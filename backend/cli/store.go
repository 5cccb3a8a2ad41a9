package cli

import (
	"context"

	"proofglass/backend/config"
	"proofglass/backend/kb"
	"proofglass/backend/library"
)

// Config loads the configuration of the data directory the flags name.
func (g *Globals) Config() (*config.Config, error) { return config.Load(g.DataDir) }

// Open loads the configuration and opens the knowledge base.
func (g *Globals) Open(ctx context.Context) (*config.Config, *kb.KB, error) {
	cfg, err := g.Config()
	if err != nil {
		return nil, nil, err
	}
	k, err := kb.Open(ctx, cfg.DBPath(), cfg.BlobDir())
	if err != nil {
		return nil, nil, err
	}
	return cfg, k, nil
}

// Library opens the data directory as a library: what a command needs that ingests, deletes or asks.
func (g *Globals) Library(ctx context.Context) (*library.Library, error) {
	cfg, err := g.Config()
	if err != nil {
		return nil, err
	}
	return library.OpenConfig(ctx, cfg)
}
