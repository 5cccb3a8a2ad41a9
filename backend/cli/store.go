package cli

import (
	"context"

	"github.com/spf13/cobra"

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

// WithKB opens the knowledge base for the length of fn, the way most read-only subcommands use it.
func (g *Globals) WithKB(cmd *cobra.Command, fn func(ctx context.Context, k *kb.KB) error) error {
	ctx := cmd.Context()
	_, k, err := g.Open(ctx)
	if err != nil {
		return err
	}
	defer k.Close()
	return fn(ctx, k)
}

// WithLibrary opens the data directory's library (searcher, page cache, ingesters) for the length of fn.
func (g *Globals) WithLibrary(cmd *cobra.Command, fn func(ctx context.Context, lib *library.Library) error) error {
	ctx := cmd.Context()
	lib, err := g.Library(ctx)
	if err != nil {
		return err
	}
	defer lib.Close()
	return fn(ctx, lib)
}
