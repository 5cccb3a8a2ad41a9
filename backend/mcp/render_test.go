package mcp

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGetPageBounds: a sliver of a page asked at the largest width is capped on both sides (not a 54×76351 strip
// that cannot be encoded), and an error names no path inside the library.
func TestGetPageBounds(t *testing.T) {
	l := newLibrary(t)
	ctx := context.Background()
	lib := l.open(t)
	s := New(lib, Options{})
	for name, region := range map[string][]float64{
		"0.001 wide":  {0.5, 0, 0.501, 1},
		"0.001 tall":  {0, 0.5, 1, 0.501},
		"0.001 cell":  {0.5, 0.5, 0.501, 0.501},
		"whole page":  nil,
		"top quarter": {0, 0, 1, 0.25},
	} {
		t.Run(name, func(t *testing.T) {
			res, out, err := s.getPage(ctx, nil, PageIn{UnitID: l.units[1], Region: region, Width: maxPageWidth, Text: new(bool)})
			if err != nil {
				t.Fatalf("get_page: %v", err)
			}
			if out.Width > maxPageSide || out.Height > maxPageSide || out.Width*out.Height > maxPagePixels || out.Width < 1 || out.Height < 1 {
				t.Fatalf("a %dx%d image, over the bounds (%d a side, %d pixels)", out.Width, out.Height, maxPageSide, maxPagePixels)
			}
			img := imageOf(t, res.Content)
			if img.Dx() != out.Width || img.Dy() != out.Height {
				t.Errorf("the image is %v, the result says %dx%d", img, out.Width, out.Height)
			}
		})
	}

	// A failure that names a file of the library (a render error names the original's blob) reaches the client
	// without the path; the reason stays.
	d, err := lib.KB.Docs.Document(ctx, l.doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	failure := fmt.Errorf("render unit 7: open %s: no such file or directory", lib.KB.Blobs.Path(d.Blob))
	got := s.public(failure).Error()
	if strings.Contains(got, l.data) || !strings.Contains(got, "no such file or directory") || !strings.Contains(got, "render unit 7") {
		t.Fatalf("public(%q) = %q", failure, got)
	}
}

// imageOf decodes the one image of a result.
func imageOf(t *testing.T, cs []sdk.Content) image.Rectangle {
	t.Helper()
	for _, c := range cs {
		if ic, ok := c.(*sdk.ImageContent); ok {
			img, _, err := image.Decode(bytes.NewReader(ic.Data))
			if err != nil {
				t.Fatalf("the image does not decode: %v", err)
			}
			return img.Bounds()
		}
	}
	t.Fatal("no image in the result")
	return image.Rectangle{}
}
