package builtin

import (
	"context"
	"errors"
	"math"
	"testing"

	"loupe/backend/model"
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
