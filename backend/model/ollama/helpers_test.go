package ollama

import (
	"os"
	"path/filepath"
	"testing"

	"proofglass/backend/fixture"
	"proofglass/backend/model"
)

func testdata(t *testing.T) string { return fixture.Dir(t) }

// chartPNG is a small real PNG from the shared test data.
func chartPNG(t *testing.T) *model.Image {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata(t), "images", "charts", "graphics_mosaicplot_mosaic_00_00.png"))
	if err != nil {
		t.Fatal(err)
	}
	return &model.Image{Data: b, MIME: "image/png"}
}

func ptr[T any](v T) *T { return &v }
