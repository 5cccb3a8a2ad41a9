package library

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"sync"
	"time"

	"proofglass/backend/model"
	"proofglass/backend/rerank"
	"proofglass/backend/search"
)

// rerankImageWidth is the width pages are drawn at for rerankers that look at them: enough to read a page's
// headings and figures, small enough that a listwise call holds a few dozen.
const rerankImageWidth = 640

// rerankCache keeps the reranker built from the current settings until they (or the profile's key) change.
type rerankCache struct {
	mu       sync.Mutex
	settings string    // the reranker's settings and profiles when last resolved (no keys: settings hold none)
	resolved time.Time // when the profile's key was last read
	key      [32]byte
	stage    *search.RerankStage
}

// rerankKeyRecheck bounds how long a changed API key goes unnoticed: the key is read from the secret store (a
// keyring call) at most this often, not on every search.
const rerankKeyRecheck = 30 * time.Second

// RerankStage is the reranking stage the settings configure, nil when reranking is off; the searcher asks for it on
// every search, so a change in the settings applies to the next one.
func (l *Library) RerankStage(context.Context) (*search.RerankStage, error) {
	cur := l.Config.Current()
	if !cur.Rerank.Enabled() {
		return nil, nil
	}
	settings := fmt.Sprintf("%#v\x00%#v", cur.Rerank, cur.Providers)
	c := &l.rerank
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stage != nil && c.settings == settings && time.Since(c.resolved) < rerankKeyRecheck {
		return c.stage, nil
	}
	r, p, err := l.Config.RerankProvider()
	if err != nil || !r.Enabled() {
		return nil, err
	}
	// The key is hashed with the rest so a new key rebuilds the client; it is never kept in the clear here.
	key := sha256.Sum256(fmt.Appendf(nil, "%#v\x00%s\x00%s\x00%s\x00%s\x00%s", r, p.Name, p.Kind, p.BaseURL, p.ChatModel, p.APIKey))
	if c.stage == nil || c.key != key {
		rr, err := rerank.New(r, p)
		if err != nil {
			return nil, err
		}
		c.key, c.stage = key, &search.RerankStage{Reranker: rr, Depth: r.Depth(), Timeout: r.Timeout()}
	}
	c.settings, c.resolved = settings, time.Now()
	return c.stage, nil
}

// rerankImage draws a unit for rerankers that look at pages.
func (l *Library) rerankImage(ctx context.Context, unitID int64) (*model.Image, error) {
	b, err := l.PageImage(ctx, unitID, rerankImageWidth)
	if err != nil {
		return nil, err
	}
	return &model.Image{Data: b, MIME: http.DetectContentType(b)}, nil
}
