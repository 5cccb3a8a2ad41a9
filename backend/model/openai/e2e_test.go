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
	modeltest.StreamsDeterministically(t, e2eClient(t), "tiny-bigram")
}

func TestE2EImageAsDataURLReachesVisionModel(t *testing.T) {
	modeltest.ImageReachesModel(t, e2eClient(t), "tiny-vision")
}

func TestE2EEmbeddings(t *testing.T) {
	c := e2eClient(t)
	e := c.Embedder("glove-embed", false)
	if dim := modeltest.EmbedsByMeaning(t, e); dim != 100 || e.Dim() != 100 {
		t.Fatalf("dim %d (%d declared)", dim, e.Dim())
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
