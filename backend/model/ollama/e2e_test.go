package ollama

import (
	"errors"
	"math"
	"strings"
	"testing"

	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
)

// e2eClient connects to the real Ollama of ../shared/tools/ollama-e2e (OLLAMA_HOST), or skips.
func e2eClient(t *testing.T) *Client {
	t.Helper()
	c, err := New(modeltest.OllamaURL(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestE2EChatStreamsDeterministically(t *testing.T) {
	modeltest.StreamsDeterministically(t, e2eClient(t), "tiny-bigram")
}

func TestE2EImageReachesVisionModel(t *testing.T) {
	modeltest.ImageReachesModel(t, e2eClient(t), "tiny-vision")
}

func TestE2EEmbedSimilarityOrder(t *testing.T) {
	c := e2eClient(t)
	e := c.Embedder("glove-embed")
	if dim := modeltest.EmbedsByMeaning(t, e); dim != 100 || e.Dim() != 100 || e.ModelID() != "ollama/glove-embed" || e.SupportsImages() {
		t.Fatalf("dim %d (%d declared), id %s", dim, e.Dim(), e.ModelID())
	}
	if _, err := e.Embed(modeltest.E2EContext(t), []model.EmbedInput{{Image: modeltest.ChartPNG(t)}}); !errors.Is(err, model.ErrNoVision) {
		t.Errorf("image embed: err = %v, want ErrNoVision", err)
	}
}

func TestE2EModelsWithCapabilities(t *testing.T) {
	c := e2eClient(t)
	v, err := c.Version(modeltest.E2EContext(t))
	if err != nil || v == "" {
		t.Fatalf("version %q: %v", v, err)
	}
	infos, err := c.Models(modeltest.E2EContext(t))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]model.Info{}
	for _, i := range infos {
		got[i.Name] = i
	}
	want := map[string]model.Info{
		"tiny-bigram:latest": {Chat: true},
		"glove-embed:latest": {Embedding: true},
		"tiny-vision:latest": {Chat: true, Vision: true},
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s not listed (have %d models)", name, len(infos))
			continue
		}
		if g.Chat != w.Chat || g.Vision != w.Vision || g.Embedding != w.Embedding || g.Tools || g.Thinking || g.SizeBytes == 0 || g.Provider != "ollama" {
			t.Errorf("%s: %+v", name, g)
		}
	}
}

func TestE2EErrors(t *testing.T) {
	c := e2eClient(t)
	hi := []model.Message{model.TextMessage(model.RoleUser, "hi")}
	cases := map[string]struct {
		req  model.Request
		want error
	}{
		"unknown model":       {model.Request{Model: "no-such-model", Messages: hi}, model.ErrModelNotFound},
		"chat to an embedder": {model.Request{Model: "glove-embed", Messages: hi}, model.ErrNoChat},
		"image to a text model": {model.Request{Model: "tiny-bigram",
			Messages: []model.Message{{Role: model.RoleUser, Parts: []model.Part{{Text: "hi"}, {Image: modeltest.ChartPNG(t)}}}}}, model.ErrNoVision},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := c.Chat(modeltest.E2EContext(t), tc.req)
			if !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
	// The server refuses tools on a model without them: that 400 comes from Chat, not mid-stream.
	tool := model.Tool{Name: "f", Description: "d", Parameters: []byte(`{"type":"object","properties":{}}`)}
	_, err := c.Chat(modeltest.E2EContext(t), model.Request{Model: "tiny-bigram", Messages: hi, Tools: []model.Tool{tool}})
	if err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("tools on tiny-bigram: err = %v, want the server's 400", err)
	}
	// Think on a model without a thinking mode (the server would answer 400) is left out: the run goes on.
	st, err := c.Chat(modeltest.E2EContext(t), model.Request{Model: "tiny-bigram", Messages: hi, Options: model.Options{Think: ptr(true), MaxTokens: 4}})
	if err != nil {
		t.Errorf("think on tiny-bigram: %v", err)
	} else if _, err := model.Collect(st); err != nil {
		t.Errorf("think on tiny-bigram: %v", err)
	}
	_, err = c.Embedder("no-such-model").Embed(modeltest.E2EContext(t), []model.EmbedInput{{Text: "cat"}})
	if !errors.Is(err, model.ErrModelNotFound) {
		t.Errorf("embed with unknown model: err = %v", err)
	}
}

// A page of numbers overflows glove-embed's 512-token context even with truncation on (the real server answers
// "the input length exceeds the context length"); the embedder must still return a vector for it, in order.
func TestE2EEmbedOverlongInput(t *testing.T) {
	c := e2eClient(t)
	e := c.Embedder("glove-embed")
	long := strings.Repeat("0.871 F. II blood ", 300)
	vs, err := e.Embed(modeltest.E2EContext(t), []model.EmbedInput{{Text: "cat"}, {Text: long}, {Text: "kitten"}})
	if err != nil {
		t.Fatalf("over-long input failed the batch: %v", err)
	}
	if len(vs) != 3 || len(vs[1]) != 100 {
		t.Fatalf("got %d vectors", len(vs))
	}
	// Order kept: the short inputs keep their own vectors.
	solo, _ := e.Embed(modeltest.E2EContext(t), []model.EmbedInput{{Text: "kitten"}})
	for i := range solo[0] {
		if math.Abs(float64(solo[0][i]-vs[2][i])) > 1e-5 {
			t.Fatalf("vector 2 is not kitten's")
		}
	}
}
