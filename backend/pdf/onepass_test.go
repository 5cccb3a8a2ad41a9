//go:build cgo

package pdf

import (
	"bytes"
	"image/jpeg"
	"math"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOnePassMatchesSeparatePasses checks that extraction's one run of a page into the text and draw devices (the
// tee device) gives the same text and words as the separate text pass and thumbnail render over a display list,
// and a thumbnail that differs at most invisibly, on the real, CJK and scanned test PDFs (first 60 pages each).
func TestOnePassMatchesSeparatePasses(t *testing.T) {
	defer func() { separatePasses = false }()
	for _, f := range realCJKScanned(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			e, err := openEngine(f, "", Limits{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.close()
			differ := 0
			for i := 0; i < min(e.pages, 60); i++ {
				// One pass first: the separate passes leave the page's display list behind, which it would replay.
				got, err := e.extractPage(i, benchOpts)
				if err != nil {
					t.Fatal(err)
				}
				if e.d.list != nil {
					t.Fatalf("page %d: the one pass recorded a display list", i+1)
				}
				separatePasses = true
				want, err := e.extractPage(i, benchOpts)
				separatePasses = false
				if err != nil {
					t.Fatal(err)
				}
				if got.Text != want.Text {
					t.Errorf("page %d text differs:\none pass  %q\nseparate  %q", i+1, trunc(got.Text), trunc(want.Text))
				}
				if d := cmp.Diff(want.Words, got.Words); d != "" {
					t.Errorf("page %d words differ (-separate +one pass):\n%s", i+1, trunc(d))
				}
				if got.Error != want.Error || got.ThumbW != want.ThumbW || got.ThumbH != want.ThumbH || len(got.Thumb) == 0 {
					t.Fatalf("page %d: one pass %q %dx%d (%d bytes), separate %q %dx%d", i+1, got.Error, got.ThumbW,
						got.ThumbH, len(got.Thumb), want.Error, want.ThumbW, want.ThumbH)
				}
				if bytes.Equal(got.Thumb, want.Thumb) {
					continue
				}
				differ++
				ref, err := jpeg.Decode(bytes.NewReader(want.Thumb))
				if err != nil {
					t.Fatal(err)
				}
				if p := jpegPSNR(t, ref, got.Thumb); p < 45 {
					t.Errorf("page %d thumbnail PSNR %.1f dB against the separate passes' (want ≥ 45)", i+1, p)
				} else if !math.IsInf(p, 1) {
					t.Logf("page %d thumbnail differs: PSNR %.1f dB", i+1, p)
				}
			}
			if differ > 0 {
				t.Logf("%d of %d thumbnails differ", differ, min(e.pages, 60))
			}
		})
	}
}
