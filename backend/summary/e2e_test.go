package summary

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/model/ollama"
)

// usageOf passes a chat model's streams through and keeps the last usage the server reported.
type usageOf struct {
	chat  model.Chat
	mu    sync.Mutex
	usage *model.Usage
}

type usageStream struct {
	model.Stream
	u *usageOf
}

func (c *usageOf) Chat(ctx context.Context, req model.Request) (model.Stream, error) {
	st, err := c.chat.Chat(ctx, req)
	if err != nil {
		return nil, err
	}
	return usageStream{st, c}, nil
}

func (s usageStream) Current() model.Delta {
	d := s.Stream.Current()
	if d.Usage != nil {
		s.u.mu.Lock()
		s.u.usage = d.Usage
		s.u.mu.Unlock()
	}
	return d
}

// TestE2ESummarizeWithOllama summarises a real report with the harness's real Ollama and its tiny generated chat
// model (tiny-bigram, whose words are no summary): the request reaches the server sized to the 2,048-token window
// the model loads with — the server's own count of the prompt fits — and the reply is either read and grounded or
// refused as no summary, in bounded time. Needs OLLAMA_HOST (export "$(../shared/tools/ollama-e2e/up.sh)").
func TestE2ESummarizeWithOllama(t *testing.T) {
	c, err := ollama.New(modeltest.OllamaURL(t), ollama.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k, ids := ingested(t, "pdf/real/blood_loss_report.pdf")
	chat := &usageOf{chat: c}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	s, err := Summarize(ctx, k, chat, ids["blood_loss_report.pdf"], Options{Model: "tiny-bigram", MaxTokens: 120})
	took := time.Since(start)
	if err != nil && !strings.Contains(err.Error(), "holds no summary") {
		t.Fatalf("summarize with tiny-bigram: %v", err)
	}
	chat.mu.Lock()
	u := chat.usage
	chat.mu.Unlock()
	if u == nil || u.PromptTokens == 0 {
		t.Fatalf("the server reported no usage: %+v", u)
	}
	if u.PromptTokens+120 > 2048 {
		t.Errorf("the server counted %d prompt tokens: with the 120-token reply over the 2,048 window", u.PromptTokens)
	}
	t.Logf("tiny-bigram: summary in %v (pages read %v, %d prompt tokens by the server's count, %d sentences, %d key figures, %d of %d figures grounded; err %v)",
		took.Round(time.Millisecond), s.PagesRead, u.PromptTokens, len(s.Sentences), len(s.KeyFigures), s.Grounded, s.Figures, err)
	t.Logf("shrunk %d times", s.Shrunk)
}
