package builtin

import (
	"context"
	"errors"
	"math"
	"testing"

	"proofglass/backend/model"
)

func TestEmbed(t *testing.T) {
	e := New()
	if e.ModelID() != "builtin/glove-100d" || e.Dim() != 100 || e.SupportsImages() {
		t.Fatalf("identity = %q dim %d images %v", e.ModelID(), e.Dim(), e.SupportsImages())
	}
	vs, err := e.Embed(context.Background(), []model.EmbedInput{{Text: "cat"}, {Text: "kitten"}, {Text: "stock"}, {Text: "中文"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 4 {
		t.Fatalf("got %d vectors, want 4", len(vs))
	}
	dot := func(a, b []float32) (s float64) {
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	for i, v := range vs[:3] {
		if len(v) != 100 || math.Abs(dot(v, v)-1) > 1e-5 {
			t.Errorf("vector %d: length %d, squared norm %v; want 100, 1", i, len(v), dot(v, v))
		}
	}
	if dot(vs[0], vs[1]) <= dot(vs[0], vs[2]) {
		t.Errorf("cat·kitten %.3f not above cat·stock %.3f", dot(vs[0], vs[1]), dot(vs[0], vs[2]))
	}
	if dot(vs[3], vs[3]) != 0 {
		t.Errorf("Chinese text gave a non-zero vector")
	}
}

func TestEmbedErrors(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := map[string]struct {
		ctx    context.Context
		inputs []model.EmbedInput
		want   error
	}{
		"image":     {context.Background(), []model.EmbedInput{{Text: "a"}, {Image: &model.Image{MIME: "image/png"}}}, model.ErrNoVision},
		"cancelled": {cancelled, []model.EmbedInput{{Text: "cat"}}, context.Canceled},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := New().Embed(c.ctx, c.inputs); !errors.Is(err, c.want) {
				t.Errorf("Embed = %v, want %v", err, c.want)
			}
		})
	}
}

// TestEmbedWindows: each window embeds as its own text through Embed, bit for bit; a window outside the text is an
// error.
func TestEmbedWindows(t *testing.T) {
	e := New()
	text := "The Linear Model fits coefficients by least squares. 中文 Naïve Café, catalog of Data Frames."
	windows := [][2]int{{0, len(text)}, {4, 16}, {5, 16}, {0, 0}, {53, 60}, {17, len(text)}}
	got, err := e.EmbedWindows(context.Background(), text, windows)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range windows {
		want, err := e.Embed(context.Background(), []model.EmbedInput{{Text: text[w[0]:w[1]]}})
		if err != nil {
			t.Fatal(err)
		}
		for j := range want[0] {
			if math.Float32bits(got[i][j]) != math.Float32bits(want[0][j]) {
				t.Fatalf("window %v: dimension %d is %v, Embed gives %v", w, j, got[i][j], want[0][j])
			}
		}
	}
	if _, err := e.EmbedWindows(context.Background(), text, [][2]int{{3, len(text) + 1}}); err == nil {
		t.Error("a window past the text's end: no error")
	}
}
