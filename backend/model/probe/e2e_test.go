package probe

import (
	"context"
	"strings"
	"testing"
	"time"

	"proofglass/backend/agent"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/model/ollama"
)

// TestE2EProbesOnRealOllama: the probes against the real Ollama of ../shared/tools/ollama-e2e — tiny-vision takes
// images (they cost prompt tokens), several per request, and a 32,768-token context; tiny-bigram takes none.
func TestE2EProbesOnRealOllama(t *testing.T) {
	c, err := ollama.New(modeltest.OllamaURL(t), ollama.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	vis := byName(Run(ctx, c, "tiny-vision", Options{Mode: agent.ModeVRAG, Kind: "ollama"}))
	for _, name := range []string{"vision", "images", "context"} {
		r := vis[name]
		t.Logf("tiny-vision %s: ok=%v %s", name, r.OK, r.Detail)
		if !r.OK {
			t.Errorf("tiny-vision %s: %+v", name, r)
		}
	}
	if !strings.Contains(vis["vision"].Detail, "costs") || !strings.Contains(vis["context"].Detail, "supports 32768") {
		t.Errorf("details: %q / %q", vis["vision"].Detail, vis["context"].Detail)
	}
	text := byName(Run(ctx, c, "tiny-bigram", Options{Mode: agent.ModeVRAG, Kind: "ollama"}))
	if r := text["vision"]; r.OK || !strings.Contains(r.Fix, "qwen2.5vl") {
		t.Errorf("tiny-bigram vision: %+v", r)
	}
	// Ask for a short fixed window on a model whose runs need more: the profile setting is named with its fix.
	short := byName(Run(ctx, c, "tiny-vision", Options{Mode: agent.ModeVRAG, Kind: "ollama", ContextLength: 4096}))
	if r := short["context"]; r.OK || !strings.Contains(r.Fix, "context length to 0") {
		t.Errorf("short profile context: %+v", r)
	}
}
