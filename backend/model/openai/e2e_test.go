package openai

import (
	"errors"
	"testing"

	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
)

// e2eClient talks to the real Ollama of ../shared/tools/ollama-e2e through its OpenAI-compatible /v1, or skips.
func e2eClient(t *testing.T) *Client {
	t.Helper()
	c, err := New(modeltest.OllamaURL(t)+"/v1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestE2EChatStreamsDeterministically(t *testing.T) {
	c := e2eClient(t)
	run := func() (model.Delta, int) {
		st, err := c.Chat(modeltest.E2EContext(t), model.Request{Model: "tiny-bigram", Messages: userText("Tell me about the war."),
			Options: model.Options{Temperature: ptr(0.0), MaxTokens: 24}})
		if err != nil {
			t.Fatal(err)
		}
		return modeltest.Drain(t, st)
	}
	a, chunks := run()
	if chunks < 2 || a.Content == "" {
		t.Errorf("want a streamed reply in several chunks, got %d: %q", chunks, a.Content)
	}
	if !a.Done || (a.FinishReason != "stop" && a.FinishReason != "length") {
		t.Errorf("done %v finish %q", a.Done, a.FinishReason)
	}
	if a.Usage == nil || a.Usage.PromptTokens == 0 || a.Usage.CompletionTokens == 0 {
		t.Errorf("usage %+v (stream_options.include_usage)", a.Usage)
	}
	if b, _ := run(); a.Content != b.Content {
		t.Errorf("temperature 0 must repeat: %q vs %q", a.Content, b.Content)
	}
}

func TestE2EImageAsDataURLReachesVisionModel(t *testing.T) {
	c := e2eClient(t)
	img := modeltest.ChartPNG(t)
	prompt := func(parts ...model.Part) int {
		st, err := c.Chat(modeltest.E2EContext(t), model.Request{Model: "tiny-vision", Messages: []model.Message{{Role: model.RoleUser, Parts: parts}},
			Options: model.Options{Temperature: ptr(0.0), MaxTokens: 4}})
		if err != nil {
			t.Fatal(err)
		}
		d, err := model.Collect(st)
		if err != nil {
			t.Fatal(err)
		}
		if d.Usage == nil {
			t.Fatal("no usage in the stream")
		}
		return d.Usage.PromptTokens
	}
	without := prompt(model.Part{Text: "What is this?"})
	with := prompt(model.Part{Text: "What is this?"}, model.Part{Image: img})
	t.Logf("prompt tokens: %d with the image, %d without", with, without)
	if with <= without {
		t.Errorf("prompt tokens with the image %d, without %d: the image did not reach the model", with, without)
	}
}

func TestE2EEmbeddings(t *testing.T) {
	c := e2eClient(t)
	e := c.Embedder("glove-embed", false)
	vs, err := e.Embed(modeltest.E2EContext(t), []model.EmbedInput{{Text: "cat"}, {Text: "kitten"}, {Text: "stock"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 3 || e.Dim() != 100 {
		t.Fatalf("%d vectors of dim %d", len(vs), e.Dim())
	}
	ck, cs := modeltest.Cosine(vs[0], vs[1]), modeltest.Cosine(vs[0], vs[2])
	t.Logf("cos(cat,kitten)=%.3f cos(cat,stock)=%.3f", ck, cs)
	if ck <= cs+0.1 {
		t.Errorf("cos(cat,kitten)=%.3f should exceed cos(cat,stock)=%.3f", ck, cs)
	}
}

func TestE2EModelsAndErrors(t *testing.T) {
	c := e2eClient(t)
	infos, err := c.Models(modeltest.E2EContext(t))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]model.Info{}
	for _, i := range infos {
		names[i.Name] = i
	}
	for _, n := range []string{"tiny-bigram:latest", "glove-embed:latest", "tiny-vision:latest"} {
		if _, ok := names[n]; !ok {
			t.Errorf("/v1/models lacks %s", n)
		}
	}
	if !names["glove-embed:latest"].Embedding || names["glove-embed:latest"].Chat {
		t.Errorf("name-based guess for glove-embed: %+v", names["glove-embed:latest"])
	}
	_, err = c.Chat(modeltest.E2EContext(t), model.Request{Model: "no-such-model", Messages: userText("hi")})
	if !errors.Is(err, model.ErrModelNotFound) {
		t.Errorf("unknown model: err = %v", err)
	}
	_, err = c.Chat(modeltest.E2EContext(t), model.Request{Model: "glove-embed", Messages: userText("hi")})
	if !errors.Is(err, model.ErrNoChat) {
		t.Errorf("chat to glove-embed: err = %v, want ErrNoChat", err)
	}
	_, err = c.Embedder("no-such-model", false).Embed(modeltest.E2EContext(t), []model.EmbedInput{{Text: "cat"}})
	if !errors.Is(err, model.ErrModelNotFound) {
		t.Errorf("embed with unknown model: err = %v", err)
	}
}
