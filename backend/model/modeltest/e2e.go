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
