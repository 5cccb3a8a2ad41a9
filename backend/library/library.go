// Package library opens one Loupe data directory with the long-lived parts that the desktop app, the CLI and the
// HTTP server share: configuration, knowledge base, searcher, PDF renderer and the agent's dependencies.
package library

import (
	"context"
	"fmt"
	"log/slog"

	"loupe/backend/config"
	"loupe/backend/kb"
	"loupe/backend/kbagent"
	"loupe/backend/model"
	"loupe/backend/model/provider"
	"loupe/backend/pdf"
	"loupe/backend/search"
)

// renderCacheBytes bounds the cache of on-demand page renders held in memory.
const renderCacheBytes = 64 << 20

// Library is an open data directory.
type Library struct {
	Config *config.Config
	KB     *kb.KB
	Search *search.Searcher
	PDF    *pdf.Renderer

	pdfClient *pdf.Client
}

// Open loads the configuration of dataDir ("" = LOUPE_DATA or the OS default) and opens its knowledge base.
func Open(ctx context.Context, dataDir string) (*Library, error) {
	cfg, err := config.Load(dataDir)
	if err != nil {
		return nil, err
	}
	return OpenConfig(ctx, cfg)
}

// OpenConfig opens the knowledge base of an already loaded configuration.
func OpenConfig(ctx context.Context, cfg *config.Config) (*Library, error) {
	k, err := kb.Open(ctx, cfg.DBPath(), cfg.BlobDir())
	if err != nil {
		return nil, err
	}
	pc := pdf.NewClient(pdf.Options{})
	return &Library{
		Config:    cfg,
		KB:        k,
		Search:    search.New(k, search.Options{Embedders: search.ConfigResolver(cfg), IndexDir: cfg.IndexDir()}),
		PDF:       pdf.NewRenderer(pc, pdf.NewCache(renderCacheBytes), 4),
		pdfClient: pc,
	}, nil
}

// Close stops the PDF worker and closes the knowledge base.
func (l *Library) Close() error {
	l.pdfClient.Close()
	return l.KB.Close()
}

// Chat returns the chat client of a provider profile ("" = the agent default) and the model to use: modelName, or
// the profile's chat model.
func (l *Library) Chat(profile, modelName string) (model.Chat, config.Provider, string, error) {
	p, err := l.Config.Provider(profile)
	if err != nil {
		return nil, p, "", err
	}
	if modelName == "" {
		modelName = p.ChatModel
	}
	if modelName == "" {
		return nil, p, "", fmt.Errorf("provider %s has no chat model: choose one, or set chat_model in %s", p.Name, l.Config.SettingsPath())
	}
	set, err := provider.New(p, provider.Options{})
	if err != nil {
		return nil, p, "", err
	}
	if set.Chat == nil {
		return nil, p, "", fmt.Errorf("provider %s (%s) cannot chat", p.Name, p.Kind)
	}
	return set.Chat, p, modelName, nil
}

// AgentDeps are the parts an agent run needs, with chat as its model.
func (l *Library) AgentDeps(chat model.Chat, log *slog.Logger) kbagent.Deps {
	if log == nil {
		log = slog.Default()
	}
	return kbagent.Deps{KB: l.KB, Search: l.Search, PDF: l.PDF, Chat: chat, Log: log}
}
