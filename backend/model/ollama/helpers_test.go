package ollama

import (
	"os"
	"path/filepath"
	"testing"

	"loupe/backend/model"
)

// testdata finds ../shared/testdata next to the repository root (the directory holding go.mod), or skips.
func testdata(t *testing.T) string {
	t.Helper()
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			t.Skip("no go.mod above the test directory; cannot locate ../shared/testdata")
		}
		dir = filepath.Dir(dir)
	}
	td := filepath.Join(dir, "..", "shared", "testdata")
	if _, err := os.Stat(td); err != nil {
		t.Skipf("shared test data not found at %s: %v", td, err)
	}
	return td
}

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
