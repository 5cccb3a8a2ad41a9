package modeltest

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"proofglass/backend/fixture"
	"proofglass/backend/model"
)

// OllamaURL is the base URL of the real test Ollama (fixture.OllamaHost with its scheme), or skips the test.
func OllamaURL(t testing.TB) string {
	t.Helper()
	h := fixture.OllamaHost(t)
	if !strings.Contains(h, "://") {
		h = "http://" + h
	}
	return h
}

// E2EContext is a context for one call to a real model server, ended after a minute or with the test.
func E2EContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Drain reads a stream to its end: the content joined, the last delta's Done, FinishReason and Usage, and how many
// deltas carried content.
func Drain(t testing.TB, st model.Stream) (model.Delta, int) {
	t.Helper()
	defer st.Close()
	var all model.Delta
	n := 0
	for st.Next() {
		d := st.Current()
		if d.Content != "" {
			n++
		}
		all.Content += d.Content
		if d.Done {
			all.Done, all.FinishReason, all.Usage = true, d.FinishReason, d.Usage
		}
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	return all, n
}

// Cosine is the cosine similarity of two vectors.
func Cosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i] * b[i])
		na += float64(a[i] * a[i])
		nb += float64(b[i] * b[i])
	}
	return d / math.Sqrt(na*nb)
}

// ChartPNG is a small real PNG of the shared test data.
func ChartPNG(t testing.TB) *model.Image {
	t.Helper()
	b, err := os.ReadFile(fixture.Path(t, filepath.Join("images", "charts", "graphics_mosaicplot_mosaic_00_00.png")))
	if err != nil {
		t.Fatal(err)
	}
	return &model.Image{Data: b, MIME: "image/png"}
}

// ImageReachesModel checks, on a real vision model, that an image part is sent: the prompt with the chart costs
// more prompt tokens than the same prompt without it.
func ImageReachesModel(t *testing.T, c model.Chat, name string) {
	t.Helper()
	img := ChartPNG(t)
	zero := 0.0
	prompt := func(parts ...model.Part) int {
		st, err := c.Chat(E2EContext(t), model.Request{Model: name, Messages: []model.Message{{Role: model.RoleUser, Parts: parts}},
			Options: model.Options{Temperature: &zero, MaxTokens: 4}})
		if err != nil {
			t.Fatal(err)
		}
		d, err := model.Collect(st)
		if err != nil {
			t.Fatal(err)
		}
		if d.Usage == nil {
			t.Fatal("no usage in the reply")
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

// EmbedsByMeaning checks, on a real word-vector embedder, that cat lies nearer kitten than stock; it returns the
// vectors' dimension.
func EmbedsByMeaning(t *testing.T, e model.Embedder) int {
	t.Helper()
	vs, err := e.Embed(E2EContext(t), []model.EmbedInput{{Text: "cat"}, {Text: "kitten"}, {Text: "stock"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 3 {
		t.Fatalf("%d vectors for 3 texts", len(vs))
	}
	ck, cs := Cosine(vs[0], vs[1]), Cosine(vs[0], vs[2])
	t.Logf("cos(cat,kitten)=%.3f cos(cat,stock)=%.3f", ck, cs)
	if ck <= cs+0.1 {
		t.Errorf("cos(cat,kitten)=%.3f should exceed cos(cat,stock)=%.3f", ck, cs)
	}
	return len(vs[0])
}

// StreamsDeterministically checks, on a real text model, that a reply streams in several chunks with a finish
// reason and usage, and that temperature 0 repeats it.
func StreamsDeterministically(t *testing.T, c model.Chat, name string) {
	t.Helper()
	zero := 0.0
	run := func() (model.Delta, int) {
		st, err := c.Chat(E2EContext(t), model.Request{Model: name, Messages: []model.Message{model.TextMessage(model.RoleUser, "Tell me about the war.")},
			Options: model.Options{Temperature: &zero, MaxTokens: 24}})
		if err != nil {
			t.Fatal(err)
		}
		return Drain(t, st)
	}
	a, chunks := run()
	if chunks < 2 || a.Content == "" {
		t.Errorf("want a streamed reply in several chunks, got %d: %q", chunks, a.Content)
	}
	if !a.Done || (a.FinishReason != "stop" && a.FinishReason != "length") {
		t.Errorf("done %v finish %q", a.Done, a.FinishReason)
	}
	if a.Usage == nil || a.Usage.PromptTokens == 0 || a.Usage.CompletionTokens == 0 {
		t.Errorf("usage %+v", a.Usage)
	}
	if b, _ := run(); a.Content != b.Content {
		t.Errorf("temperature 0 must repeat: %q vs %q", a.Content, b.Content)
	}
}
